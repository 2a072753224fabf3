package admissiontrace

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Scenarios are the inputs the recorder runs through every minor, beside
// those of the shared v1.36 traces: the cases issue 31 asks for.
func Scenarios() []Scenario {
	taint := func(n *v1.Node) {
		n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoExecute}}
	}
	gpus := func(n *v1.Node) {
		n.Status.Capacity["example.com/gpu"] = resource.MustParse("1")
		n.Status.Allocatable["example.com/gpu"] = resource.MustParse("1")
	}
	affinity := func(value string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "disk", Operator: v1.NodeSelectorOpIn, Values: []string{value}}}}},
			}}}
		}
	}
	sameTime := make([]*v1.Pod, 0, 15)
	for i := range 15 {
		j := i * 7 % 15
		sameTime = append(sameTime, apiPod(fmt.Sprintf("p%02d", j), 1+j%3, requests("cpu", "100m")))
	}
	// The scenarios need no node feature, so they leave the declared
	// features handler out, as the traces with no nodeFeatures do.
	all := slices.DeleteFunc(slices.Clone(v1alpha1.AdmitHandlers), func(h string) bool { return h == v1alpha1.AdmitHandlerDeclaredFeatures })
	return []Scenario{
		{Name: "out-of-ephemeral-storage", Description: "a pod asking for more ephemeral storage than allocatable", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("scratch", 1, requests("ephemeral-storage", "30Gi"))}}},
		{Name: "out-of-cpu-and-memory", Description: "a pod short of cpu and memory: the first insufficient resource decides", Handlers: all, Node: node("1", "1Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("big", 1, requests("cpu", "2", "memory", "2Gi"))}}},
		{Name: "init-container-request", Description: "an init container asks for more cpu than the containers together", Handlers: all, Node: node("1", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("init", 1, requests("cpu", "100m"), initRequests("cpu", "1500m"))}}},
		{Name: "extended-resource", Description: "two pods ask for the node's one example.com/gpu", Handlers: all, Node: node("2", "4Gi", "110", gpus),
			Steps: [][]*v1.Pod{{apiPod("gpu-a", 1, requests("example.com/gpu", "1"), limits("example.com/gpu", "1"))}, {apiPod("gpu-b", 2, requests("example.com/gpu", "1"), limits("example.com/gpu", "1"))}}},
		{Name: "extended-resource-not-on-node", Description: "a pod asks for an extended resource the node does not have: the kubelet drops the request", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("fpga", 1, requests("example.com/fpga", "1"), limits("example.com/fpga", "1"))}}},
		{Name: "node-name", Description: "a pod bound to another node", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("elsewhere", 1, func(p *v1.Pod) { p.Spec.NodeName = "node-b" })}}},
		{Name: "required-node-affinity", Description: "a pod whose required node affinity the node does not match, and one whose it does", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("hdd", 1, affinity("hdd")), apiPod("ssd", 2, affinity("ssd"))}}},
		{Name: "os-label", Description: "a pod labelled for another OS than the node's", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("win", 1, func(p *v1.Pod) { p.Labels = map[string]string{v1.LabelOSStable: "windows"} })}}},
		{Name: "os-field", Description: "a pod whose spec.os names another OS than the node's", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("win", 1, func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Windows} })}}},
		{Name: "noexecute-taint-api-pod", Description: "an API pod that does not tolerate the node's NoExecute taint, and one that does", Handlers: all, Node: node("2", "4Gi", "110", taint),
			Steps: [][]*v1.Pod{{apiPod("intolerant", 1), apiPod("tolerant", 2, func(p *v1.Pod) {
				p.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "db", Effect: v1.TaintEffectNoExecute}}
			})}}},
		{Name: "noexecute-taint-static-pod", Description: "a static pod on a node with a NoExecute taint it does not tolerate", Handlers: all, Node: node("2", "4Gi", "110", taint),
			Steps: [][]*v1.Pod{{staticPod("etcd", 1)}}},
		{Name: "critical-static-cannot-preempt", Description: "a static pod that does not fit, and only another static pod to preempt", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{staticPod("apiserver", 1, requests("cpu", "1500m"))}, {staticPod("etcd", 2, requests("cpu", "1"))}}},
		{Name: "critical-static-preempts-several", Description: "a static pod that needs cpu and memory makes the kubelet preempt several pods of several QoS classes", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{
				{apiPod("besteffort", 1), apiPod("small", 2, requests("cpu", "300m", "memory", "1Gi")), apiPod("guaranteed", 3, requests("cpu", "700m", "memory", "1Gi"), limits("cpu", "700m", "memory", "1Gi")), apiPod("large", 4, requests("cpu", "800m", "memory", "512Mi"))},
				{staticPod("etcd", 5, requests("cpu", "1200m", "memory", "2Gi"))},
			}},
		{Name: "critical-priority-preempts", Description: "an API pod of system-node-critical priority preempts a pod of no priority", Handlers: all, Node: node("1", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("batch", 1, requests("cpu", "800m"))}, {apiPod("dns", 2, requests("cpu", "500m"), func(p *v1.Pod) {
				p.Spec.PriorityClassName = "system-node-critical"
				p.Spec.Priority = ptr.To[int32](2000001000)
			})}}},
		{Name: "terminal-leaves-active-set", Description: "an admitted pod added again once Succeeded no longer holds room", Handlers: all, Node: node("1", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("job", 1, requests("cpu", "600m"))}, {apiPod("job", 1, requests("cpu", "600m"), phase(v1.PodSucceeded))}, {apiPod("next", 2, requests("cpu", "600m"))}}},
		{Name: "failed-in-one-add", Description: "a Failed pod among others in one notification is skipped and holds no room", Handlers: all, Node: node("1", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("later", 3, requests("cpu", "600m")), apiPod("failed", 1, requests("cpu", "600m"), phase(v1.PodFailed)), apiPod("first", 2, requests("cpu", "300m"))}}},
		{Name: "mirror-pod-skipped", Description: "a mirror pod is not taken to admission and holds no room", Handlers: all, Node: node("1", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("etcd-node-a", 1, requests("cpu", "800m"), func(p *v1.Pod) { p.Annotations["kubernetes.io/config.mirror"] = "0123456789abcdef" })}, {apiPod("web", 2, requests("cpu", "800m"))}}},
		{Name: "same-creation-time", Description: "fifteen pods created in three seconds, sent out of order in one notification to a node that holds ten", Handlers: all, Node: node("4", "4Gi", "10"),
			Steps: [][]*v1.Pod{sameTime}},
		{Name: "safe-and-prefixed-sysctls", Description: "a safe sysctl, and an unsafe one the kubelet allows by prefix", Handlers: all, Node: node("2", "4Gi", "110"), AllowedUnsafeSysctls: []string{"kernel.msg*"},
			Steps: [][]*v1.Pod{{apiPod("ports", 1, sysctls("net.ipv4.ip_local_port_range")), apiPod("msg", 2, sysctls("kernel.msgmax"))}}},
		{Name: "handlers-subset", Description: "only the predicates are chained: a forbidden sysctl passes", Handlers: []string{v1alpha1.AdmitHandlerPredicate}, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("msg", 1, sysctls("kernel.msgmax"))}}},
		{Name: "no-node", Description: "the kubelet cannot get its node", Handlers: all,
			Steps: [][]*v1.Pod{{apiPod("web", 1)}}},
		{Name: "host-port-other-protocol", Description: "two pods on one host port, one over TCP and one over UDP", Handlers: all, Node: node("2", "4Gi", "110"),
			Steps: [][]*v1.Pod{{apiPod("tcp", 1, hostPort(8080, v1.ProtocolTCP))}, {apiPod("udp", 2, hostPort(8080, v1.ProtocolUDP))}, {apiPod("tcp-again", 3, hostPort(8080, v1.ProtocolTCP))}}},
	}
}

