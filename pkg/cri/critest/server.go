// Package critest is a small in-memory CRI runtime service served over gRPC on
// a unix socket, for tests of code that talks to a real runtime. It keeps its
// sandboxes and containers across Stop and Start, like a runtime that
// restarts, and can be told to fail or hang chosen calls. It streams a
// container event for each change of a container or sandbox, as containerd's
// GetContainerEvents does.
package critest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/cri"
)

// Names of the calls the server answers, for Fail, Hang and Calls.
const (
	MethodVersion          = "Version"
	MethodListPodSandbox   = "ListPodSandbox"
	MethodListContainers   = "ListContainers"
	MethodPodSandboxStatus = "PodSandboxStatus"
	MethodContainerStatus  = "ContainerStatus"
	// MethodGetContainerEvents is the event stream: Fail with
	// codes.Unimplemented makes a runtime that serves none.
	MethodGetContainerEvents = "GetContainerEvents"
)

type sandbox struct {
	meta      *runtimeapi.PodSandboxMetadata
	id        string
	state     runtimeapi.PodSandboxState
	createdAt int64
	ip        string
}

type container struct {
	id         string
	sandboxID  string
	name       string
	podUID     string
	podName    string
	podNS      string
	state      runtimeapi.ContainerState
	createdAt  int64
	startedAt  int64
	finishedAt int64
	exitCode   int32
	reason     string
}

// Server is the fake runtime. Its methods are safe for concurrent use.
type Server struct {
	path string

	mu         sync.Mutex
	gs         *grpc.Server
	sandboxes  []*sandbox
	containers []*container
	nextID     int
	lastTime   int64
	fail       map[string]error
	hang       map[string]bool
	calls      map[string]int
	// subs are the open event streams.
	subs map[chan *runtimeapi.ContainerEventResponse]struct{}
}

// New returns a stopped server that will listen on the unix socket path.
func New(path string) *Server {
	return &Server{
		path: path, fail: map[string]error{}, hang: map[string]bool{}, calls: map[string]int{},
		subs: map[chan *runtimeapi.ContainerEventResponse]struct{}{},
	}
}

// NewForTest returns a server, not started, on a socket in a fresh
// directory that is removed, with the server stopped, when the test ends.
// The directory is under the system's temporary directory, because unix
// socket paths are limited to about 100 bytes and t.TempDir can be longer.
func NewForTest(t testing.TB) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "cri")
	if err != nil {
		t.Fatal(err)
	}
	s := New(filepath.Join(dir, "cri.sock"))
	t.Cleanup(func() {
		s.Stop()
		os.RemoveAll(dir)
	})
	return s
}

// Endpoint returns the server's endpoint as "unix:///path".
func (s *Server) Endpoint() string { return "unix://" + s.path }

// Start listens on the socket and serves until Stop.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gs != nil {
		return errors.New("critest: already started")
	}
	_ = os.Remove(s.path)
	l, err := net.Listen("unix", s.path)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.path, err)
	}
	// Stop waits for the handlers, so that an event stream of a stopped
	// server is gone from Streams when Stop returns.
	gs := grpc.NewServer(grpc.WaitForHandlers(true))
	runtimeapi.RegisterRuntimeServiceServer(gs, &service{s: s})
	s.gs = gs
	go func() { _ = gs.Serve(l) }()
	return nil
}

// Stop closes every connection, ends calls in progress (hanging ones too),
// waits for their handlers to return and removes the socket. The runtime
// state is kept for the next Start.
func (s *Server) Stop() {
	s.mu.Lock()
	gs := s.gs
	s.gs = nil
	s.mu.Unlock()
	if gs != nil {
		gs.Stop()
	}
	_ = os.Remove(s.path)
}

// Fail makes every later call of method fail with err (a gRPC status error
// is passed through as is); a nil err makes it succeed again.
func (s *Server) Fail(method string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.fail, method)
		return
	}
	s.fail[method] = err
}

// Hang makes every later call of method block until its caller gives up or
// the server stops; Hang(method, false) ends that.
func (s *Server) Hang(method string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang[method] = on
}

// Calls returns how often method was called.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// enter counts a call and applies the faults configured for its method.
func (s *Server) enter(ctx context.Context, method string) error {
	s.mu.Lock()
	s.calls[method]++
	err, hang := s.fail[method], s.hang[method]
	s.mu.Unlock()
	if hang {
		<-ctx.Done()
		return status.FromContextError(ctx.Err()).Err()
	}
	return err
}

// now returns a strictly increasing wall-clock time in nanoseconds. Called
// with mu held.
func (s *Server) now() int64 {
	t := time.Now().UnixNano()
	if t <= s.lastTime {
		t = s.lastTime + 1
	}
	s.lastTime = t
	return t
}

