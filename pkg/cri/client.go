package cri

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// DefaultCallTimeout bounds every CRI call when Options.CallTimeout is zero.
// It is much shorter than the kubelet's two-minute runtime request timeout:
// podsrc prefers to report a hanging runtime over waiting on it.
const DefaultCallTimeout = 10 * time.Second

// DefaultMaxMessageSize is the largest answer accepted when
// Options.MaxMessageSize is zero (the kubelet's limit as well).
const DefaultMaxMessageSize = 16 << 20

// Options configure a Client. The zero value is usable.
type Options struct {
	// CallTimeout bounds each call; DefaultCallTimeout when zero.
	CallTimeout time.Duration
	// MaxMessageSize bounds the size of one answer; DefaultMaxMessageSize
	// when zero.
	MaxMessageSize int
	// ReconnectMaxDelay caps the gRPC reconnection backoff once the runtime
	// went away; one second when zero, so that a restarted runtime is seen
	// again quickly.
	ReconnectMaxDelay time.Duration
}

// Client is a CRI runtime service client on a unix socket. It implements
// Runtime. The connection is made lazily and re-made by gRPC after the
// runtime restarts; a call made while the runtime is away fails at once.
type Client struct {
	timeout time.Duration
	conn    *grpc.ClientConn
	rs      runtimeapi.RuntimeServiceClient
}

var _ Runtime = (*Client)(nil)

// Dial prepares a client for endpoint ("unix:///path" or "/path"). It does not
// wait for the runtime: a missing socket shows as errors of the calls.
func Dial(endpoint string, opts Options) (*Client, error) {
	path, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = DefaultMaxMessageSize
	}
	if opts.ReconnectMaxDelay <= 0 {
		opts.ReconnectMaxDelay = time.Second
	}
	bo := backoff.DefaultConfig
	bo.BaseDelay = 100 * time.Millisecond
	bo.MaxDelay = opts.ReconnectMaxDelay
	conn, err := grpc.NewClient("unix://"+path,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(opts.MaxMessageSize)),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bo, MinConnectTimeout: opts.CallTimeout}),
	)
	if err != nil {
		return nil, fmt.Errorf("creating CRI client for %s: %w", endpoint, err)
	}
	return &Client{
		timeout: opts.CallTimeout,
		conn:    conn,
		rs:      runtimeapi.NewRuntimeServiceClient(conn),
	}, nil
}

// Close releases the connection.
func (c *Client) Close() error { return c.conn.Close() }

// wrap names the call in err, and says so when the call timed out.
func (c *Client) wrap(what string, err error) error {
	if status.Code(err) == codes.DeadlineExceeded {
		return fmt.Errorf("%s: no answer within %v: %w", what, c.timeout, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Version asks the runtime for its name and version.
func (c *Client) Version(ctx context.Context) (*runtimeapi.VersionResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.rs.Version(ctx, &runtimeapi.VersionRequest{})
	if err != nil {
		return nil, c.wrap("runtime version", err)
	}
	return resp, nil
}

// ListPodSandbox implements Runtime.
func (c *Client) ListPodSandbox(ctx context.Context, filter *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.rs.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{Filter: filter})
	if err != nil {
		return nil, c.wrap("listing pod sandboxes", err)
	}
	return resp.Items, nil
}

// ListContainers implements Runtime.
func (c *Client) ListContainers(ctx context.Context, filter *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.rs.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: filter})
	if err != nil {
		return nil, c.wrap("listing containers", err)
	}
	return resp.Containers, nil
}

// PodSandboxStatus implements Runtime. Like the kubelet's client it rejects a
// status that lacks required fields.
func (c *Client) PodSandboxStatus(ctx context.Context, sandboxID string) (*runtimeapi.PodSandboxStatusResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.rs.PodSandboxStatus(ctx, &runtimeapi.PodSandboxStatusRequest{PodSandboxId: sandboxID})
	if err != nil {
		return nil, c.wrap("pod sandbox status "+sandboxID, err)
	}
	if resp.Status != nil {
		if err := verifySandboxStatus(resp.Status); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// ContainerStatus implements Runtime. Like the kubelet's client it rejects a
// status that lacks required fields.
func (c *Client) ContainerStatus(ctx context.Context, containerID string) (*runtimeapi.ContainerStatusResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.rs.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: containerID})
	if err != nil {
		return nil, c.wrap("container status "+containerID, err)
	}
	if resp.Status != nil {
		if err := verifyContainerStatus(resp.Status); err != nil {
			return nil, err
		}
	}
	return resp, nil
}
