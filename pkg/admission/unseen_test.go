package admission

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestWithUnseen judges pods that every reproduced handler admits (or
// refuses) with what the kubelet's configuration and host say, and
// expects unknown, naming what podsrc cannot see, wherever a handler
// podsrc does not reproduce could refuse the pod; admitted otherwise.
func TestWithUnseen(t *testing.T) {
	yes, no := true, false
	qos := func(p *v1.Pod) v1.PodQOSClass { return v1.PodQOSClass(p.Labels["qos"]) }
	guaranteed := func(cpu string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			p.Labels = map[string]string{"qos": string(v1.PodQOSGuaranteed)}
			p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}
		}
	}
	burstable := func(p *v1.Pod) { p.Labels = map[string]string{"qos": string(v1.PodQOSBurstable)} }
	gpu := func(p *v1.Pod) {
		p.Labels = map[string]string{"qos": string(v1.PodQOSBurstable)}
		p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Limits: v1.ResourceList{"example.com/gpu": resource.MustParse("1")}}}}
	}
	appArmor := func(p *v1.Pod) {
		p.Spec.SecurityContext = &v1.PodSecurityContext{AppArmorProfile: &v1.AppArmorProfile{Type: v1.AppArmorProfileTypeRuntimeDefault}}
	}
	appArmorAnnotation := func(p *v1.Pod) {
		p.Annotations = map[string]string{appArmorAnnotationPrefix + "c": "localhost/k8s-nginx"}
	}
	unconfined := func(p *v1.Pod) {
		p.Spec.SecurityContext = &v1.PodSecurityContext{AppArmorProfile: &v1.AppArmorProfile{Type: v1.AppArmorProfileTypeUnconfined}}
	}
	readyNode := &v1.Node{Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}}
	notReady := &v1.Node{Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse, Message: "node is shutting down"}}}}
	tests := []struct {
		name    string
		u       Unseen
		node    *v1.Node
		pod     *v1.Pod
		unknown string // a word of AdmitResult.Unknown; "" for none
		refused bool
	}{
		{"nothing unseen", Unseen{AppArmorEnabled: &yes}, readyNode, pod("p", 1, guaranteed("2")), "", false},
		{"static CPU policy, whole CPUs", Unseen{CPUManagerPolicy: "static", AppArmorEnabled: &yes}, readyNode, pod("p", 1, guaranteed("2")), "CPU manager (policy static)", false},
		{"static CPU policy, fractional CPUs share the pool", Unseen{CPUManagerPolicy: "static", AppArmorEnabled: &yes}, readyNode, pod("p", 1, guaranteed("1500m")), "", false},
		{"static CPU policy, Burstable", Unseen{CPUManagerPolicy: "static", AppArmorEnabled: &yes}, readyNode, pod("p", 1, burstable), "", false},
		{"none CPU policy", Unseen{CPUManagerPolicy: "none", MemoryManagerPolicy: "None", TopologyManagerPolicy: "none", AppArmorEnabled: &yes}, readyNode, pod("p", 1, guaranteed("2")), "", false},
		{"static memory policy, Guaranteed", Unseen{MemoryManagerPolicy: "Static", AppArmorEnabled: &yes}, readyNode, pod("p", 1, guaranteed("1500m")), "memory manager (policy Static)", false},
		{"topology policy, a device", Unseen{TopologyManagerPolicy: "single-numa-node", AppArmorEnabled: &yes}, readyNode, pod("p", 1, gpu), "topology manager (policy single-numa-node)", false},
		{"topology policy, Burstable", Unseen{TopologyManagerPolicy: "restricted", AppArmorEnabled: &yes}, readyNode, pod("p", 1, burstable), "", false},
		{"no kubelet config, Guaranteed", Unseen{NoKubeletConfig: true, AppArmorEnabled: &yes}, readyNode, pod("p", 1, guaranteed("1")), "configuration was not read", false},
		{"no kubelet config, Burstable", Unseen{NoKubeletConfig: true, AppArmorEnabled: &yes}, readyNode, pod("p", 1, burstable), "", false},
		{"AppArmor profile, host not read", Unseen{}, readyNode, pod("p", 1, burstable, appArmor), "could not read whether the host has AppArmor", false},
		{"AppArmor annotation, host disabled", Unseen{AppArmorEnabled: &no}, readyNode, pod("p", 1, burstable, appArmorAnnotation), "AppArmor disabled", false},
		{"AppArmor profile, host enabled", Unseen{AppArmorEnabled: &yes}, readyNode, pod("p", 1, burstable, appArmor), "", false},
		{"unconfined, host not read", Unseen{}, readyNode, pod("p", 1, burstable, unconfined), "", false},
		{"graceful shutdown, Node not Ready", Unseen{GracefulShutdown: true, AppArmorEnabled: &yes}, notReady, pod("p", 1, burstable), "node shutdown manager", false},
		{"graceful shutdown, Node Ready", Unseen{GracefulShutdown: true, AppArmorEnabled: &yes}, readyNode, pod("p", 1, burstable), "", false},
		{"no graceful shutdown, Node not Ready", Unseen{AppArmorEnabled: &yes}, notReady, pod("p", 1, burstable), "", false},
		{"refused by a reproduced handler stays refused", Unseen{CPUManagerPolicy: "static"}, readyNode, pod("p", 1, guaranteed("2"), refuse), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAdmitter(WithUnseen(&slots{n: 10}, tt.u, qos), nil)
			a.SetNode(tt.node)
			got := a.Add([]*v1.Pod{tt.pod})[0].Admission
			switch {
			case tt.refused:
				if !got.Rejected() {
					t.Errorf("got %+v, want refused", got)
				}
			case tt.unknown == "":
				if !reflect.DeepEqual(got, v1alpha1.Admission{Admitted: true}) {
					t.Errorf("got %+v, want admitted", got)
				}
			case got.Admitted || !strings.Contains(got.Unknown, tt.unknown):
				t.Errorf("got %+v, want unknown naming %q", got, tt.unknown)
			}
			if len(a.Active()) != map[bool]int{true: 0, false: 1}[tt.refused] {
				t.Errorf("active pods %v: an unknown pod holds room, a refused one none", names(a.Active()))
			}
		})
	}
}
