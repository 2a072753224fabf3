package why

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podsrc/podsrc/internal/shell"

	corev1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// crashLoopDeaths is how many deaths in the agent's history within
// recentRestart make a running container's crash loop.
const crashLoopDeaths = 3

// pullReasons are the Event and waiting reasons of an image that cannot be
// had; the kubelet's Event Failed repeats them ("Error: ErrImageNeverPull").
var pullReasons = []string{"ErrImageNeverPull", "ErrImagePull", "ImagePullBackOff", "InvalidImageName"}

// recentRestart is how long ago a container's last non-zero exit may be
// for a running container that restarted to count as crash-looping.
const recentRestart = 10 * time.Minute

// containerResult is the verdict on one container.
type containerResult struct {
	ok bool
	// starting says the container is neither ok nor failing yet.
	starting bool
	summary  string
	evidence []string
	fix      string
}

// containers is the stage of the pod's containers.
func (a *analysis) containers() result {
	name := v1alpha1.StageContainers
	if r, stop := a.blocked(name, v1alpha1.StageConfig, v1alpha1.StageSandbox); stop {
		return r
	}
	rt, _ := a.runtimePod()
	if rt == nil {
		if r, done := a.finished(name, "", nil); done {
			return r
		}
	}
	inits, spec, policy := a.spec()
	if r, blocked := a.initContainers(inits, spec, rt, policy); blocked {
		return r
	}
	if len(spec) == 0 && rt != nil {
		for _, c := range rt.Containers {
			if !slices.ContainsFunc(spec, func(s specContainer) bool { return s.name == c.Name }) {
				spec = append(spec, specContainer{name: c.Name, policy: policy})
			}
		}
	}
	if len(spec) == 0 {
		return unknown(name, "neither the pod's spec nor the runtime names a container", "kubectl podsrc pods -o wide "+shell.Operands(a.f.Node), a.detailError()...)
	}
	names := make([]string, 0, len(spec))
	results := make([]containerResult, 0, len(spec))
	for _, c := range spec {
		names = append(names, c.name)
		results = append(results, a.container("container", c.name, newest(rt, c.name), c.policy))
	}
	// The first failing container, or else the first starting one, makes
	// the verdict; the others are evidence.
	pick := -1
	for i, cr := range results {
		if !cr.ok && !cr.starting {
			pick = i
			break
		}
		if cr.starting && pick < 0 {
			pick = i
		}
	}
	var others []string
	for i, cr := range results {
		if i != pick {
			others = append(others, cr.summary)
		}
	}
	others = append(others, a.detailError()...)
	if pick >= 0 {
		cr := results[pick]
		if cr.starting {
			return unknown(name, cr.summary, cr.fix, append(cr.evidence, others...)...)
		}
		return failing(name, cr.summary, cr.fix, append(cr.evidence, others...)...)
	}
	return ok(name, fmt.Sprintf("%d/%d containers as configured", len(names), len(names)), others...)
}

// initContainers judges the pod's init containers (sidecars excepted), which
// run one after another before its containers: the first that has not
// completed is the stage's verdict, and blocked says there is one. An init
// container the runtime no longer has completed when a container of the
// pod has an instance.
func (a *analysis) initContainers(inits, spec []specContainer, rt *v1alpha1.RuntimePod, policy corev1.RestartPolicy) (result, bool) {
	name := v1alpha1.StageContainers
	started := slices.ContainsFunc(spec, func(c specContainer) bool { return newest(rt, c.name) != nil })
	var done []string
	for _, c := range inits {
		rc := newest(rt, c.name)
		if rc == nil && started {
			continue
		}
		if rc != nil && strings.EqualFold(rc.State, "exited") && rc.ExitCode == 0 {
			done = append(done, fmt.Sprintf("init container %s completed", c.name))
			continue
		}
		cr := a.container("init container", c.name, rc, policy)
		evidence := append(cr.evidence, done...)
		if cr.ok {
			// Running: the pod's containers wait for it to complete.
			return unknown(name, cr.summary+": the pod's containers wait for it to complete",
				"kubectl logs -n "+shell.Quote(a.f.Subject.Namespace)+" -c "+shell.Quote(c.name)+" "+shell.Operands(a.f.Subject.Name), evidence...), true
		}
		if cr.starting {
			return unknown(name, cr.summary, cr.fix, evidence...), true
		}
		return failing(name, cr.summary, cr.fix, evidence...), true
	}
	return result{}, false
}

