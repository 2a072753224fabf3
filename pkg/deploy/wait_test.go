package deploy

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestNotReadyReason checks what deploy --wait says of an agent that is not
// ready.
func TestNotReadyReason(t *testing.T) {
	const image = "registry.example/podsrc-agent:v1"
	pod := func(img string, mutate func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "podsrc-agent-x", Namespace: "podsrc-system"},
			Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: agentContainer, Image: img}}},
		}
		mutate(p)
		return p
	}
	waiting := func(reason, msg string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: agentContainer, RestartCount: 4, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}
		}
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{"no pod", nil, []string{"no agent pod yet"}},
		{"unschedulable", pod(image, func(p *corev1.Pod) {
			p.Spec.NodeName = ""
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/1 nodes are available: 1 Insufficient memory."}}
		}), []string{"unschedulable", "Insufficient memory"}},
		{"image pull", pod(image, waiting("ImagePullBackOff", `Back-off pulling image "registry.example/podsrc-agent:v1"`)), []string{"cannot pull image " + image, "ImagePullBackOff"}},
		{"crash loop", pod(image, waiting("CrashLoopBackOff", "back-off 40s")), []string{"crash loop (4 restarts)", "last log line: fake logs"}},
		{"old image", pod("registry.example/podsrc-agent:v0", func(*corev1.Pod) {}), []string{"previous image"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset()
			if tc.pod != nil {
				if _, err := cs.CoreV1().Pods(tc.pod.Namespace).Create(context.Background(), tc.pod, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			c := &Cluster{Client: cs}
			got := c.notReadyReason(context.Background(), Rollout{Namespace: "podsrc-system", Images: map[string]string{"n1": image}, AgentPort: 10270}, "n1", tc.pod)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("reason %q does not say %q", got, w)
				}
			}
		})
	}
}

func TestRolledOut(t *testing.T) {
	ds := func(gen, observed int64, desired, updated, available int32) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Generation: gen},
			Status:     appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: desired, UpdatedNumberScheduled: updated, NumberAvailable: available},
		}
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want bool
	}{
		{"done", ds(2, 2, 3, 3, 3), true},
		{"the controller has not seen the new spec", ds(3, 2, 3, 3, 3), false},
		{"not every pod updated", ds(2, 2, 3, 2, 3), false},
		{"not every pod available", ds(2, 2, 3, 3, 2), false},
	}
	for _, tc := range tests {
		if got := rolledOut(tc.ds); got != tc.want {
			t.Errorf("%s: rolledOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}
