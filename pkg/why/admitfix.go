package why

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/podsrc/podsrc/internal/shell"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletsemantics"
)

// The kubelet's admission reasons that admitFix knows by name (its
// lifecycle, sysctl, eviction and node shutdown packages set them); a
// resource's is outOfPrefix followed by its name.
const (
	outOfPrefix              = "OutOf"
	reasonNodePorts          = "NodePorts"
	reasonNodeAffinity       = "NodeAffinity"
	reasonNodeName           = "NodeName"
	reasonTaints             = "TaintToleration"
	reasonSysctl             = "SysctlForbidden"
	reasonPodFeatures        = "PodFeatureUnsupported"
	reasonPodLevelResources  = "PodLevelResourcesNotSupported"
	reasonSupplementalGroups = "SupplementalGroupsPolicyNotSupported"
	reasonOSSelector         = "PodOSSelectorNodeLabelDoesNotMatch"
	reasonOS                 = "PodOSNotSupported"
	reasonAppArmor           = "AppArmor"
	reasonInitRestartPolicy  = "InitContainerRestartPolicyForbidden"
	reasonEvicted            = "Evicted"
	reasonNodeShutdown       = "NodeShutdown"
	reasonUnexpected         = "UnexpectedAdmissionError"
)

// maxNamed bounds the pods a fix names.
const maxNamed = 5

// admitFix is what to change for the kubelet to admit the pod, from the
// reason its admission gave.
func (a *analysis) admitFix(v *v1alpha1.Admission) string {
	node := shell.Quote(a.f.Node)
	pod := a.fullPod()
	switch r := v.Reason; {
	case r == outOfPrefix+string(corev1.ResourcePods):
		return "the node runs as many pods as the kubelet's maxPods allows: delete one of the pods admitted before it (" + a.holders() + "), or raise maxPods in the kubelet's configuration on node " + node
	case strings.HasPrefix(r, outOfPrefix):
		res := corev1.ResourceName(strings.TrimPrefix(r, outOfPrefix))
		fix := "free " + shell.Quote(string(res)) + " on node " + node + ": the pods admitted before it hold it (" + a.holders() + "); or lower the pod's request"
		if q, ok := podRequest(pod, res, a.podLevelResources()); ok {
			fix += " (it asks for " + q.String() + ")"
		}
		return fix
	case r == reasonNodePorts:
		return a.portsFix(pod)
	case r == reasonNodeAffinity:
		return a.affinityFix(pod)
	case r == reasonNodeName:
		return "set the pod's spec.nodeName to " + node + ", or leave it empty for the scheduler"
	case r == reasonTaints:
		return a.taintsFix(pod)
	case r == reasonSysctl:
		fix := "allow the sysctl in the kubelet's --allowed-unsafe-sysctls (allowedUnsafeSysctls in its configuration) on node " + node + ", or remove it from the pod's spec.securityContext.sysctls"
		if pod != nil && pod.Spec.SecurityContext != nil && len(pod.Spec.SecurityContext.Sysctls) > 0 {
			names := make([]string, len(pod.Spec.SecurityContext.Sysctls))
			for i, s := range pod.Spec.SecurityContext.Sysctls {
				names[i] = shell.Quote(s.Name)
			}
			fix += " (the pod sets " + strings.Join(names, ", ") + ")"
		}
		return fix
	case r == reasonPodFeatures:
		return "node " + node + " lacks a feature the pod needs (the kubelet's message names it): run the pod on a node whose kubelet declares it, or drop the feature from the pod"
	case r == reasonPodLevelResources:
		return "node " + node + "'s kubelet does not support pod-level resources: remove spec.resources from the pod, or upgrade the kubelet or enable its PodLevelResources feature gate"
	case r == reasonSupplementalGroups:
		return "node " + node + "'s container runtime does not support supplementalGroupsPolicy Strict: set it to Merge, or run the pod on a node whose runtime supports it"
	case r == reasonOSSelector, r == reasonOS:
		return "node " + node + " runs another operating system: set the pod's spec.os and its kubernetes.io/os label to the node's (kubectl get node --show-labels " + shell.Operands(a.f.Node) + ")"
	case r == reasonAppArmor:
		return "node " + node + " cannot enforce the pod's AppArmor profile: load the profile on the node, or change the pod's appArmorProfile"
	case r == reasonInitRestartPolicy:
		return "node " + node + "'s kubelet does not allow an init container's restartPolicy: remove it, or upgrade the kubelet"
	case r == reasonEvicted:
		return "node " + node + " is under resource pressure: free memory, disk or PIDs on it (kubectl describe node " + shell.Operands(a.f.Node) + " shows its conditions)"
	case r == reasonNodeShutdown:
		return "node " + node + " is shutting down: wait until it is back"
	case r == reasonUnexpected:
		return "a resource manager of the kubelet (device, CPU, memory or topology) refused the pod: free the devices or CPUs it needs, or lower its request; the kubelet's log says which"
	}
	return "remove the cause the kubelet's message names"
}

