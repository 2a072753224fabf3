package cri_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	crierrors "k8s.io/cri-api/pkg/errors"

	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/cri/critest"
)

func startServer(t *testing.T) (*critest.Server, *cri.Client) {
	t.Helper()
	srv := critest.NewForTest(t)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	c, err := cri.Dial(srv.Endpoint(), cri.Options{CallTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, c
}

func TestClientCalls(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	sb := srv.RunSandbox("uid", "web", "default", "10.1.2.3")
	ctr := srv.CreateContainer(sb, "app")
	srv.StartContainer(ctr)

	v, err := c.Version(ctx)
	if err != nil || v.RuntimeName != "critest" {
		t.Fatalf("Version() = %v, %v", v, err)
	}
	sbs, err := c.ListPodSandbox(ctx, nil)
	if err != nil || len(sbs) != 1 || sbs[0].Id != sb {
		t.Fatalf("ListPodSandbox() = %v, %v", sbs, err)
	}
	cs, err := c.ListContainers(ctx, nil)
	if err != nil || len(cs) != 1 || cs[0].Labels[cri.LabelPodUID] != "uid" {
		t.Fatalf("ListContainers() = %v, %v", cs, err)
	}
	ss, err := c.PodSandboxStatus(ctx, sb)
	if err != nil || ss.Status.Network.Ip != "10.1.2.3" {
		t.Fatalf("PodSandboxStatus() = %v, %v", ss, err)
	}
	st, err := c.ContainerStatus(ctx, ctr)
	if err != nil || st.Status.StartedAt == 0 {
		t.Fatalf("ContainerStatus() = %v, %v", st, err)
	}
}

func TestClientErrors(t *testing.T) {
	tests := []struct {
		name         string
		setup        func(*critest.Server)
		call         func(context.Context, *cri.Client) error
		wantNotFound bool
		wantText     string
	}{
		{
			name:         "status of a removed container is not found",
			call:         func(ctx context.Context, c *cri.Client) error { _, err := c.ContainerStatus(ctx, "gone"); return err },
			wantNotFound: true,
			wantText:     "container status gone",
		},
		{
			name:         "status of a removed sandbox is not found",
			call:         func(ctx context.Context, c *cri.Client) error { _, err := c.PodSandboxStatus(ctx, "gone"); return err },
			wantNotFound: true,
			wantText:     "pod sandbox status gone",
		},
		{
			name:     "a hanging call is cut by the call timeout",
			setup:    func(s *critest.Server) { s.Hang(critest.MethodListContainers, true) },
			call:     func(ctx context.Context, c *cri.Client) error { _, err := c.ListContainers(ctx, nil); return err },
			wantText: "listing containers: no answer within 200ms",
		},
		{
			name:     "a runtime error is passed on",
			setup:    func(s *critest.Server) { s.Fail(critest.MethodListPodSandbox, status.Error(codes.Internal, "boom")) },
			call:     func(ctx context.Context, c *cri.Client) error { _, err := c.ListPodSandbox(ctx, nil); return err },
			wantText: "listing pod sandboxes: rpc error: code = Internal desc = boom",
		},
		{
			name:     "a stopped runtime fails at once",
			setup:    func(s *critest.Server) { s.Stop() },
			call:     func(ctx context.Context, c *cri.Client) error { _, err := c.ListPodSandbox(ctx, nil); return err },
			wantText: "code = Unavailable",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := startServer(t)
			if tt.setup != nil {
				tt.setup(srv)
			}
			start := time.Now()
			err := tt.call(context.Background(), c)
			if err == nil {
				t.Fatal("no error")
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Fatalf("the call took %v", elapsed)
			}
			if got := crierrors.IsNotFound(err); got != tt.wantNotFound {
				t.Fatalf("IsNotFound(%v) = %v", err, got)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("error %q does not contain %q", err, tt.wantText)
			}
		})
	}
}

func TestDialRejectsBadEndpoint(t *testing.T) {
	if _, err := cri.Dial("tcp://127.0.0.1:1", cri.Options{}); err == nil {
		t.Fatal("Dial accepted a tcp endpoint")
	}
}
