package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Node2 is the cluster's second node (hack/cluster.sh node2-up): its own
// network namespace, containerd and kubelet of an older minor, RKE2-like
// paths, and its runtime's state under a private mount.
type Node2 struct {
	// Name and IP identify the node; IP is reachable from the first
	// node's network namespace, not from the test's.
	Name string
	IP   string
	// StaticPodDir is its kubelet's staticPodPath.
	StaticPodDir string
	// CRIEndpoint is its containerd (unix:///...).
	CRIEndpoint string
	// KubeletVersion is its kubelet's version, such as v1.34.4.
	KubeletVersion string
	// KubeletLog is its kubelet's log file (-v=4).
	KubeletLog string
}

// node2Timeout bounds node2-up, which builds the older kubelet on first use.
const node2Timeout = 30 * time.Minute

// StartNode2 starts the second node and waits until it is Ready; the test's
// cleanup stops it and deletes its Node, so that later tests see one node.
// The agent images the first node's containerd holds are copied to the
// second's.
func (c *Cluster) StartNode2(t testing.TB) *Node2 {
	t.Helper()
	t.Cleanup(func() { c.StopNode2(t) })
	ctx, cancel := context.WithTimeout(context.Background(), node2Timeout)
	defer cancel()
	if out, err := run(ctx, c.script, "node2-up"); err != nil {
		t.Fatalf("starting the second node: %v\n%s", err, out)
	}
	env, err := readEnv(EnvFile())
	if err != nil {
		t.Fatalf("reading the cluster's env file: %v", err)
	}
	n, err := node2From(env)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// StopNode2 stops the second node, removes what it made and deletes its
// Node; without a second node it does nothing.
func (c *Cluster) StopNode2(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := run(ctx, c.script, "node2-down"); err != nil {
		t.Errorf("stopping the second node: %v\n%s", err, out)
	}
}

// node2From reads the second node from the env file's NODE2_ lines.
func node2From(env map[string]string) (*Node2, error) {
	n := &Node2{
		Name:           env["NODE2_NAME"],
		IP:             env["NODE2_IP"],
		StaticPodDir:   env["NODE2_STATIC_POD_DIR"],
		CRIEndpoint:    env["NODE2_CRI_ENDPOINT"],
		KubeletVersion: env["NODE2_KUBELET_VERSION"],
		KubeletLog:     env["NODE2_KUBELET_LOG"],
	}
	if n.Name == "" || n.StaticPodDir == "" || n.CRIEndpoint == "" {
		return nil, fmt.Errorf("the env file %s has no second node (NODE2_NAME, NODE2_STATIC_POD_DIR, NODE2_CRI_ENDPOINT)", EnvFile())
	}
	return n, nil
}
