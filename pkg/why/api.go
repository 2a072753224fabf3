package why

import (
	"fmt"

	"github.com/podsrc/podsrc/internal/shell"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// binding is the stage of an API pod's binding to the node.
func (a *analysis) binding() result {
	name, node, ref := v1alpha1.StageBinding, a.f.Node, a.podRef()
	info := a.f.Subject.Info
	fromAgent := info != nil && info.Source == v1alpha1.SourceAPI
	l := a.f.APIPod
	switch {
	case l.Known():
		pod := l.Value
		switch pod.Spec.NodeName {
		case node:
			msg := "pod " + ref + " is bound to node " + node
			if pod.DeletionTimestamp != nil {
				return ok(name, msg, "being deleted since "+stamp(pod.DeletionTimestamp.Time))
			}
			return ok(name, msg)
		case "":
			return failing(name, "pod "+ref+" is not scheduled to any node yet"+scheduleReason(pod),
				"kubectl describe pod -n "+shell.Quote(a.f.Subject.Namespace)+" "+shell.Operands(a.f.Subject.Name), a.podEvents("FailedScheduling")...)
		default:
			return failing(name, fmt.Sprintf("pod %s is bound to node %s, not %s", ref, pod.Spec.NodeName, node),
				"kubectl podsrc why "+shell.Operands(pod.Spec.NodeName, ref))
		}
	case fromAgent:
		return ok(name, "the kubelet's API source lists pod "+ref+" for node "+node, "the API server was not asked: "+l.Why())
	case apierrors.IsNotFound(l.Err):
		msg := "no pod " + ref + " in the API server"
		ops := a.configOps()
		if apierrors.IsNotFound(a.f.Namespace.Err) {
			msg += ": namespace " + a.f.Subject.Namespace + " does not exist"
		}
		if n := len(ops); n > 0 && ops[n-1].Op == v1alpha1.OpRemove {
			msg += ": the API source removed it at " + stamp(ops[n-1].Time.Time) + " (deleted, or its namespace was)"
		}
		return failing(name, msg, "kubectl get pods -A --field-selector "+shell.Quote("spec.nodeName="+node), formatOps(ops)...)
	}
	return unknown(name, "cannot get pod "+ref+" from the API server: "+l.Why(), apiPodFix(l, a.f.Subject.Namespace))
}

// scheduleReason is the scheduler's reason from the PodScheduled
// condition, with a leading separator, or nothing.
func scheduleReason(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" {
			return " (" + c.Reason + ")"
		}
	}
	return ""
}

// apiSource is the stage of the kubelet's API source.
func (a *analysis) apiSource() result {
	name := v1alpha1.StageAPISource
	src := findSource(a.f.Sources, v1alpha1.SourceAPI)
	switch {
	case src == nil:
		return failing(name, "the kubelet has no API source: it runs standalone, without a kubeconfig",
			"give the kubelet on node "+a.f.Node+" a --kubeconfig")
	case !src.Seen:
		return failing(name, "the API source has not sent its first list of pods", "kubectl podsrc sources "+shell.Operands(a.f.Node), lastError(src)...)
	case failingNow(src) && a.f.Subject.Info == nil:
		return failing(name, "the API source fails: "+src.LastError, "check the kubelet's credentials and the API server from node "+a.f.Node, lastError(src)...)
	}
	return ok(name, fmt.Sprintf("the API source is seen with %d pods", src.Pods), lastError(src)...)
}

// apiPodFix says what to do about a lookup of a pod in namespace ns that
// the API server did not answer: ask for the right when it refused, give
// kubectl podsrc a cluster when none was asked, check the connection
// otherwise.
func apiPodFix(l Lookup[*corev1.Pod], ns string) string {
	switch {
	case apierrors.IsForbidden(l.Err) || apierrors.IsUnauthorized(l.Err):
		return "ask for get on pods in namespace " + ns + " (kubectl auth can-i get pods -n " + shell.Quote(ns) + ")"
	case l.Err == nil:
		return "give kubectl podsrc the cluster (--kubeconfig, --context) to include the API server's side"
	}
	return "check the connection to the API server (--kubeconfig, --context, --server)"
}