func (s *Server) newID(prefix string) string {
	s.nextID++
	return prefix + strconv.Itoa(s.nextID)
}

// RunSandbox adds a ready sandbox for the pod and returns its ID.
func (s *Server) RunSandbox(uid, name, namespace, ip string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := &sandbox{
		id:        s.newID("sandbox-"),
		meta:      &runtimeapi.PodSandboxMetadata{Uid: uid, Name: name, Namespace: namespace},
		state:     runtimeapi.PodSandboxState_SANDBOX_READY,
		createdAt: s.now(),
		ip:        ip,
	}
	s.sandboxes = append(s.sandboxes, sb)
	s.emit(sb.id, runtimeapi.ContainerEventType_CONTAINER_STARTED_EVENT)
	return sb.id
}

// StopSandbox makes a sandbox not ready.
func (s *Server) StopSandbox(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb := s.findSandbox(id); sb != nil {
		sb.state = runtimeapi.PodSandboxState_SANDBOX_NOTREADY
		s.emit(id, runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT)
	}
}

// RemoveSandbox deletes a sandbox (not its containers).
func (s *Server) RemoveSandbox(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sandboxes = slices.DeleteFunc(s.sandboxes, func(sb *sandbox) bool { return sb.id == id })
	s.emit(id, runtimeapi.ContainerEventType_CONTAINER_DELETED_EVENT)
}

// CreateContainer adds a created container to a sandbox and returns its ID.
func (s *Server) CreateContainer(sandboxID, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.findSandbox(sandboxID)
	if sb == nil {
		panic("critest: no sandbox " + sandboxID)
	}
	c := &container{
		id:        s.newID("container-"),
		sandboxID: sandboxID,
		name:      name,
		podUID:    sb.meta.Uid,
		podName:   sb.meta.Name,
		podNS:     sb.meta.Namespace,
		state:     runtimeapi.ContainerState_CONTAINER_CREATED,
		createdAt: s.now(),
	}
	s.containers = append(s.containers, c)
	s.emit(c.id, runtimeapi.ContainerEventType_CONTAINER_CREATED_EVENT)
	return c.id
}

// StartContainer makes a container running.
func (s *Server) StartContainer(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.findContainer(id); c != nil {
		c.state = runtimeapi.ContainerState_CONTAINER_RUNNING
		c.startedAt = s.now()
		s.emit(id, runtimeapi.ContainerEventType_CONTAINER_STARTED_EVENT)
	}
}

// ExitContainer makes a container exited with the exit code and reason.
func (s *Server) ExitContainer(id string, exitCode int32, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.findContainer(id); c != nil {
		c.state = runtimeapi.ContainerState_CONTAINER_EXITED
		c.finishedAt = s.now()
		c.exitCode = exitCode
		c.reason = reason
		s.emit(id, runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT)
	}
}

// RemoveContainer deletes a container.
func (s *Server) RemoveContainer(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.containers = slices.DeleteFunc(s.containers, func(c *container) bool { return c.id == id })
	s.emit(id, runtimeapi.ContainerEventType_CONTAINER_DELETED_EVENT)
}

