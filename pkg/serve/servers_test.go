package serve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// waitLimit bounds every wait in these tests.
const waitLimit = 20 * time.Second

// serverConfig is what a test changes of a testServer: the limits, the
// events its ring keeps, and the State (nil: one with nothing in it).
type serverConfig struct {
	Limits    Limits
	Buffer    int
	Heartbeat time.Duration
	State     func(*eventring.Ring) State
}

// testServer is an API served on loopback as the agent serves it
// (API.Servers): its testAPI's url is the API's listener, probeURL the
// probes'.
type testServer struct {
	*testAPI
	api      *API
	probeURL string
}

// startServer serves an API, with its metrics on /metrics, on two loopback
// listeners until the test ends; adjust may change its config.
func startServer(t *testing.T, adjust func(*serverConfig)) *testServer {
	t.Helper()
	cfg := serverConfig{Limits: DefaultLimits(), Buffer: 1000, State: func(*eventring.Ring) State { return fakeState{} }}
	if adjust != nil {
		adjust(&cfg)
	}
	ring := eventring.New(cfg.Buffer, nil)
	api, stopStreams := newTestAPI(cfg.State(ring), ring, cfg.Limits)
	registry := prometheus.NewRegistry()
	registry.MustRegister(api.Metrics.Collectors()...)
	api.MetricsHandler = promhttp.HandlerFor(registry, promhttp.HandlerOpts{})
	if cfg.Heartbeat != 0 {
		api.Heartbeat = cfg.Heartbeat
	}
	var listeners []net.Listener
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
	}
	servers := api.Servers(listeners[0], listeners[1], cfg.Limits)
	done := make(chan error, len(servers))
	for _, s := range servers {
		go func() { done <- s.HTTP.Serve(s.Listener) }()
	}
	t.Cleanup(func() {
		stopStreams()
		for _, s := range servers {
			_ = s.HTTP.Close()
		}
		for range servers {
			if err := <-done; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("serving: %v", err)
			}
		}
	})
	return &testServer{testAPI: &testAPI{ring: ring, url: "http://" + listeners[0].Addr().String()}, api: api, probeURL: "http://" + listeners[1].Addr().String()}
}

// pollInterval is how often the tests' awaited conditions are checked.
const pollInterval = 20 * time.Millisecond

// waitFor polls cond until it holds, or fails the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, waitLimit, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// subscribersValue returns the number of open streams, as /metrics counts
// them.
func (m *Metrics) subscribersValue() int {
	var out dto.Metric
	_ = m.Subscribers.Write(&out)
	return int(out.GetGauge().GetValue())
}

// refusedValue returns podsrc_refused_total of one limit label.
func (m *Metrics) refusedValue(label string) float64 {
	var out dto.Metric
	_ = m.Refused.WithLabelValues(label).Write(&out)
	return out.GetCounter().GetValue()
}

// podsState is a State that holds pods, and whose snapshots start at the
// last event of its ring.
type podsState struct {
	fakeState
	ring *eventring.Ring
	pods []v1alpha1.PodInfo
}

func (s podsState) Pods(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(func(v1alpha1.PodInfo) error) error) {
	return v1alpha1.PodList{NodeName: "node-1"}, func(yield func(v1alpha1.PodInfo) error) error {
		for _, p := range s.pods {
			if q.Match(p) {
				if err := yield(p); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func (s podsState) Snapshot(q *v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(func(v1alpha1.PodInfo) error) error) {
	seq := s.ring.LastSeq()
	head, items := s.Pods(q)
	return seq, head, items
}
