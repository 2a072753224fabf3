package why

import (
	"strings"

	"github.com/podsrc/podsrc/internal/shell"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// admission is the stage of the kubelet's admission of the pod when its
// sync loop was handed it: the verdict of the node's kubelet minor's admit
// handlers, as the agent reproduces it or reads it back from the pod's
// status.
func (a *analysis) admission() result {
	name, node := v1alpha1.StageAdmission, a.f.Node
	if r, stop := a.blocked(name, v1alpha1.StageConfig); stop {
		return r
	}
	info := a.f.Subject.Info
	v := info.Admission
	switch {
	case v == nil:
		// The kubelet's sync loop ignores SET: an agent in a snapshot
		// --mode, which the kubelet never runs, judges no pod.
		return unknown(name, "the agent gives no admission verdict for the pod (an agent in a snapshot --mode judges none)", "kubectl podsrc sources "+shell.Operands(node))
	case v.Unknown != "":
		return unknown(name, "the kubelet's admission cannot be judged: "+v.Unknown, "kubectl podsrc sources "+shell.Operands(node))
	case v.Skipped != "":
		return ok(name, "not taken to admission: "+v.Skipped)
	}
	var evidence []string
	if len(v.Preempts) > 0 {
		evidence = append(evidence, "critical pod preemption evicts "+podRefs(v.Preempts)+" to admit it")
	}
	from := "as podsrc reproduces the kubelet's admit handlers"
	if v.ReadBack {
		from = "the kubelet's own verdict, from the pod's status"
	}
	if v.Admitted {
		return ok(name, "admitted ("+from+")", evidence...)
	}
	if v.Handler != "" {
		evidence = append(evidence, "refused by the "+v.Handler+" admit handler")
	}
	reason, message := v.Reason, v.Message
	if reason == "" {
		reason = "a reason the kubelet does not give (left out)"
	}
	switch {
	case message == "" && v.ReadBack:
		// The agent quotes a message read back from a pod's status only
		// when the kubelet writes it whole, or with --expose-pod-specs.
		message = "(the agent leaves the message out; its --expose-pod-specs serves it)"
	case message == "":
		message = "(no message)"
	default:
		evidence = append(evidence, "the kubelet's status.message: Pod was rejected: "+message)
	}
	msg := "rejected by the kubelet's admission (" + from + "): " + reason + ": " + message
	fix := a.admitFix(v) + "; then " + a.retryFix()
	if info.Static {
		// An unchanged manifest makes no new ADD: the kubelet takes the
		// pod to admission again only when it changes, or comes back.
		return failing(name, msg+"; the kubelet never retries a rejected static pod and makes it no mirror pod", fix, evidence...)
	}
	return failing(name, msg+"; the kubelet does not retry a rejected pod", fix, evidence...)
}

// rejected returns the unknown result of a stage that a failing admission
// keeps from being reached, and false when admission did not fail (an
// unknown admission leaves the later stages to say what they see).
func (a *analysis) rejected(name string) (result, bool) {
	if a.done[v1alpha1.StageAdmission] != v1alpha1.VerdictFailing {
		return result{}, false
	}
	return unknown(name, "not reached: the kubelet's admission rejected the pod", ""), true
}

// podRefs names pods as namespace/name, comma-separated.
func podRefs(pods []v1alpha1.PodRef) string {
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Namespace + "/" + p.Name
	}
	return strings.Join(names, ", ")
}