// fullPod is the pod's full spec: the API server's (a static pod's mirror),
// else the agent's projection; nil when neither is known.
func (a *analysis) fullPod() *corev1.Pod {
	if a.f.APIPod.Known() && a.f.APIPod.Value != nil {
		return a.f.APIPod.Value
	}
	return a.detailPod()
}

// holders names the pods the kubelet admitted on the node before the
// subject (its active pods, which hold its resources), or says how to list
// them.
func (a *analysis) holders() string {
	var names []string
	for _, p := range a.f.Pods {
		if p.UID == a.f.Subject.Info.UID || p.Mirror || p.Admission == nil || !p.Admission.Admitted || p.Runtime == nil {
			continue
		}
		names = append(names, shell.Quote(p.Namespace+"/"+p.Name))
	}
	list := "kubectl podsrc pods " + shell.Operands(a.f.Node) + " lists them"
	switch {
	case len(names) == 0:
		return list
	case len(names) > maxNamed:
		return strings.Join(names[:maxNamed], ", ") + fmt.Sprintf(" and %d more; ", len(names)-maxNamed) + list
	}
	return strings.Join(names, ", ")
}

// podRequest is the pod's request of res as the kubelet counts it on
// admission: its pod-level request when set and podLevel (the kubelet's
// PodLevelResources gate is on), else the larger of its containers' and
// sidecars' sum and each init container's with the sidecars started before
// it, plus the pod's overhead.
func podRequest(pod *corev1.Pod, res corev1.ResourceName, podLevel bool) (resource.Quantity, bool) {
	if pod == nil {
		return resource.Quantity{}, false
	}
	q, ok := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{SkipPodLevelResources: !podLevel})[res]
	return q, ok
}

// podLevelResources says whether the node's kubelet counts pod-level
// requests on admission (kubeletsemantics): by the Node's kubelet version,
// else by the version the agent reproduces; true, as the newest minors do,
// when neither is a minor podsrc reproduces.
func (a *analysis) podLevelResources() bool {
	var versions []string
	if n := a.f.NodeObject; n.Known() && n.Value != nil {
		versions = append(versions, n.Value.Status.NodeInfo.KubeletVersion)
	}
	if a.f.Sources != nil {
		versions = append(versions, a.f.Sources.ReproducedKubeletVersion)
	}
	for _, v := range versions {
		if on, err := kubeletsemantics.PodLevelResourcesOf(v); err == nil {
			return on
		}
	}
	return true
}

// hostPorts are the host ports the pod asks for, as PORT/PROTOCOL.
func hostPorts(pod *corev1.Pod) []string {
	if pod == nil {
		return nil
	}
	var out []string
	for _, c := range append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		for _, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			proto := p.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			out = append(out, fmt.Sprintf("%d/%s", p.HostPort, proto))
		}
	}
	return out
}

// portsFix names the pods of the node that hold a host port the pod asks
// for, or how to find them.
func (a *analysis) portsFix(pod *corev1.Pod) string {
	want := hostPorts(pod)
	var holders []string
	for _, p := range a.f.Pods {
		if p.UID == a.f.Subject.Info.UID || p.Mirror || p.Pod == nil {
			continue
		}
		for _, hp := range hostPorts(p.Pod) {
			for _, w := range want {
				if hp == w {
					holders = append(holders, shell.Quote(p.Namespace+"/"+p.Name)+" holds "+hp)
				}
			}
		}
	}
	ports := "a host port"
	if len(want) > 0 {
		ports = "host port " + strings.Join(want, ", ")
	}
	if len(holders) > 0 {
		return "another pod holds " + ports + " the pod asks for: " + strings.Join(holders, "; ") + "; stop it, or change the pod's hostPort"
	}
	return "another pod on the node holds " + ports + " the pod asks for: stop it, or change the pod's hostPort; kubectl get pods -A --field-selector " +
		shell.Quote("spec.nodeName="+a.f.Node) + " -o " + shell.Quote("custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,HOSTPORTS:.spec.containers[*].ports[*].hostPort") + " finds it"
}

