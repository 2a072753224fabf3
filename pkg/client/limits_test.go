package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestAnswerBounds: an answer larger than maxBody, or a stream message
// longer than maxLine, fails with a permanent ReasonTooLarge error that says
// what was too large, instead of being cut silently or read without end.
func TestAnswerBounds(t *testing.T) {
	endless := fakeagent.New("node-1")
	endless.Fault = fakeagent.FaultEndless
	// Announces a gigabyte, then sends nothing: refused before reading.
	announced := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1073741824")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	tests := []struct {
		name    string
		handler http.Handler
		call    func(ctx context.Context, a *Agent) error
		want    string
	}{
		{"endless answer", endless, func(ctx context.Context, a *Agent) error {
			_, err := a.Pods(ctx, v1alpha1.PodQuery{})
			return err
		}, "answered /api/v1alpha1/pods with more than 16 MiB"},
		{"announced size", announced, func(ctx context.Context, a *Agent) error {
			_, err := a.Sources(ctx)
			return err
		}, "answered /api/v1alpha1/sources with more than 16 MiB"},
		{"endless stream line", endless, func(ctx context.Context, a *Agent) error {
			s, err := a.Events(ctx, v1alpha1.EventQuery{})
			if err != nil {
				return err
			}
			defer s.Close()
			_, err = s.Next()
			return err
		}, "sent a stream message longer than 8 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer func() {
				srv.CloseClientConnections()
				srv.Close()
			}()
			a, err := (&Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute}).Agent("")
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(context.Background(), a)
			if ReasonOf(err) != ReasonTooLarge || !IsPermanent(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (%s), want a permanent %s error saying %q", err, ReasonOf(err), ReasonTooLarge, tc.want)
			}
		})
	}
}

// TestBudgetAcrossAgents checks that the agents of one Connector share its
// Budget: answers that each fit their own bound fail, with an error naming
// --max-bytes, once together they go past it; so does a history.
func TestBudgetAcrossAgents(t *testing.T) {
	fa := fakeagent.New("node-1")
	long := strings.Repeat("p", 1000)
	for i := range 1000 {
		fa.Pods.Items = append(fa.Pods.Items, v1alpha1.PodInfo{Name: fmt.Sprintf("%s-%d", long, i), Namespace: "default"})
		fa.Publish(configEvent("ADD", fmt.Sprintf("%s-%d", long, i)))
	}
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	// About 1 MiB each: two answers fit, the third does not.
	conn := &Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute, Budget: NewBudget(5 << 19)}
	ctx := context.Background()
	var agents []*Agent
	for _, node := range []string{"node-1", "node-2", "node-3"} {
		a, err := conn.Agent(node)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	for i, a := range agents {
		_, err := a.Pods(ctx, v1alpha1.PodQuery{})
		switch {
		case i < 2 && err != nil:
			t.Fatalf("answer %d, within the budget: %v", i+1, err)
		case i == 2 && (ReasonOf(err) != ReasonTooLarge || !strings.Contains(err.Error(), "went past the 2 MiB this command reads from agents across nodes (--max-bytes)")):
			t.Fatalf("answer 3, past the budget: error %v (%s)", err, ReasonOf(err))
		}
	}

	// A history of about 1 MiB, against a budget of half that.
	hist := &Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute, Budget: NewBudget(1 << 19)}
	a, err := hist.Agent("node-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.History(ctx, v1alpha1.EventQuery{}); ReasonOf(err) != ReasonTooLarge || !strings.Contains(err.Error(), "reading the event history from the agent on node \"node-1\" went past") {
		t.Fatalf("history past the budget: error %v (%s)", err, ReasonOf(err))
	}
	// Without a budget, each answer has its own bound only.
	if _, _, err := startAgent(t, fa).History(ctx, v1alpha1.EventQuery{}); err != nil {
		t.Fatalf("history without a budget: %v", err)
	}
}
