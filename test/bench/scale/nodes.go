//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// LabelKey marks the simulated Node objects; its value is the run's, so
// that `kubectl delete nodes -l podsrc.test/scale` removes any run's.
const LabelKey = "podsrc.test/scale"

// nodeName is the name of the i-th simulated node.
func nodeName(i int) string { return fmt.Sprintf("podsrc-scale-%03d", i) }

// simulatedNode is a Node as the API server would hold it for a node whose
// kubelet never posted status: the node lifecycle controller's own
// conditions (Unknown, NodeStatusNeverUpdated) and unreachable taints are
// there from the start, so the controller has nothing to write when its
// startup grace period ends, and our own NoSchedule and NoExecute taints
// keep every pod off it, even pods that tolerate the unreachable ones.
func simulatedNode(name, run string, addr netip.Addr, kubeletVersion string) *corev1.Node {
	now := metav1.Now()
	var conds []corev1.NodeCondition
	for _, t := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		conds = append(conds, corev1.NodeCondition{Type: t, Status: corev1.ConditionUnknown, Reason: "NodeStatusNeverUpdated",
			Message: "Kubelet never posted node status.", LastHeartbeatTime: now, LastTransitionTime: now})
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelKey: run, corev1.LabelHostname: name}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{
			{Key: LabelKey, Value: run, Effect: corev1.TaintEffectNoSchedule},
			{Key: LabelKey, Value: run, Effect: corev1.TaintEffectNoExecute},
			{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
			{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &now},
		}},
		Status: corev1.NodeStatus{
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: addr.String()}, {Type: corev1.NodeHostName, Address: name}},
			Conditions: conds,
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: kubeletVersion, OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
}

// createNodes creates the Node objects, workers at a time.
func createNodes(ctx context.Context, cs kubernetes.Interface, nodes []*corev1.Node, workers int) error {
	work := make(chan *corev1.Node)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for n := range work {
				if errs[w] != nil {
					continue
				}
				if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
					errs[w] = fmt.Errorf("creating node %s: %w", n.Name, err)
				}
			}
		})
	}
	for _, n := range nodes {
		work <- n
	}
	close(work)
	wg.Wait()
	return errors.Join(errs...)
}

// deleteNodes deletes every Node labelled for run (any run when run is
// empty) and waits, bounded, until none is listed.
func deleteNodes(ctx context.Context, cs kubernetes.Interface, run string, limit time.Duration) error {
	sel := LabelKey
	if run != "" {
		sel = LabelKey + "=" + run
	}
	err := cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the nodes -l %s: %w", sel, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		l, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the limit
		}
		return len(l.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("nodes -l %s still listed after %s: %w", sel, limit, err)
	}
	return nil
}
