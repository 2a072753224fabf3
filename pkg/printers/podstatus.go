package printers

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Pod statuses podsrc names itself: a pod the kubelet's admission
// rejected without a reason, and the mirror pod of a static pod, whose
// containers run under the static pod.
const (
	statusRejected = "Rejected"
	statusMirror   = "-"
)

// podStatus is what the pods table says first about a pod, in kubectl's
// words (its printPod): STATUS, CONTAINERS as ready/configured and the
// last exit.
type podStatus struct {
	// Status is kubectl's STATUS: Running, Pending, ContainerCreating,
	// Completed, Error or another reason of the runtime, ExitCode:N,
	// CrashLoopBackOff, Unknown, Terminating (a pod only the runtime has,
	// which the kubelet kills); or, for a pod the kubelet's admission
	// rejected, its reason (OutOfmemory, NodePorts), as kubectl shows the
	// pod's status.reason, or Rejected when it gave none; or statusMirror.
	Status string
	// Ready counts the configured containers that run (podsrc sees no
	// readiness probe: running is ready); Configured the containers of the
	// pod's spec (PodInfo.Containers), or, for a pod only the runtime has,
	// those it has.
	Ready, Configured int
	// LastExit is the exit code of the container that exited last, with
	// its name when the pod has several; none when none has.
	LastExit string
	// Failing says Status is why the pod does not run: Rejected,
	// CrashLoopBackOff, or a container's non-zero exit.
	Failing bool
}

// statusOf works out a pod's podStatus from what its configuration and
// the PLEG say, as kubectl's printPod does from the kubelet's pod status:
// the first configured container that does not run gives the reason.
func statusOf(pod v1alpha1.PodInfo) podStatus {
	if pod.Mirror {
		return podStatus{Status: statusMirror, LastExit: statusMirror}
	}
	names := pod.Containers
	current := map[string]v1alpha1.RuntimeContainer{}
	if rt := pod.Runtime; rt != nil {
		for _, c := range rt.Containers {
			current[c.Name] = c
			if len(pod.Containers) == 0 {
				names = append(names, c.Name)
			}
		}
	}
	st := podStatus{Configured: len(names), LastExit: lastExit(pod.Runtime, len(names) > 1)}
	if a := pod.Admission; a.Rejected() {
		st.Status, st.Failing = statusRejected, true
		if a.Reason != "" {
			st.Status = a.Reason
		}
		return st
	}
	if pod.Runtime == nil {
		st.Status = "Pending"
		return st
	}
	reason, errorReason, running := "", "", false
	// kubectl reads the statuses from the last to the first: the first
	// container's reason wins.
	for i := len(names) - 1; i >= 0; i-- {
		c, ok := current[names[i]]
		switch {
		case !ok || c.State == v1alpha1.ContainerCreated:
			reason = "ContainerCreating"
		case c.State == v1alpha1.ContainerRunning:
			running = true
			st.Ready++
		case c.State == v1alpha1.ContainerExited:
			reason = exitReason(c)
			if c.ExitCode != 0 {
				errorReason = reason
			}
			if c.RestartCount > 0 && restarts(pod.RestartPolicy, c.ExitCode) {
				// The kubelet waits out its back-off before it
				// restarts a container that exited again.
				reason, errorReason = "CrashLoopBackOff", "CrashLoopBackOff"
			}
		default:
			reason = "Unknown"
		}
	}
	alive := running || pod.Runtime.SandboxState == v1alpha1.SandboxReady
	switch {
	case pod.Source == "" && alive:
		// The kubelet kills the pods no source configures.
		reason = "Terminating"
	case pod.Source == "" && reason == "":
		reason = "Completed"
	case reason == "" && alive:
		reason = "Running"
	case reason == "":
		reason = "Pending"
	case reason == "Completed" && running:
		reason = "Running"
	case reason == "Completed" && errorReason != "":
		reason = errorReason
	}
	st.Status, st.Failing = reason, reason != "" && reason == errorReason
	return st
}

// exitReason is an exited container's reason as kubectl shows it: the
// runtime's (Completed, Error, OOMKilled, ...), else ExitCode:N.
func exitReason(c v1alpha1.RuntimeContainer) string {
	if c.Reason != "" {
		return c.Reason
	}
	return fmt.Sprintf("ExitCode:%d", c.ExitCode)
}

// restarts reports whether the kubelet restarts a container that exited
// with code under the pod's restart policy; an unknown policy (a pod only
// the runtime has) restarts nothing.
func restarts(policy string, code int) bool {
	switch policy {
	case string(corev1.RestartPolicyAlways):
		return true
	case string(corev1.RestartPolicyOnFailure):
		return code != 0
	}
	return false
}

// lastExit is the exit code of the pod's container that finished last,
// with its name when named; none when no container has exited.
func lastExit(rt *v1alpha1.RuntimePod, named bool) string {
	if rt == nil {
		return none
	}
	var last *v1alpha1.RuntimeContainer
	for i, c := range rt.Containers {
		if c.State != v1alpha1.ContainerExited {
			continue
		}
		if last == nil || (c.FinishedAt != nil && (last.FinishedAt == nil || last.FinishedAt.Before(c.FinishedAt))) {
			last = &rt.Containers[i]
		}
	}
	switch {
	case last == nil:
		return none
	case named:
		return fmt.Sprintf("%d (%s)", last.ExitCode, last.Name)
	}
	return itoa(last.ExitCode)
}
