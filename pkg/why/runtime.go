package why

import (
	"fmt"
	"strings"

	"github.com/podsrc/podsrc/internal/shell"

	corev1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// runtimePod returns what the runtime has of the subject's pod: the
// configured pod's, or else that of a pod of the same namespace and name
// no source configures (the kubelet is killing it).
func (a *analysis) runtimePod() (*v1alpha1.RuntimePod, bool) {
	if info := a.f.Subject.Info; info != nil {
		return info.Runtime, false
	}
	for _, p := range a.f.Pods {
		if p.Source == "" && p.Namespace == a.f.Subject.Namespace && p.Name == a.f.Subject.Name && p.Runtime != nil {
			return p.Runtime, true
		}
	}
	return nil, false
}

// sandbox is the stage of the pod's sandbox.
func (a *analysis) sandbox() result {
	name, node := v1alpha1.StageSandbox, a.f.Node
	if r, stop := a.blocked(name, v1alpha1.StageConfig); stop {
		return r
	}
	if r, stop := a.rejected(name); stop {
		return r
	}
	if a.f.PLEG != nil && !a.f.PLEG.Enabled {
		return unknown(name, "the agent does not watch the runtime: its PLEG is off", "kubectl podsrc pleg "+shell.Operands(node))
	}
	rt, orphan := a.runtimePod()
	evidence := a.podEvents("FailedCreatePodSandBox", "SandboxChanged", "FailedKillPod")
	fix := "crictl pods --namespace " + shell.Quote(a.f.Subject.Namespace) + " --name " + shell.Quote(a.f.Subject.Name) + " on node " + shell.Quote(node)
	switch {
	case rt == nil:
		if r, done := a.finished(name, fix, evidence); done {
			return r
		}
		return failing(name, "the runtime has no sandbox for the pod", fix, evidence...)
	case rt.Error != "":
		return unknown(name, "the PLEG's last inspection of the pod failed: "+rt.Error, fix, evidence...)
	case rt.SandboxID == "":
		return failing(name, "the runtime has containers but no sandbox for the pod", fix, evidence...)
	}
	evidence = append([]string{"sandbox " + short(rt.SandboxID)}, evidence...)
	if len(rt.IPs) > 0 {
		evidence = append(evidence, "IPs "+strings.Join(rt.IPs, ","))
	}
	if orphan {
		return failing(name, "the runtime's sandbox belongs to a pod no source configures: the kubelet is killing it", fix, evidence...)
	}
	if rt.SandboxState != "ready" {
		if policy, done := a.doneInRuntime(rt); done {
			return ok(name, "the sandbox is "+orText(rt.SandboxState, "in no known state")+": every container has exited and restartPolicy "+string(policy)+" restarts none, so the kubelet stopped the sandbox of the finished pod", evidence...)
		}
		return failing(name, "the sandbox is "+orText(rt.SandboxState, "in no known state"), fix, evidence...)
	}
	return ok(name, "the sandbox is ready", evidence...)
}

// doneInRuntime reports whether the pod is finished as the runtime shows
// it: every container has exited and the pod's restart policy restarts none
// of them. The kubelet stops the sandbox of such a pod, so a sandbox that is
// not ready is no fault of its own; the containers stage judges the exits.
func (a *analysis) doneInRuntime(rt *v1alpha1.RuntimePod) (corev1.RestartPolicy, bool) {
	_, _, policy := a.spec()
	if policy != corev1.RestartPolicyNever && policy != corev1.RestartPolicyOnFailure || len(rt.Containers) == 0 {
		return policy, false
	}
	for _, c := range rt.Containers {
		if !strings.EqualFold(c.State, "exited") || policy == corev1.RestartPolicyOnFailure && c.ExitCode != 0 {
			return policy, false
		}
	}
	return policy, true
}

// short shortens a runtime ID for a message.
func short(id string) string {
	if _, rest, found := strings.Cut(id, "://"); found {
		id = rest
	}
	if len(id) > 13 {
		return id[:13]
	}
	return id
}

// crashCadence describes a container's deaths from the PLEG's events:
// how many, over how long, their exit codes and the intervals between
// them, empty when it died fewer than twice; recent counts the deaths of
// the last recentRestart.
func (a *analysis) crashCadence(container string) (cadence string, recent int) {
	info := a.f.Subject.Info
	if info == nil {
		return "", 0
	}
	var deaths []v1alpha1.Event
	for _, ev := range a.f.History.Value {
		if ev.Kind == v1alpha1.EventKindPLEG && ev.PodUID == info.UID && ev.Type == v1alpha1.PLEGContainerDied && !ev.Sandbox && ev.ContainerName == container {
			deaths = append(deaths, ev)
			if a.f.Now.Sub(ev.Time.Time) < recentRestart {
				recent++
			}
		}
	}
	if len(deaths) < 2 {
		return "", recent
	}
	var gaps, codes []string
	for i, ev := range deaths {
		if i > 0 {
			gaps = append(gaps, ev.Time.Sub(deaths[i-1].Time.Time).Round(1e9).String())
		}
		if ev.ExitCode != nil {
			codes = append(codes, fmt.Sprint(*ev.ExitCode))
		}
	}
	const keep = 6
	if len(gaps) > keep {
		gaps = gaps[len(gaps)-keep:]
	}
	if len(codes) > keep {
		codes = codes[len(codes)-keep:]
	}
	span := deaths[len(deaths)-1].Time.Sub(deaths[0].Time.Time).Round(1e9)
	cadence = fmt.Sprintf("died %d times in %s (PLEG), intervals %s", len(deaths), span, strings.Join(gaps, ", "))
	if len(codes) > 0 {
		cadence += ", exit codes " + strings.Join(codes, ", ")
	}
	return cadence, recent
}

// finished judges a pod the runtime has nothing of by the phase the API
// server has for it: the kubelet rejected it (Failed) or it completed
// (Succeeded); false when the phase says neither.
func (a *analysis) finished(name, fix string, evidence []string) (result, bool) {
	if !a.f.APIPod.Known() || a.f.APIPod.Value == nil {
		return result{}, false
	}
	st := a.f.APIPod.Value.Status
	switch st.Phase {
	case corev1.PodSucceeded:
		return ok(name, "the pod completed (phase Succeeded)", evidence...), true
	case corev1.PodFailed:
		msg := "the pod failed"
		if st.Reason != "" {
			msg += ": " + st.Reason
		}
		if st.Message != "" {
			msg += ": " + st.Message
		}
		return failing(name, msg+" (the kubelet rejects a pod it cannot admit with phase Failed)",
			"kubectl describe pod -n "+shell.Quote(a.f.Subject.Namespace)+" "+shell.Operands(a.f.Subject.Name), evidence...), true
	}
	return result{}, false
}
