package serve

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// fakeState is a State with nothing in it: the tests of this package
// test the API's streams and limits, not the answers' contents.
type fakeState struct{}

func (fakeState) Sources() v1alpha1.SourceList { return v1alpha1.SourceList{} }
func (fakeState) PLEG() v1alpha1.PLEGStatus    { return v1alpha1.PLEGStatus{} }
func (fakeState) Version() v1alpha1.Version    { return v1alpha1.Version{} }
func (fakeState) Pods(*v1alpha1.PodQuery) (v1alpha1.PodList, func(func(v1alpha1.PodInfo) error) error) {
	return v1alpha1.PodList{}, func(func(v1alpha1.PodInfo) error) error { return nil }
}
func (fakeState) Pod(types.UID) (v1alpha1.PodInfo, error) {
	return v1alpha1.PodInfo{}, errors.New("no source and no runtime has the pod")
}
func (fakeState) Snapshot(*v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(func(v1alpha1.PodInfo) error) error) {
	return 0, v1alpha1.PodList{}, func(func(v1alpha1.PodInfo) error) error { return nil }
}
func (fakeState) Live() error  { return nil }
func (fakeState) Ready() error { return nil }

// testAPI is an API over a fakeState and a ring of its own, served on
// loopback until the test ends.
type testAPI struct {
	ring *eventring.Ring
	url  string
}

// startAPI serves an API whose ring keeps buffer events.
func startAPI(t *testing.T, buffer int) *testAPI {
	t.Helper()
	metrics := NewMetrics()
	stopping := make(chan struct{})
	api := &API{
		State:              fakeState{},
		Ring:               eventring.New(buffer, nil),
		Heartbeat:          200 * time.Millisecond,
		StreamWriteTimeout: DefaultStreamWriteTimeout,
		Stopping:           stopping,
		Metrics:            metrics,
		Streams:            DefaultLimits().StreamSlots(metrics.Refused),
		Snapshots:          DefaultLimits().SnapshotSlots(metrics.Refused),
	}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(func() { close(stopping); srv.Close() })
	return &testAPI{ring: api.Ring, url: srv.URL}
}

// streamClient reads one event stream.
type streamClient struct {
	sc *bufio.Scanner
}

// stream opens the event stream of query.
func (ta *testAPI) stream(t *testing.T, query string) *streamClient {
	t.Helper()
	resp, err := http.Get(ta.url + v1alpha1.EventsPath + query)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream %s: %d %s", query, resp.StatusCode, body)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &streamClient{sc: sc}
}

// next returns the next message, failing the test at the end of the stream.
// A stuck stream is cut by the test's timeout.
func (c *streamClient) next(t *testing.T) v1alpha1.StreamMessage {
	t.Helper()
	if !c.sc.Scan() {
		t.Fatalf("stream ended: %v", c.sc.Err())
	}
	var m v1alpha1.StreamMessage
	if err := json.Unmarshal(c.sc.Bytes(), &m); err != nil {
		t.Fatalf("bad stream line %q: %v", c.sc.Text(), err)
	}
	return m
}

// nextOf skips heartbeats.
func (c *streamClient) nextOf(t *testing.T) v1alpha1.StreamMessage {
	t.Helper()
	for {
		if m := c.next(t); m.Type != v1alpha1.MessageHeartbeat {
			return m
		}
	}
}