// emit sends a container event to every open stream, after the change it
// reports; a stream whose buffer is full misses it, as containerd's does.
// Called with mu held.
func (s *Server) emit(id string, typ runtimeapi.ContainerEventType) {
	ev := &runtimeapi.ContainerEventResponse{ContainerId: id, ContainerEventType: typ, CreatedAt: s.now()}
	for ch := range s.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// Streams returns how many event streams are open.
func (s *Server) Streams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

func (s *Server) findSandbox(id string) *sandbox {
	for _, sb := range s.sandboxes {
		if sb.id == id {
			return sb
		}
	}
	return nil
}

func (s *Server) findContainer(id string) *container {
	for _, c := range s.containers {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (sb *sandbox) labels() map[string]string {
	return map[string]string{cri.LabelPodUID: sb.meta.Uid, cri.LabelPodName: sb.meta.Name, cri.LabelPodNamespace: sb.meta.Namespace}
}

func (sb *sandbox) object() *runtimeapi.PodSandbox {
	return &runtimeapi.PodSandbox{
		Id:        sb.id,
		Metadata:  sb.meta,
		State:     sb.state,
		CreatedAt: sb.createdAt,
		Labels:    sb.labels(),
	}
}

func (c *container) labels() map[string]string {
	return map[string]string{
		cri.LabelPodUID:        c.podUID,
		cri.LabelPodName:       c.podName,
		cri.LabelPodNamespace:  c.podNS,
		cri.LabelContainerName: c.name,
	}
}

func (c *container) object() *runtimeapi.Container {
	return &runtimeapi.Container{
		Id:           c.id,
		PodSandboxId: c.sandboxID,
		Metadata:     &runtimeapi.ContainerMetadata{Name: c.name},
		Image:        &runtimeapi.ImageSpec{Image: "registry.test/" + c.name + ":1"},
		ImageRef:     "sha256:" + c.name,
		State:        c.state,
		CreatedAt:    c.createdAt,
		Labels:       c.labels(),
		Annotations:  map[string]string{cri.AnnotationRestartCount: "0"},
	}
}

// service answers the CRI calls from a Server's state.
type service struct {
	runtimeapi.UnimplementedRuntimeServiceServer
	s *Server
}

// Version implements the CRI.
func (v *service) Version(ctx context.Context, _ *runtimeapi.VersionRequest) (*runtimeapi.VersionResponse, error) {
	if err := v.s.enter(ctx, MethodVersion); err != nil {
		return nil, err
	}
	return &runtimeapi.VersionResponse{Version: "0.1.0", RuntimeName: "critest", RuntimeVersion: "0.1.0", RuntimeApiVersion: "v1"}, nil
}

// ListPodSandbox implements the CRI (filters are not applied).
func (v *service) ListPodSandbox(ctx context.Context, _ *runtimeapi.ListPodSandboxRequest) (*runtimeapi.ListPodSandboxResponse, error) {
	if err := v.s.enter(ctx, MethodListPodSandbox); err != nil {
		return nil, err
	}
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	resp := &runtimeapi.ListPodSandboxResponse{}
	for _, sb := range v.s.sandboxes {
		resp.Items = append(resp.Items, sb.object())
	}
	return resp, nil
}

// ListContainers implements the CRI (filters are not applied).
func (v *service) ListContainers(ctx context.Context, _ *runtimeapi.ListContainersRequest) (*runtimeapi.ListContainersResponse, error) {
	if err := v.s.enter(ctx, MethodListContainers); err != nil {
		return nil, err
	}
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	resp := &runtimeapi.ListContainersResponse{}
	for _, c := range v.s.containers {
		resp.Containers = append(resp.Containers, c.object())
	}
	return resp, nil
}

// PodSandboxStatus implements the CRI.
func (v *service) PodSandboxStatus(ctx context.Context, req *runtimeapi.PodSandboxStatusRequest) (*runtimeapi.PodSandboxStatusResponse, error) {
	if err := v.s.enter(ctx, MethodPodSandboxStatus); err != nil {
		return nil, err
	}
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	sb := v.s.findSandbox(req.PodSandboxId)
	if sb == nil {
		return nil, status.Errorf(codes.NotFound, "sandbox %q not found", req.PodSandboxId)
	}
	st := &runtimeapi.PodSandboxStatus{
		Id:        sb.id,
		Metadata:  sb.meta,
		State:     sb.state,
		CreatedAt: sb.createdAt,
		Network:   &runtimeapi.PodSandboxNetworkStatus{Ip: sb.ip},
		Labels:    sb.labels(),
	}
	return &runtimeapi.PodSandboxStatusResponse{Status: st}, nil
}

// ContainerStatus implements the CRI.
func (v *service) ContainerStatus(ctx context.Context, req *runtimeapi.ContainerStatusRequest) (*runtimeapi.ContainerStatusResponse, error) {
	if err := v.s.enter(ctx, MethodContainerStatus); err != nil {
		return nil, err
	}
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	c := v.s.findContainer(req.ContainerId)
	if c == nil {
		return nil, status.Errorf(codes.NotFound, "container %q not found", req.ContainerId)
	}
	o := c.object()
	st := &runtimeapi.ContainerStatus{
		Id:          c.id,
		Metadata:    o.Metadata,
		State:       c.state,
		CreatedAt:   c.createdAt,
		StartedAt:   c.startedAt,
		FinishedAt:  c.finishedAt,
		ExitCode:    c.exitCode,
		Reason:      c.reason,
		Image:       o.Image,
		ImageRef:    o.ImageRef,
		Labels:      o.Labels,
		Annotations: o.Annotations,
	}
	return &runtimeapi.ContainerStatusResponse{Status: st}, nil
}

// GetContainerEvents implements the CRI: the events of the changes made
// while the stream is open.
func (v *service) GetContainerEvents(_ *runtimeapi.GetEventsRequest, stream runtimeapi.RuntimeService_GetContainerEventsServer) error {
	ctx := stream.Context()
	if err := v.s.enter(ctx, MethodGetContainerEvents); err != nil {
		return err
	}
	ch := make(chan *runtimeapi.ContainerEventResponse, 100)
	v.s.mu.Lock()
	v.s.subs[ch] = struct{}{}
	v.s.mu.Unlock()
	defer func() {
		v.s.mu.Lock()
		delete(v.s.subs, ch)
		v.s.mu.Unlock()
	}()
	for {
		select {
		case ev := <-ch:
			if err := stream.Send(ev); err != nil {
				return err
			}
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
}