// affinityFix names the labels of the pod's nodeSelector that the node
// lacks, and the command that adds them.
func (a *analysis) affinityFix(pod *corev1.Pod) string {
	node := a.f.Node
	var labels map[string]string
	if a.f.NodeObject.Known() && a.f.NodeObject.Value != nil {
		labels = a.f.NodeObject.Value.Labels
	}
	var missing []string
	if pod != nil {
		for k, v := range pod.Spec.NodeSelector {
			if have, ok := labels[k]; !ok || have != v {
				missing = append(missing, k+"="+v)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		return "label the node as the pod's nodeSelector asks: kubectl label node " + shell.Operands(append([]string{node}, missing...)...) +
			" (or change the pod's nodeSelector)"
	}
	return "the node's labels do not match the pod's spec.affinity.nodeAffinity or nodeSelector: add the labels it asks for to the node (kubectl get node --show-labels " +
		shell.Operands(node) + " shows the node's), or change the pod's selector"
}

// taintsFix names the node's NoExecute taints the pod does not tolerate
// (the only ones the kubelet's admission checks) and the toleration that
// lets it in.
func (a *analysis) taintsFix(pod *corev1.Pod) string {
	var taints []corev1.Taint
	if a.f.NodeObject.Known() && a.f.NodeObject.Value != nil {
		taints = a.f.NodeObject.Value.Spec.Taints
	}
	var untolerated []string
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectNoExecute || (pod != nil && tolerated(pod.Spec.Tolerations, &t)) {
			continue
		}
		untolerated = append(untolerated, fmt.Sprintf("{key: %s, operator: Equal, value: %s, effect: NoExecute}", shell.Quote(t.Key), shell.Quote(t.Value)))
	}
	if len(untolerated) == 0 {
		return "the node has a NoExecute taint the pod does not tolerate: add a toleration of it to the pod's spec.tolerations (kubectl describe node " + shell.Operands(a.f.Node) + " lists the taints), or remove the taint"
	}
	return "add to the pod's spec.tolerations " + strings.Join(untolerated, ", ") + ", or remove the taint from the node"
}

// tolerated reports whether a toleration tolerates the taint.
func tolerated(tols []corev1.Toleration, t *corev1.Taint) bool {
	for i := range tols {
		tol := &tols[i]
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		if tol.Key != "" && tol.Key != t.Key {
			continue
		}
		if tol.Key == "" && tol.Operator != corev1.TolerationOpExists {
			continue
		}
		if tol.Operator == corev1.TolerationOpExists || tol.Value == t.Value {
			return true
		}
	}
	return false
}

// retryFix is how to take the rejected pod to admission again once its
// cause is gone: for a static pod, its manifest changed or moved back;
// for a pod of the API server, its controller's new pod, or else the pod
// recreated from its own manifest (the kubelet never retries a rejected
// pod).
func (a *analysis) retryFix() string {
	info := a.f.Subject.Info
	switch {
	case info.Source == v1alpha1.SourceFile:
		manifest := "its manifest"
		if info.Origin != "" {
			manifest = shell.Quote(info.Origin)
		}
		return "move " + manifest + " out of the static pod path and back, or change it (or restart the kubelet); the kubelet logged it: journalctl -u kubelet | grep 'Pod admission denied'"
	case info.Static:
		return "change the pod the static pod URL serves (or restart the kubelet); the kubelet logged it: journalctl -u kubelet | grep 'Pod admission denied'"
	}
	ns := shell.Quote(info.Namespace)
	if a.f.APIPod.Known() && a.f.APIPod.Value != nil {
		for _, o := range a.f.APIPod.Value.OwnerReferences {
			if o.Controller != nil && *o.Controller {
				return "delete the pod for its controller (" + o.Kind + " " + shell.Quote(o.Name) + ") to make a new one: kubectl delete pod -n " + ns + " " + shell.Operands(info.Name)
			}
		}
		return "recreate the pod, which has no controller, from its manifest: kubectl get pod -n " + ns + " -o yaml " + shell.Operands(info.Name) +
			" > pod.yaml, then kubectl replace --force -f pod.yaml"
	}
	return "recreate the pod: if it has a controller, kubectl delete pod -n " + ns + " " + shell.Operands(info.Name) +
		" (its controller makes a new one); if not, kubectl get pod -n " + ns + " -o yaml " + shell.Operands(info.Name) + " > pod.yaml, then kubectl replace --force -f pod.yaml"
}
