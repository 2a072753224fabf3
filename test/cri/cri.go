// Package cri is a small CRI client for tests that drive a container runtime
// directly: pod sandboxes, containers, listing, status and the container
// event stream, labelled the way the kubelet labels what it creates.
//
// The kubelet stops sandboxes it did not create on its own containerd, so
// tests that run their own pods use a standalone containerd (see
// test/cluster.StandaloneContainerd).
package cri

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// Labels and annotations the kubelet puts on sandboxes and containers.
const (
	LabelPodName       = "io.kubernetes.pod.name"
	LabelPodNamespace  = "io.kubernetes.pod.namespace"
	LabelPodUID        = "io.kubernetes.pod.uid"
	LabelContainerName = "io.kubernetes.container.name"
	AnnotationRestarts = "io.kubernetes.container.restartCount"
)

// Client talks to one CRI runtime over its unix socket.
type Client struct {
	conn *grpc.ClientConn
	// Runtime is the raw runtime service, for calls this package does not wrap.
	Runtime runtimeapi.RuntimeServiceClient
}

// Dial connects to endpoint (unix:///path or a plain socket path) and checks
// that the runtime answers Version.
func Dial(ctx context.Context, endpoint string) (*Client, error) {
	path := strings.TrimPrefix(endpoint, "unix://")
	if path == "" || !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("CRI endpoint %q: want unix:///absolute/path", endpoint)
	}
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	c := &Client{conn: conn, Runtime: runtimeapi.NewRuntimeServiceClient(conn)}
	if _, err := c.Runtime.Version(ctx, &runtimeapi.VersionRequest{}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("asking %s for its version: %w", endpoint, err)
	}
	return c, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Pod describes a sandbox to run.
type Pod struct {
	Name      string
	Namespace string // default "default"
	UID       string // default: derived from Name
	Attempt   uint32
	// HostNetwork runs the sandbox in the runtime's network namespace.
	HostNetwork bool
	// CgroupParent is the cgroup the pod's cgroups go under, e.g. the
	// standalone containerd's CgroupParent plus a pod directory.
	CgroupParent string
	// LogDirectory is where the runtime writes container logs; empty means
	// no logs.
	LogDirectory string
	Labels       map[string]string
	Annotations  map[string]string
}

// Config returns the sandbox config the kubelet would send for p.
func (p Pod) Config() *runtimeapi.PodSandboxConfig {
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	uid := p.UID
	if uid == "" {
		uid = "uid-" + p.Name
	}
	labels := map[string]string{LabelPodName: p.Name, LabelPodNamespace: ns, LabelPodUID: uid}
	for k, v := range p.Labels {
		labels[k] = v
	}
	annotations := map[string]string{}
	for k, v := range p.Annotations {
		annotations[k] = v
	}
	cfg := &runtimeapi.PodSandboxConfig{
		Metadata:     &runtimeapi.PodSandboxMetadata{Name: p.Name, Namespace: ns, Uid: uid, Attempt: p.Attempt},
		Hostname:     p.Name,
		LogDirectory: p.LogDirectory,
		Labels:       labels,
		Annotations:  annotations,
		Linux: &runtimeapi.LinuxPodSandboxConfig{
			CgroupParent:    p.CgroupParent,
			SecurityContext: &runtimeapi.LinuxSandboxSecurityContext{NamespaceOptions: &runtimeapi.NamespaceOption{}},
		},
	}
	if p.HostNetwork {
		// A host-network sandbox must not set a host name.
		cfg.Hostname = ""
		cfg.Linux.SecurityContext.NamespaceOptions.Network = runtimeapi.NamespaceMode_NODE
	}
	return cfg
}

// RunPod runs a sandbox for p and returns its ID and the config it was run
// with (CreateContainer needs it).
func (c *Client) RunPod(ctx context.Context, p Pod) (string, *runtimeapi.PodSandboxConfig, error) {
	cfg := p.Config()
	resp, err := c.Runtime.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: cfg})
	if err != nil {
		return "", nil, fmt.Errorf("running sandbox %s: %w", p.Name, err)
	}
	return resp.PodSandboxId, cfg, nil
}

// StopPod stops a sandbox and the containers in it.
func (c *Client) StopPod(ctx context.Context, id string) error {
	if _, err := c.Runtime.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: id}); err != nil {
		return fmt.Errorf("stopping sandbox %s: %w", id, err)
	}
	return nil
}

// RemovePod removes a sandbox and the containers in it.
func (c *Client) RemovePod(ctx context.Context, id string) error {
	if _, err := c.Runtime.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: id}); err != nil {
		return fmt.Errorf("removing sandbox %s: %w", id, err)
	}
	return nil
}

// Container describes a container to create in a sandbox.
type Container struct {
	Name    string
	Image   string
	Command []string
	Args    []string
	Env     map[string]string
	Attempt uint32
	// LogPath is relative to the sandbox's LogDirectory; default NAME/ATTEMPT.log.
	LogPath     string
	Labels      map[string]string
	Annotations map[string]string
}

