// Command crireset stops and removes every pod sandbox and container on a CRI
// runtime, so that the runtime tears down pod networks and mounts before it
// is stopped. hack/cluster.sh runs it on `down`.
//
//	crireset -endpoint unix:///run/podsrc-cluster/containerd/containerd.sock
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func main() {
	endpoint := flag.String("endpoint", "", "CRI endpoint, unix:///path")
	timeout := flag.Duration("timeout", 60*time.Second, "overall time limit")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := reset(ctx, *endpoint); err != nil {
		fmt.Fprintf(os.Stderr, "crireset: %v\n", err)
		os.Exit(1)
	}
}

// reset removes all containers, then all sandboxes, from the runtime at
// endpoint.
func reset(ctx context.Context, endpoint string) error {
	if !strings.HasPrefix(endpoint, "unix://") {
		return fmt.Errorf("endpoint %q: want unix:///path", endpoint)
	}
	conn, err := grpc.NewClient("unix://"+strings.TrimPrefix(endpoint, "unix://"),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	defer conn.Close()
	rt := runtimeapi.NewRuntimeServiceClient(conn)

	cs, err := rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{})
	if err != nil {
		return fmt.Errorf("listing containers: %w", err)
	}
	var errs []string
	for _, c := range cs.Containers {
		if _, err := rt.StopContainer(ctx, &runtimeapi.StopContainerRequest{ContainerId: c.Id, Timeout: 2}); err != nil {
			errs = append(errs, fmt.Sprintf("stopping container %s: %v", c.Id, err))
		}
		if _, err := rt.RemoveContainer(ctx, &runtimeapi.RemoveContainerRequest{ContainerId: c.Id}); err != nil {
			errs = append(errs, fmt.Sprintf("removing container %s: %v", c.Id, err))
		}
	}
	ss, err := rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("listing sandboxes: %w", err)
	}
	for _, s := range ss.Items {
		if _, err := rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: s.Id}); err != nil {
			errs = append(errs, fmt.Sprintf("stopping sandbox %s: %v", s.Id, err))
		}
		if _, err := rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: s.Id}); err != nil {
			errs = append(errs, fmt.Sprintf("removing sandbox %s: %v", s.Id, err))
		}
	}
	fmt.Printf("crireset: removed %d containers, %d sandboxes\n", len(cs.Containers), len(ss.Items))
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
