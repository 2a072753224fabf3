package admission

import (
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// RejectedPrefix starts the status.message the kubelet writes on a pod its
// admission rejected; the handler's own message follows.
const RejectedPrefix = "Pod was rejected: "

// kubeletReason is the shape of a reason the kubelet's admission sets: a
// word, or OutOf followed by a resource's name.
var kubeletReason = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,62}$|^OutOf[A-Za-z0-9][A-Za-z0-9._/-]{0,252}$`)

// kubeletMessages are the messages the kubelet's admit handlers write
// whole, word for word (its lifecycle package's predicate and declared
// features handlers): a message read back is quoted only when it is one of
// them, with its resource and numbers or the node features' names.
var kubeletMessages = []*regexp.Regexp{
	regexp.MustCompile(`^Node didn't have enough resource: [A-Za-z0-9][A-Za-z0-9._/-]{0,252}, requested: \d{1,20}, used: \d{1,20}, capacity: \d{1,20}$`),
	regexp.MustCompile(`^Predicate (NodePorts|NodeAffinity|NodeName|TaintToleration) failed: node\(s\) (didn't have free ports for the requested pod ports|didn't match Pod's node affinity/selector|didn't match the requested node name|had taints that the pod didn't tolerate)$`),
	regexp.MustCompile("^Failed to admit pod as the `kubernetes.io/os` label doesn't match node label$"),
	regexp.MustCompile(`^Failed to admit pod as the OS field doesn't match node OS$`),
	regexp.MustCompile(`^Kubelet cannot get node info\.$`),
	regexp.MustCompile(`^Pod requires node features that are not available: [A-Z][A-Za-z0-9]*(, [A-Z][A-Za-z0-9]*)*$`),
}

// KubeletVerdict reads the kubelet's own admission verdict back from an
// API pod's status: a pod the kubelet rejected is Failed with its reason
// and "Pod was rejected: " and the handler's message; a pod it has started
// (StartTime set, not Failed) was admitted. A static pod is always judged:
// its status is its manifest's, whatever that says, and the kubelet
// judges it anyway. Pods the kubelet has not synced yet carry no verdict.
//
// Anyone who may write the pod's status may write its message: it is kept
// only when it is one the kubelet writes whole, or with withMessages (the
// agent's --expose-pod-specs); a reason not shaped as the kubelet's is
// dropped with it.
func KubeletVerdict(p *v1.Pod, withMessages bool) (v1alpha1.Admission, bool) {
	if src, ok := p.Annotations[merge.ConfigSourceAnnotation]; ok && src != v1alpha1.SourceAPI {
		return v1alpha1.Admission{}, false
	}
	st := p.Status
	if st.Phase == v1.PodFailed && strings.HasPrefix(st.Message, RejectedPrefix) {
		v := v1alpha1.Admission{Reason: st.Reason, Message: strings.TrimPrefix(st.Message, RejectedPrefix), ReadBack: true}
		if !kubeletReason.MatchString(v.Reason) {
			v.Reason = ""
		}
		if !withMessages && (v.Reason == "" || !kubeletMessage(v.Message)) {
			v.Message = ""
		}
		return v, true
	}
	if st.StartTime != nil && st.Phase != v1.PodFailed && st.Phase != v1.PodSucceeded {
		return v1alpha1.Admission{Admitted: true, ReadBack: true}, true
	}
	return v1alpha1.Admission{}, false
}

// kubeletMessage reports whether m is a message the kubelet writes whole.
// QuotedRejection reports whether a pod's status message is a rejection
// of the kubelet's admission that KubeletVerdict quotes even without
// withMessages: one the kubelet writes whole.
func QuotedRejection(statusMessage string) bool {
	m, ok := strings.CutPrefix(statusMessage, RejectedPrefix)
	return ok && kubeletMessage(m)
}

func kubeletMessage(m string) bool {
	for _, re := range kubeletMessages {
		if re.MatchString(m) {
			return true
		}
	}
	return false
}
