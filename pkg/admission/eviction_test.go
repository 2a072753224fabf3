package admission

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestEvictionAdmitFunc judges pods under the pressure a Node's conditions
// show, with a pod class that reads the pod's labels.
func TestEvictionAdmitFunc(t *testing.T) {
	f := EvictionAdmitFunc(PodClass{
		IsCritical: func(p *v1.Pod) bool { return p.Labels["critical"] != "" },
		QOS: func(p *v1.Pod) v1.PodQOSClass {
			if p.Labels["qos"] != "" {
				return v1.PodQOSClass(p.Labels["qos"])
			}
			return v1.PodQOSBestEffort
		},
		ToleratesMemoryPressure: func(p *v1.Pod) bool { return p.Labels["tolerates"] != "" },
	})
	labelled := func(kv ...string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			p.Labels = map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				p.Labels[kv[i]] = kv[i+1]
			}
		}
	}
	node := func(conditions ...v1.NodeCondition) *v1.Node {
		return &v1.Node{Status: v1.NodeStatus{Conditions: conditions}}
	}
	is := func(t v1.NodeConditionType, s v1.ConditionStatus) v1.NodeCondition {
		return v1.NodeCondition{Type: t, Status: s}
	}
	memory, disk, pid := is(v1.NodeMemoryPressure, v1.ConditionTrue), is(v1.NodeDiskPressure, v1.ConditionTrue), is(v1.NodePIDPressure, v1.ConditionTrue)
	tests := []struct {
		name    string
		node    *v1.Node
		pod     *v1.Pod
		admit   bool
		message string
	}{
		{"no node", nil, pod("p", 1), true, ""},
		{"no pressure", node(is(v1.NodeMemoryPressure, v1.ConditionFalse), is(v1.NodeReady, v1.ConditionTrue)), pod("p", 1), true, ""},
		{"memory pressure, BestEffort", node(memory), pod("p", 1), false, "The node had condition: [MemoryPressure]. "},
		{"memory pressure, Burstable", node(memory), pod("p", 1, labelled("qos", "Burstable")), true, ""},
		{"memory pressure, tolerated", node(memory), pod("p", 1, labelled("tolerates", "yes")), true, ""},
		{"memory pressure, critical", node(memory), pod("p", 1, labelled("critical", "yes")), true, ""},
		{"disk pressure, Guaranteed", node(disk), pod("p", 1, labelled("qos", "Guaranteed")), false, "The node had condition: [DiskPressure]. "},
		{"disk pressure, critical", node(disk), pod("p", 1, labelled("critical", "yes")), true, ""},
		{"PID pressure", node(pid), pod("p", 1, labelled("qos", "Burstable")), false, "The node had condition: [PIDPressure]. "},
		{"memory and disk pressure, Burstable, in the setters' order", node(disk, memory), pod("p", 1, labelled("qos", "Burstable")), false, "The node had condition: [MemoryPressure DiskPressure]. "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			admit, reason, message := f(AdmitAttributes{Node: tt.node, Pod: tt.pod})
			wantReason := ""
			if !tt.admit {
				wantReason = EvictedReason
			}
			if admit != tt.admit || reason != wantReason || message != tt.message {
				t.Errorf("got %v %q %q, want %v %q %q", admit, reason, message, tt.admit, wantReason, tt.message)
			}
		})
	}
}
