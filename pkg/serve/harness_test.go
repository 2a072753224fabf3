package serve

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
)

// fakeState is a State with nothing in it: the tests of this package
// test the API's streams and limits, not the answers' contents.
type fakeState struct{}

func (fakeState) Sources() v1alpha1.SourceList { return v1alpha1.SourceList{} }
func (fakeState) PLEG() v1alpha1.PLEGStatus    { return v1alpha1.PLEGStatus{} }
func (fakeState) Version() v1alpha1.Version    { return v1alpha1.Version{} }
func (fakeState) KubeletConfig() v1alpha1.KubeletConfig {
	return v1alpha1.KubeletConfig{}
}
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

// startAPI serves an API over a fakeState whose ring keeps buffer events.
func startAPI(t *testing.T, buffer int) *testAPI {
	t.Helper()
	return startAPIOver(t, fakeState{}, buffer)
}

// startAPIOver serves an API over state whose ring keeps buffer events.
func startAPIOver(t *testing.T, state State, buffer int) *testAPI {
	t.Helper()
	api, stop := newTestAPI(state, eventring.New(buffer, nil), DefaultLimits())
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(func() { stop(); srv.Close() })
	return &testAPI{ring: api.Ring, url: srv.URL}
}

// newTestAPI returns an API over state and ring within lim, with a
// heartbeat of 200 ms and no /metrics, and the func that stops its
// streams.
func newTestAPI(state State, ring *eventring.Ring, lim Limits) (*API, func()) {
	metrics := NewMetrics()
	stopping := make(chan struct{})
	return &API{
		State:              state,
		Ring:               ring,
		Heartbeat:          200 * time.Millisecond,
		StreamWriteTimeout: DefaultStreamWriteTimeout,
		Stopping:           stopping,
		Metrics:            metrics,
		Streams:            lim.StreamSlots(metrics.Refused),
		Snapshots:          lim.SnapshotSlots(metrics.Refused),
	}, func() { close(stopping) }
}

// stream opens the API's event stream with query.
func (ta *testAPI) stream(t *testing.T, query string) *servetest.Stream {
	t.Helper()
	return servetest.OpenStream(t, ta.url+v1alpha1.EventsPath+query)
}
