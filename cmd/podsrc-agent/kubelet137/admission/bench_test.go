package admission

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	admit "github.com/podsrc/podsrc/pkg/admission"
)

// BenchmarkAdmitOneAdd measures the admission of one ADD of one pod on a
// node that already has n active pods, through kubelet v1.37's handlers.
// Each iteration admits a new pod and removes it again, so the active
// pods stay at n.
func BenchmarkAdmitOneAdd(b *testing.B) {
	for _, n := range []int{110, 5000} {
		b.Run(fmt.Sprintf("active=%d", n), func(b *testing.B) {
			h, err := New(b.Context(), admit.Config{})
			if err != nil {
				b.Fatal(err)
			}
			a := admit.NewAdmitter(h, nil)
			a.SetNode(benchNode(n + 1))
			for i := range n {
				a.Add([]*v1.Pod{benchPod(i)})
			}
			if got := len(a.Active()); got != n {
				b.Fatalf("%d active pods, want %d", got, n)
			}
			pod := []*v1.Pod{benchPod(n)}
			b.ReportAllocs()
			for b.Loop() {
				if r := a.Add(pod); !r[0].Admission.Admitted {
					b.Fatalf("not admitted: %+v", r[0].Admission)
				}
				a.Remove(pod[0].UID)
			}
		})
	}
}

func benchNode(pods int) *v1.Node {
	list := v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("100000"), v1.ResourceMemory: resource.MustParse("100Ti"),
		v1.ResourcePods: *resource.NewQuantity(int64(pods), resource.DecimalSI), v1.ResourceEphemeralStorage: resource.MustParse("20Ti"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/hostname": "node-a"}},
		Status:     v1.NodeStatus{Capacity: list, Allocatable: list},
	}
}

// benchPod is an API pod of two containers with requests, one with a host
// port, as a node's pods commonly are.
func benchPod(i int) *v1.Pod {
	req := v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("128Mi")}}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("pod-%d", i), Namespace: "default", UID: types.UID(fmt.Sprintf("uid-%d", i)),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)),
			Annotations:       map[string]string{"kubernetes.io/config.source": "api"},
			Labels:            map[string]string{"app": fmt.Sprintf("app-%d", i%20)},
		},
		Spec: v1.PodSpec{NodeName: "node-a", Containers: []v1.Container{
			{Name: "app", Image: "registry.example/app:1", Resources: req, Ports: []v1.ContainerPort{{ContainerPort: 8080, HostPort: int32(10000 + i), Protocol: v1.ProtocolTCP}}},
			{Name: "sidecar", Image: "registry.example/sidecar:1", Resources: req},
		}},
	}
}