// container judges one container (kind: "container" or "init container")
// from the runtime's newest instance of it.
func (a *analysis) container(kind, name string, rc *v1alpha1.RuntimeContainer, policy corev1.RestartPolicy) containerResult {
	ns, pod, node := a.f.Subject.Namespace, a.f.Subject.Name, a.f.Node
	var waiting *corev1.ContainerStateWaiting
	var last *corev1.ContainerStateTerminated
	if st := a.status(name); st != nil {
		waiting, last = st.State.Waiting, st.LastTerminationState.Terminated
	}
	if rc == nil {
		cr := containerResult{summary: kind + " " + name + " was never created"}
		if waiting != nil && waiting.Reason != "" {
			cr.summary += ": " + waiting.Reason
			if waiting.Message != "" {
				cr.summary += ": " + waiting.Message
			}
		}
		cr.evidence = a.podEvents(append(pullReasons, "Failed", "CreateContainerConfigError", "CreateContainerError", "BackOff")...)
		reason := ""
		if waiting != nil {
			reason = waiting.Reason
		}
		if reason == "" {
			reason = newestReason(a.f.PodEvents, pullReasons)
		}
		image := a.image(name)
		switch reason {
		case "ErrImageNeverPull":
			cr.fix = fmt.Sprintf("image %s is not on node %s and imagePullPolicy is Never: import it (ctr -n k8s.io images import) or set imagePullPolicy: IfNotPresent", shell.Quote(image), shell.Quote(node))
		case "ErrImagePull", "ImagePullBackOff", "InvalidImageName":
			cr.fix = "crictl pull " + shell.Operands(image) + " on node " + shell.Quote(node) + " says why the image cannot be pulled"
		default:
			cr.fix = "kubectl describe pod -n " + shell.Quote(ns) + " " + shell.Operands(pod) + " (Events), or crictl ps -a --pod " + shell.Quote(a.sandboxID()) + " on node " + shell.Quote(node)
		}
		return cr
	}
	cadence, recentDeaths := a.crashCadence(name)
	state := strings.ToLower(rc.State)
	desc := fmt.Sprintf("%s %s is %s, restarts %d", kind, name, state, rc.RestartCount)
	logs := "kubectl logs -n " + shell.Quote(ns) + " -c " + shell.Quote(name) + " --previous " + shell.Operands(pod)
	if a.f.Subject.Source != v1alpha1.SourceAPI {
		logs += " (the mirror pod's; or crictl logs " + shell.Operands(short(rc.ID)) + " on node " + shell.Quote(node) + ")"
	}
	if state == "exited" {
		desc = fmt.Sprintf("%s %s exited with code %d", kind, name, rc.ExitCode)
		if rc.Reason != "" {
			desc += " (" + rc.Reason + ")"
		}
		desc += fmt.Sprintf(", restarts %d", rc.RestartCount)
		if rc.ExitCode == 0 && policy != corev1.RestartPolicyAlways && policy != "" {
			return containerResult{ok: true, summary: desc + ": completed"}
		}
		if cadence != "" {
			desc += "; " + cadence
		}
		if waiting != nil && waiting.Reason == "CrashLoopBackOff" {
			desc += "; CrashLoopBackOff"
		}
		return containerResult{summary: desc, evidence: a.podEvents("BackOff"), fix: logs}
	}
	// Running or about to run: a container that died lately and was
	// restarted is crash-looping whichever instant of the loop this is.
	if ex, found := a.lastExit(name, rc, last); found && a.f.Now.Sub(ex.at) < recentRestart &&
		(recentDeaths >= crashLoopDeaths || (rc.RestartCount > 0 && (ex.code != 0 || state != "running"))) {
		desc += fmt.Sprintf(": last exited with code %d", ex.code)
		if ex.reason != "" {
			desc += " (" + ex.reason + ")"
		}
		desc += " at " + stamp(ex.at) + ", restarting"
		if cadence != "" {
			desc += "; " + cadence
		}
		return containerResult{summary: desc, evidence: a.podEvents("BackOff"), fix: logs}
	}
	switch state {
	case "running":
		return containerResult{ok: true, summary: desc}
	case "created":
		// The PLEG lags the kubelet by up to a relist: a container just
		// created is about to start.
		return containerResult{starting: true, summary: desc + ": not started yet", evidence: a.podEvents(), fix: "kubectl podsrc why " + shell.Operands(node, a.podRef()) + " again in a few seconds"}
	}
	return containerResult{summary: desc, evidence: a.podEvents(), fix: "crictl inspect " + shell.Operands(short(rc.ID)) + " on node " + shell.Quote(node)}
}

// exit is how a container instance ended.
type exit struct {
	code   int
	reason string
	at     time.Time
}

