package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
	"github.com/podsrc/podsrc/pkg/memsize"
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
	ctx := context.Background()
	// An answer of about 1 MiB holds its body while it is decoded, then
	// what it decodes to: two answers fit, the third does not.
	one, err := startAgent(t, fa).Pods(ctx, v1alpha1.PodQuery{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	held := memsize.Of(one)
	budget := NewBudget(2*held + int64(len(body)) + held/2)
	conn := &Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute, Budget: budget}
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
		case i == 2 && (ReasonOf(err) != ReasonTooLarge || !strings.Contains(err.Error(), `holding the answer of /api/v1alpha1/pods from the agent on node "node-3" would take this command past the `+budget.String()+` it holds of what agents sent, across nodes (--max-bytes): ask fewer nodes at once`)):
			t.Fatalf("answer 3, past the budget: error %v (%s)", err, ReasonOf(err))
		}
	}
	// What the failed answer took is given back; what the others hold,
	// once they are let go.
	if used := budget.used.Load(); used != 2*held {
		t.Errorf("the budget holds %d bytes after two answers of %d and a failed one, want %d", used, held, 2*held)
	}
	for _, a := range agents {
		a.Release()
	}
	if used := budget.used.Load(); used != 0 {
		t.Errorf("the budget holds %d bytes once every answer is let go, want 0", used)
	}

	// A history of about 1 MiB, against a budget of half that.
	hist := &Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute, Budget: NewBudget(1 << 19)}
	a, err := hist.Agent("node-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.History(ctx, v1alpha1.EventQuery{}); ReasonOf(err) != ReasonTooLarge || !strings.Contains(err.Error(), "holding the event history from the agent on node \"node-1\" would take this command past the 512Ki") {
		t.Fatalf("history past the budget: error %v (%s)", err, ReasonOf(err))
	}
	// Without a budget, each answer has its own bound only.
	if _, _, err := startAgent(t, fa).History(ctx, v1alpha1.EventQuery{}); err != nil {
		t.Fatalf("history without a budget: %v", err)
	}
}

// TestBudgetChargesWhatIsHeld: the budget counts what an answer holds once
// decoded, not the bytes it took on the wire. A list of empty items takes
// little on the wire and much decoded: it fails at the first item past the
// budget, though its bytes fit many times over, and leaves nothing
// charged; the same items within a larger budget are held, and charged at
// least what they take.
func TestBudgetChargesWhatIsHeld(t *testing.T) {
	const items = 20000
	body := `{"apiVersion":"podsrc.io/v1alpha1","kind":"PodList","nodeName":"node-1","items":[` + strings.Repeat("{},", items-1) + `{}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	decoded := int64(items) * int64(unsafe.Sizeof(v1alpha1.PodInfo{}))
	tests := []struct {
		name   string
		budget int64
		fits   bool
	}{
		{"the bytes fit, not what they decode to", 8 * int64(len(body)), false},
		{"what they decode to fits", 4 * decoded, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			budget := NewBudget(tc.budget)
			a, err := (&Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute, Budget: budget}).Agent("node-1")
			if err != nil {
				t.Fatal(err)
			}
			list, err := a.Pods(context.Background(), v1alpha1.PodQuery{})
			if !tc.fits {
				if ReasonOf(err) != ReasonTooLarge || !strings.Contains(err.Error(), `holding the answer of /api/v1alpha1/pods from the agent on node "node-1" would take this command past the`) {
					t.Fatalf("error %v (%s), want one naming the node and --max-bytes", err, ReasonOf(err))
				}
				if used := budget.used.Load(); used != 0 {
					t.Errorf("the failed answer left %d bytes charged, want 0", used)
				}
				return
			}
			if err != nil || len(list.Items) != items || list.NodeName != "node-1" {
				t.Fatalf("within the budget: error %v, %d items of node %q", err, len(list.Items), list.NodeName)
			}
			if used := budget.used.Load(); used < decoded || used != memsize.Of(list) {
				t.Errorf("the budget holds %d bytes for items that take %d at least, want what the list holds (%d)", used, decoded, memsize.Of(list))
			}
		})
	}
}
