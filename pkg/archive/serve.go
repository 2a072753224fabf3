package archive

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"sync"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/serve"
)

// Server serves an archive as its agent did: serve.API over the archive,
// reached through Transport, in memory, without a socket.
type Server struct {
	// Transport carries requests to the archive's API, whatever their
	// host.
	Transport http.RoundTripper

	server   *http.Server
	listener *pipeListener
	stopping chan struct{}
	done     chan struct{}
}

// Serve starts serving a until Close.
func Serve(a *Archive) (*Server, error) {
	h, err := newHistory(a)
	if err != nil {
		return nil, err
	}
	w := a.Manifest.Events
	ring := eventring.NewWithEpoch(len(h.events)+1, w.Epoch, nil)
	// The ring keeps the newest events that follow each other up to the
	// window's end; the history has the rest, and the gaps.
	ring.Restore(eventring.Batch{Events: h.events, Lines: h.lines}, w.Until)
	metrics := serve.NewMetrics()
	unlimited := serve.Limits{MaxStreams: math.MaxInt, MaxStreamsPerPeer: math.MaxInt, MaxSnapshots: math.MaxInt, MaxSnapshotsPerPeer: math.MaxInt}
	s := &Server{listener: newPipeListener(), stopping: make(chan struct{}), done: make(chan struct{})}
	api := &serve.API{
		State:     state{a},
		Ring:      ring,
		History:   h,
		Heartbeat: v1alpha1.DefaultHeartbeat,
		Stopping:  s.stopping,
		Streams:   unlimited.StreamSlots(metrics.Refused),
		Snapshots: unlimited.SnapshotSlots(metrics.Refused),
		Metrics:   metrics,
	}
	// The plugin reports a request that fails; the server's own log (a
	// handler's panic, with what a hostile archive made it hold) would go
	// to stderr unescaped.
	s.server = &http.Server{Handler: api.Handler(), ErrorLog: log.New(io.Discard, "", 0)}
	s.Transport = &http.Transport{DialContext: s.listener.dial, DisableCompression: true}
	go func() {
		defer close(s.done)
		_ = s.server.Serve(s.listener)
	}()
	return s, nil
}

// Close ends every stream and stops serving.
func (s *Server) Close() error {
	close(s.stopping)
	err := s.server.Close()
	<-s.done
	s.Transport.(*http.Transport).CloseIdleConnections()
	return err
}

// encodeLine is an event's stream line, as the agent's event ring encodes
// it.
func encodeLine(m v1alpha1.StreamMessage) ([]byte, error) {
	line, err := json.Marshal(v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Epoch: m.Epoch, Event: m.Event, Time: m.Event.Time})
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

// pipeListener is a net.Listener whose connections are in-memory pipes
// that dial makes.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// errClosed is the error of a closed listener.
var errClosed = errors.New("the archive's server is closed")

// dial hands the server one end of a new pipe and returns the other.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
	client.Close()
	server.Close()
	return nil, errClosed
}

// Accept implements net.Listener.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, errClosed
	}
}

// Close implements net.Listener.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr implements net.Listener.
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// pipeAddr is the address of the in-memory pipes.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "archive" }