// lastExit returns how the container's previous instance ended: from the
// API server's last termination state, else the PLEG's newest death of
// it, else the runtime's exited instance before rc.
func (a *analysis) lastExit(name string, rc *v1alpha1.RuntimeContainer, last *corev1.ContainerStateTerminated) (exit, bool) {
	if last != nil {
		return exit{code: int(last.ExitCode), reason: last.Reason, at: last.FinishedAt.Time}, true
	}
	if info := a.f.Subject.Info; info != nil {
		h := a.f.History.Value
		for i := len(h) - 1; i >= 0; i-- {
			ev := h[i]
			if ev.Kind == v1alpha1.EventKindPLEG && ev.PodUID == info.UID && ev.Type == v1alpha1.PLEGContainerDied && !ev.Sandbox && ev.ContainerName == name && ev.ExitCode != nil {
				return exit{code: *ev.ExitCode, at: ev.Time.Time}, true
			}
		}
	}
	if rt, _ := a.runtimePod(); rt != nil {
		var prev *v1alpha1.RuntimeContainer
		for i := range rt.Containers {
			c := &rt.Containers[i]
			if c.Name == name && c.ID != rc.ID && strings.EqualFold(c.State, "exited") && c.FinishedAt != nil && (prev == nil || c.RestartCount > prev.RestartCount) {
				prev = c
			}
		}
		if prev != nil {
			return exit{code: prev.ExitCode, reason: prev.Reason, at: prev.FinishedAt.Time}, true
		}
	}
	return exit{}, false
}

// specContainer is a container of the pod's spec and how it restarts.
type specContainer struct {
	name   string
	policy corev1.RestartPolicy
}

// spec returns the pod's init containers that run to completion, its
// containers (sidecars first: init containers that restart always, which
// run beside the others) and its restart policy, from the agent's
// projected pod or else the API server's.
func (a *analysis) spec() (inits, containers []specContainer, policy corev1.RestartPolicy) {
	pod := a.detailPod()
	if pod == nil && a.f.APIPod.Known() {
		pod = a.f.APIPod.Value
	}
	if pod == nil {
		return nil, nil, ""
	}
	policy = pod.Spec.RestartPolicy
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			containers = append(containers, specContainer{name: c.Name, policy: corev1.RestartPolicyAlways})
			continue
		}
		inits = append(inits, specContainer{name: c.Name, policy: policy})
	}
	for _, c := range pod.Spec.Containers {
		containers = append(containers, specContainer{name: c.Name, policy: policy})
	}
	return inits, containers, policy
}

// image returns a container's image from the spec, or "the image".
func (a *analysis) image(container string) string {
	for _, pod := range []*corev1.Pod{a.detailPod(), a.f.APIPod.Value} {
		if pod == nil {
			continue
		}
		for _, c := range append(slices.Clone(pod.Spec.InitContainers), pod.Spec.Containers...) {
			if c.Name == container && c.Image != "" {
				return c.Image
			}
		}
	}
	return "the image"
}

// detailPod is the agent's projected pod, nil when there is none.
func (a *analysis) detailPod() *corev1.Pod {
	if a.f.Detail.Value == nil {
		return nil
	}
	return a.f.Detail.Value.Pod
}

// detailError is the evidence of an agent that did not give the pod's
// projected spec, which leaves it to the API server's.
func (a *analysis) detailError() []string {
	if a.f.Detail.Err == nil {
		return nil
	}
	return []string{"the agent did not give the pod's spec (the API server's is used): " + a.f.Detail.Err.Error()}
}

// status returns the container's status as the API server (a mirror
// pod's for a static pod) or else the agent's pod has it; nil when neither
// has one.
func (a *analysis) status(container string) *corev1.ContainerStatus {
	for _, pod := range []*corev1.Pod{a.f.APIPod.Value, a.detailPod()} {
		if pod == nil {
			continue
		}
		for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
			for i := range statuses {
				if statuses[i].Name == container {
					return &statuses[i]
				}
			}
		}
	}
	return nil
}

// sandboxID is the pod's sandbox ID for a crictl command.
func (a *analysis) sandboxID() string {
	if rt, _ := a.runtimePod(); rt != nil && rt.SandboxID != "" {
		return short(rt.SandboxID)
	}
	return "POD_ID"
}

// newest returns the runtime's newest instance of a container.
func newest(rt *v1alpha1.RuntimePod, name string) *v1alpha1.RuntimeContainer {
	if rt == nil {
		return nil
	}
	var best *v1alpha1.RuntimeContainer
	for i := range rt.Containers {
		c := &rt.Containers[i]
		if c.Name == name && (best == nil || c.RestartCount > best.RestartCount) {
			best = c
		}
	}
	return best
}