// node is node-a as the shared traces have it, with the cpu, memory and
// pods given as capacity and allocatable.
func node(cpu, memory, pods string, mutate ...func(*v1.Node)) *v1.Node {
	list := func() v1.ResourceList {
		return v1.ResourceList{
			v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(memory),
			v1.ResourcePods: resource.MustParse(pods), v1.ResourceEphemeralStorage: resource.MustParse("20Gi"),
		}
	}
	n := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{
			"disk": "ssd", "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": "node-a", "kubernetes.io/os": "linux",
		}},
		Status: v1.NodeStatus{Capacity: list(), Allocatable: list()},
	}
	for _, m := range mutate {
		m(n)
	}
	return n
}

// apiPod is a pod from the API server, bound to node-a, created the given
// second of 2026.
func apiPod(name string, second int, mutate ...func(*v1.Pod)) *v1.Pod {
	return newPod(name, second, v1alpha1.SourceAPI, mutate)
}

// staticPod is a pod from a manifest file.
func staticPod(name string, second int, mutate ...func(*v1.Pod)) *v1.Pod {
	return newPod(name, second, v1alpha1.SourceFile, mutate)
}

func newPod(name string, second int, source string, mutate []func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, second, 0, time.UTC)),
			Annotations:       map[string]string{"kubernetes.io/config.source": source},
		},
		Spec: v1.PodSpec{NodeName: "node-a", Containers: []v1.Container{{Name: "c", Image: "registry.example/app:1"}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// requests sets the container's requests, given as name, quantity pairs.
func requests(pairs ...string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Containers[0].Resources.Requests = resourceList(pairs) }
}

// limits sets the container's limits, given as name, quantity pairs.
func limits(pairs ...string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Containers[0].Resources.Limits = resourceList(pairs) }
}

// initRequests adds an init container with these requests.
func initRequests(pairs ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.InitContainers = []v1.Container{{Name: "init", Image: "registry.example/app:1", Resources: v1.ResourceRequirements{Requests: resourceList(pairs)}}}
	}
}

func resourceList(pairs []string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

func phase(ph v1.PodPhase) func(*v1.Pod) { return func(p *v1.Pod) { p.Status.Phase = ph } }

func sysctls(names ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.SecurityContext = &v1.PodSecurityContext{}
		for _, n := range names {
			p.Spec.SecurityContext.Sysctls = append(p.Spec.SecurityContext.Sysctls, v1.Sysctl{Name: n, Value: "1"})
		}
	}
}

func hostPort(port int32, protocol v1.Protocol) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: protocol}}
	}
}
