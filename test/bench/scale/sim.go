//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// sim is a simulated cluster of nodes: Node objects in the real API server,
// their addresses in the cluster's network namespace, one agent each.
type sim struct {
	run      string
	names    []string
	selector string
	cs       kubernetes.Interface
	nw       *network
	agents   *agents
}

// startSim sets up n simulated nodes with podsPerNode pods each; nsPath is
// the network namespace the API server runs in. On error it cleans up.
func startSim(ctx context.Context, cs kubernetes.Interface, nsPath string, n, podsPerNode int) (s *sim, err error) {
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	s = &sim{run: run, selector: LabelKey + "=" + run, cs: cs}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.close(context.WithoutCancel(ctx)))
		}
	}()
	// A run killed before its cleanup leaves its nodes, interface and
	// route; the shared lock makes them stale, not another run's.
	if err := deleteNodes(ctx, cs, "", time.Minute); err != nil {
		return s, fmt.Errorf("removing a previous run's nodes: %w", err)
	}
	if err := (&network{nsPath: nsPath}).teardown(ctx); err != nil {
		return s, fmt.Errorf("removing a previous run's addresses: %w", err)
	}
	if s.nw, err = setupNetwork(ctx, nsPath, n); err != nil {
		return s, err
	}
	lis, err := s.nw.listen(v1alpha1.DefaultAgentPort)
	if err != nil {
		return s, err
	}
	nodes := make([]*corev1.Node, n)
	for i := range nodes {
		s.names = append(s.names, nodeName(i))
		nodes[i] = simulatedNode(s.names[i], run, s.nw.addrs[i], kubeletVersion)
	}
	if s.agents, err = startAgents(ctx, s.names, lis, podsPerNode); err != nil {
		for _, l := range lis {
			_ = l.Close()
		}
		return s, err
	}
	if err := createNodes(ctx, cs, nodes, 16); err != nil {
		return s, err
	}
	return s, nil
}

// close deletes the nodes, stops the agents and removes the addresses and
// the guard route, whatever part of them exists.
func (s *sim) close(ctx context.Context) error {
	var errs []error
	if len(s.names) > 0 {
		errs = append(errs, deleteNodes(ctx, s.cs, s.run, time.Minute))
	}
	if s.agents != nil {
		errs = append(errs, s.agents.stop())
	}
	if s.nw != nil {
		errs = append(errs, s.nw.teardown(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cleaning up the simulated nodes: %w", err)
	}
	return nil
}