// CreateContainer creates ctr in the sandbox podID that was run with podCfg,
// labelled as the kubelet would, and returns the container ID.
func (c *Client) CreateContainer(ctx context.Context, podID string, podCfg *runtimeapi.PodSandboxConfig, ctr Container) (string, error) {
	labels := map[string]string{
		LabelPodName:       podCfg.Metadata.Name,
		LabelPodNamespace:  podCfg.Metadata.Namespace,
		LabelPodUID:        podCfg.Metadata.Uid,
		LabelContainerName: ctr.Name,
	}
	for k, v := range ctr.Labels {
		labels[k] = v
	}
	annotations := map[string]string{AnnotationRestarts: strconv.FormatUint(uint64(ctr.Attempt), 10)}
	for k, v := range ctr.Annotations {
		annotations[k] = v
	}
	var env []*runtimeapi.KeyValue
	for _, k := range slices.Sorted(maps.Keys(ctr.Env)) {
		env = append(env, &runtimeapi.KeyValue{Key: k, Value: []byte(ctr.Env[k])})
	}
	logPath := ctr.LogPath
	if logPath == "" && podCfg.LogDirectory != "" {
		logPath = fmt.Sprintf("%s/%d.log", ctr.Name, ctr.Attempt)
	}
	cfg := &runtimeapi.ContainerConfig{
		Metadata:    &runtimeapi.ContainerMetadata{Name: ctr.Name, Attempt: ctr.Attempt},
		Image:       &runtimeapi.ImageSpec{Image: ctr.Image},
		Command:     ctr.Command,
		Args:        ctr.Args,
		Envs:        env,
		LogPath:     logPath,
		Labels:      labels,
		Annotations: annotations,
		Linux:       &runtimeapi.LinuxContainerConfig{SecurityContext: &runtimeapi.LinuxContainerSecurityContext{NamespaceOptions: podCfg.GetLinux().GetSecurityContext().GetNamespaceOptions()}},
	}
	resp, err := c.Runtime.CreateContainer(ctx, &runtimeapi.CreateContainerRequest{PodSandboxId: podID, Config: cfg, SandboxConfig: podCfg})
	if err != nil {
		return "", fmt.Errorf("creating container %s in sandbox %s: %w", ctr.Name, podID, err)
	}
	return resp.ContainerId, nil
}

// StartContainer starts a created container.
func (c *Client) StartContainer(ctx context.Context, id string) error {
	if _, err := c.Runtime.StartContainer(ctx, &runtimeapi.StartContainerRequest{ContainerId: id}); err != nil {
		return fmt.Errorf("starting container %s: %w", id, err)
	}
	return nil
}

// StopContainer stops a container, killing it after timeout.
func (c *Client) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	if _, err := c.Runtime.StopContainer(ctx, &runtimeapi.StopContainerRequest{ContainerId: id, Timeout: int64(timeout / time.Second)}); err != nil {
		return fmt.Errorf("stopping container %s: %w", id, err)
	}
	return nil
}

// RemoveContainer removes a container.
func (c *Client) RemoveContainer(ctx context.Context, id string) error {
	if _, err := c.Runtime.RemoveContainer(ctx, &runtimeapi.RemoveContainerRequest{ContainerId: id}); err != nil {
		return fmt.Errorf("removing container %s: %w", id, err)
	}
	return nil
}

// ListPods lists sandboxes; filter may be nil.
func (c *Client) ListPods(ctx context.Context, filter *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	resp, err := c.Runtime.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{Filter: filter})
	if err != nil {
		return nil, fmt.Errorf("listing sandboxes: %w", err)
	}
	return resp.Items, nil
}

// ListContainers lists containers; filter may be nil.
func (c *Client) ListContainers(ctx context.Context, filter *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	resp, err := c.Runtime.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: filter})
	if err != nil {
		return nil, fmt.Errorf("listing containers: %w", err)
	}
	return resp.Containers, nil
}

// ContainerStatus returns a container's status.
func (c *Client) ContainerStatus(ctx context.Context, id string) (*runtimeapi.ContainerStatus, error) {
	resp, err := c.Runtime.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: id})
	if err != nil {
		return nil, fmt.Errorf("status of container %s: %w", id, err)
	}
	return resp.Status, nil
}

// WaitExited polls the container's status until it has exited and returns
// its exit code; ctx bounds the wait.
func (c *Client) WaitExited(ctx context.Context, id string) (int32, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := c.ContainerStatus(ctx, id)
		if err != nil {
			return 0, err
		}
		if st.State == runtimeapi.ContainerState_CONTAINER_EXITED {
			return st.ExitCode, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for container %s to exit (state %v): %w", id, st.State, ctx.Err())
		case <-tick.C:
		}
	}
}

// Events streams the runtime's container events until ctx ends or the
// stream breaks (a runtime restart ends it with codes.Unavailable). The
// events channel is closed when the stream ends; the error channel then
// receives the reason (nil when ctx ended it).
func (c *Client) Events(ctx context.Context) (<-chan *runtimeapi.ContainerEventResponse, <-chan error, error) {
	stream, err := c.Runtime.GetContainerEvents(ctx, &runtimeapi.GetEventsRequest{})
	if err != nil {
		return nil, nil, fmt.Errorf("subscribing to container events: %w", err)
	}
	events := make(chan *runtimeapi.ContainerEventResponse, 256)
	errc := make(chan error, 1)
	go func() {
		defer close(events)
		for {
			ev, err := stream.Recv()
			if err != nil {
				if ctx.Err() != nil {
					err = nil
				}
				errc <- err
				return
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				errc <- nil
				return
			}
		}
	}()
	return events, errc, nil
}

// RemoveAll stops and removes every container and sandbox on the runtime.
func (c *Client) RemoveAll(ctx context.Context) error {
	var errs []error
	ctrs, err := c.ListContainers(ctx, nil)
	if err != nil {
		return err
	}
	for _, ct := range ctrs {
		errs = append(errs, c.StopContainer(ctx, ct.Id, 2*time.Second), c.RemoveContainer(ctx, ct.Id))
	}
	pods, err := c.ListPods(ctx, nil)
	if err != nil {
		return err
	}
	for _, p := range pods {
		errs = append(errs, c.StopPod(ctx, p.Id), c.RemovePod(ctx, p.Id))
	}
	return errors.Join(errs...)
}
