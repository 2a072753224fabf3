package printers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestStatusOf(t *testing.T) {
	running := func(name string) v1alpha1.RuntimeContainer {
		return v1alpha1.RuntimeContainer{Name: name, State: "running"}
	}
	exited := func(name string, code, restarts int, reason string) v1alpha1.RuntimeContainer {
		return v1alpha1.RuntimeContainer{Name: name, State: "exited", ExitCode: code, RestartCount: restarts, Reason: reason}
	}
	ready := func(cs ...v1alpha1.RuntimeContainer) *v1alpha1.RuntimePod {
		return &v1alpha1.RuntimePod{SandboxState: "ready", Containers: cs}
	}
	pod := func(policy string, rt *v1alpha1.RuntimePod, containers ...string) v1alpha1.PodInfo {
		return v1alpha1.PodInfo{Source: "api", Containers: containers, RestartPolicy: policy, Runtime: rt, Admission: &v1alpha1.Admission{Admitted: true}}
	}
	rejected := pod("Always", nil, "web")
	rejected.Admission = &v1alpha1.Admission{Reason: "OutOfcpu", Message: "Node didn't have enough resource: cpu"}
	noReason := pod("Always", nil, "web")
	noReason.Admission = &v1alpha1.Admission{}
	mirror := pod("Always", nil, "web")
	mirror.Mirror = true
	later := exited("sidecar", 137, 0, "OOMKilled")
	later.FinishedAt = &metav1.Time{Time: now}
	earlier := exited("web", 1, 0, "Error")
	earlier.FinishedAt = &metav1.Time{Time: now.Add(-1)}
	for _, tc := range []struct {
		name string
		pod  v1alpha1.PodInfo
		want podStatus
	}{
		{"running", pod("Always", ready(running("web")), "web"), podStatus{Status: "Running", Ready: 1, Configured: 1, LastExit: none}},
		{"configured, nothing on the runtime", pod("Always", nil, "web"), podStatus{Status: "Pending", Configured: 1, LastExit: none}},
		{"a container never started", pod("Always", ready(), "web"), podStatus{Status: "ContainerCreating", Configured: 1, LastExit: none}},
		{"a created container", pod("Always", ready(v1alpha1.RuntimeContainer{Name: "web", State: "created"}), "web"),
			podStatus{Status: "ContainerCreating", Configured: 1, LastExit: none}},
		{"exited with 2, not restarted", pod("Never", ready(exited("web", 2, 0, "Error")), "web"),
			podStatus{Status: "Error", Configured: 1, LastExit: "2", Failing: true}},
		{"exited with 2, no reason", pod("Never", ready(exited("web", 2, 0, "")), "web"),
			podStatus{Status: "ExitCode:2", Configured: 1, LastExit: "2", Failing: true}},
		{"exited again, restarted", pod("Always", ready(exited("web", 2, 3, "Error")), "web"),
			podStatus{Status: "CrashLoopBackOff", Configured: 1, LastExit: "2", Failing: true}},
		{"completed again, restarted always", pod("Always", ready(exited("web", 0, 3, "Completed")), "web"),
			podStatus{Status: "CrashLoopBackOff", Configured: 1, LastExit: "0", Failing: true}},
		{"completed, on failure", pod("OnFailure", ready(exited("web", 0, 1, "Completed")), "web"),
			podStatus{Status: "Completed", Configured: 1, LastExit: "0"}},
		{"first exit, restarted at once", pod("Always", ready(exited("web", 1, 0, "Error")), "web"),
			podStatus{Status: "Error", Configured: 1, LastExit: "1", Failing: true}},
		{"the first container's reason wins", pod("Always", ready(running("web")), "init-free", "web"),
			podStatus{Status: "ContainerCreating", Ready: 1, Configured: 2, LastExit: none}},
		{"completed beside a running one", pod("Never", ready(exited("job", 0, 0, "Completed"), running("sidecar")), "job", "sidecar"),
			podStatus{Status: "Running", Ready: 1, Configured: 2, LastExit: "0 (job)"}},
		{"the newest exit, named", pod("Never", ready(earlier, later), "web", "sidecar"),
			podStatus{Status: "Error", Configured: 2, LastExit: "137 (sidecar)", Failing: true}},
		{"rejected: the kubelet's reason", rejected, podStatus{Status: "OutOfcpu", Configured: 1, LastExit: none, Failing: true}},
		{"rejected without a reason", noReason, podStatus{Status: "Rejected", Configured: 1, LastExit: none, Failing: true}},
		{"mirror", mirror, podStatus{Status: "-", LastExit: "-"}},
		{"only the runtime has it", v1alpha1.PodInfo{Runtime: ready(running("a"), exited("b", 0, 0, "Completed"))},
			podStatus{Status: "Terminating", Ready: 1, Configured: 2, LastExit: "0 (b)"}},
		{"only the runtime has it, stopped", v1alpha1.PodInfo{Runtime: &v1alpha1.RuntimePod{SandboxState: "notready"}},
			podStatus{Status: "Completed", LastExit: none}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := statusOf(tc.pod); got != tc.want {
				t.Errorf("statusOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}
