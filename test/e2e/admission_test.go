package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// rejectedPrefix starts the status.message the kubelet gives a pod its
// admission rejects.
const rejectedPrefix = "Pod was rejected: "

// admissionCase is one pod bound straight to the node (no scheduler) or
// one static pod, and whether the node's kubelet admits it.
type admissionCase struct {
	name   string
	pod    func(e *env) *corev1.Pod
	static bool
	admit  bool
	// quotesSpec says the kubelet's message quotes the pod's spec, so a
	// verdict read back from the pod's status leaves it out: the agent of
	// the e2e runs without --expose-pod-specs.
	quotesSpec bool
	// reason, when set, is the kubelet's reason the case expects: the
	// handler it proves refuses the pod.
	reason string
}

// admissionCases are what the kubelet's admit handlers refuse (and a pod
// that fits): too much CPU, a host port the agent already holds, a node
// selector no node matches, an unsafe sysctl, a host-network pod in a user
// namespace, a node feature its Node does not declare, and a static pod
// that does not fit, which critical pod preemption cannot make room for.
var admissionCases = []admissionCase{
	{name: "adm-fits", admit: true, pod: func(e *env) *corev1.Pod {
		return withCPU(whyPod(e, whyNS, "adm-fits", e.c.TestImage, "-sleep", "0"), "10m")
	}},
	{name: "adm-cpu", pod: func(e *env) *corev1.Pod {
		return withCPU(whyPod(e, whyNS, "adm-cpu", e.c.TestImage, "-sleep", "0"), "100")
	}},
	{name: "adm-hostport", pod: func(e *env) *corev1.Pod {
		p := whyPod(e, whyNS, "adm-hostport", e.c.TestImage, "-sleep", "0")
		// The agent, on the host network, holds its API port.
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: v1alpha1.DefaultAgentPort, HostPort: v1alpha1.DefaultAgentPort}}
		return p
	}},
	{name: "adm-selector", pod: func(e *env) *corev1.Pod {
		p := whyPod(e, whyNS, "adm-selector", e.c.TestImage, "-sleep", "0")
		p.Spec.NodeSelector = map[string]string{"podsrc.io/e2e": "no-such-node"}
		return p
	}},
	{name: "adm-sysctl", quotesSpec: true, pod: func(e *env) *corev1.Pod {
		p := whyPod(e, whyNS, "adm-sysctl", e.c.TestImage, "-sleep", "0")
		p.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "kernel.msgmax", Value: "65536"}}}
		return p
	}},
	// The API server lets this pod in (its gate UserNamespacesHostNetworkSupport
	// is on, hack/lib/components.sh); the kubelet's is off, so its Node
	// declares no such feature and its declared features handler (v1.36
	// on) refuses the pod.
	{name: "adm-declared-features", reason: "PodFeatureUnsupported", pod: func(e *env) *corev1.Pod {
		p := whyPod(e, whyNS, "adm-declared-features", e.c.TestImage, "-sleep", "0")
		p.Spec.HostNetwork = true
		p.Spec.HostUsers = new(bool)
		return p
	}},
	{name: "adm-static", static: true, pod: func(e *env) *corev1.Pod {
		return withCPU(whyPod(e, whyNS, "adm-static", e.c.TestImage, "-sleep", "0"), "100")
	}},
}

// withCPU gives the pod's container a CPU request.
func withCPU(p *corev1.Pod, cpu string) *corev1.Pod {
	p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	return p
}

// kubeletVerdict is what the node's kubelet decided of a pod: from an API
// pod's status, or from its "Pod admission denied" log line for a static
// pod, which has no status the API server holds.
type kubeletVerdict struct {
	admitted        bool
	reason, message string
}

// testAdmission makes every admission case at once, then checks each:
// podsrc's own verdict on the ADD (in the stream, before the kubelet has
// written any status), pods -o json's admission and why's admission stage
// say what the kubelet decided, in its words.
func testAdmission(t *testing.T, e *env) {
	mark := e.rec.mark()
	for _, ac := range admissionCases {
		p := ac.pod(e)
		if ac.static {
			p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
			m, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			p.Name = e.staticName(p.Name)
			writeWhyStatic(t, e, ac.name+".json", whyNS, p.Name, m)
			continue
		}
		createWhyPod(t, e, p)
	}
	for _, ac := range admissionCases {
		t.Run(ac.name, func(t *testing.T) {
			name := ac.name
			if ac.static {
				name = e.staticName(name)
			}
			kv := e.kubeletVerdict(t, ac, name)
			if kv.admitted != ac.admit || (ac.reason != "" && kv.reason != ac.reason) {
				t.Fatalf("the kubelet's verdict %+v; the case expects admitted=%v, reason %q", kv, ac.admit, ac.reason)
			}
			source := v1alpha1.SourceAPI
			if ac.static {
				source = v1alpha1.SourceFile
			}
			ev := e.waitEvent(t, mark, "ADD "+source+" "+name, configEvent("ADD", source, whyNS, name, ""))
			var own *v1alpha1.Admission
			for _, p := range ev.Pods {
				if p.Namespace == whyNS && p.Name == name {
					own = p.Admission
				}
			}
			if own == nil || own.ReadBack || own.Admitted != kv.admitted || own.Reason != kv.reason || own.Message != kv.message {
				t.Fatalf("podsrc's verdict on the ADD: %+v; the kubelet's: %+v", own, kv)
			}
			e.checkPodsAdmission(t, ac, name, kv)
			if ac.admit {
				return
			}
			r, status, stderr := e.whySettled(t, whyNS+"/"+name, whyWant{stage: v1alpha1.StageAdmission})
			if status != whyExitFailing || r.Stage != v1alpha1.StageAdmission || r.Verdict != v1alpha1.VerdictFailing {
				t.Fatalf("why: exit %d, %s at stage %q; want %d, failing at admission; stderr %s\n%s", status, r.Verdict, r.Stage, whyExitFailing, stderr, jsonIndent(r))
			}
			for _, s := range r.Stages {
				want := kv.reason + ": " + kv.message
				if ac.quotesSpec && strings.Contains(s.Message, "from the pod's status") {
					want = kv.reason + ": (the agent leaves the message out; its --expose-pod-specs serves it)"
				}
				if s.Name == v1alpha1.StageAdmission && !strings.Contains(s.Message, want) {
					t.Errorf("why's admission stage says %q; want %q", s.Message, want)
				}
			}
		})
	}
}

// kubeletVerdict awaits the kubelet's verdict on the case's pod.
func (e *env) kubeletVerdict(t *testing.T, ac admissionCase, name string) kubeletVerdict {
	t.Helper()
	if ac.static {
		var kv kubeletVerdict
		e.pollFor(t, "the kubelet's log to deny "+name, pollTimeout, func(context.Context) (bool, string, error) {
			var ok bool
			kv, ok = deniedInKubeletLog(t, e.c.KubeletLog, whyNS+"/"+name)
			return ok, "no \"Pod admission denied\" line yet", nil
		})
		return kv
	}
	var kv kubeletVerdict
	e.waitPodStatus(t, whyNS, name, "judged by the kubelet", func(p *corev1.Pod) (bool, string) {
		switch {
		case p.Status.Phase == corev1.PodFailed && strings.HasPrefix(p.Status.Message, rejectedPrefix):
			kv = kubeletVerdict{reason: p.Status.Reason, message: strings.TrimPrefix(p.Status.Message, rejectedPrefix)}
			return true, ""
		case p.Status.Phase == corev1.PodRunning:
			kv = kubeletVerdict{admitted: true}
			return true, ""
		}
		return false, "phase " + string(p.Status.Phase) + " " + p.Status.Reason
	})
	return kv
}

// deniedLine matches the kubelet's log line of an admission it denies
// (structured, -v=2 and up).
var deniedLine = regexp.MustCompile(`"Pod admission denied" .*pod="([^"]+)" reason="([^"]*)" message=("(?:[^"\\]|\\.)*")`)

// deniedInKubeletLog returns the last admission the kubelet's log says it
// denied pod (namespace/name).
func deniedInKubeletLog(t *testing.T, path, pod string) (kubeletVerdict, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading the kubelet's log: %v", err)
	}
	defer f.Close()
	var kv kubeletVerdict
	found := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := deniedLine.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != pod {
			continue
		}
		msg, err := strconv.Unquote(m[3])
		if err != nil {
			t.Fatalf("the kubelet's message %s: %v", m[3], err)
		}
		kv, found = kubeletVerdict{reason: m[2], message: msg}, true
	}
	return kv, found
}

// checkPodsAdmission checks the row of pods -o json of the pod: the
// kubelet's verdict, its message left out when read back from the pod's
// status and quoting the pod's spec.
func (e *env) checkPodsAdmission(t *testing.T, ac admissionCase, name string, kv kubeletVerdict) {
	t.Helper()
	out, err := e.runPlugin(t, false, nil, "pods", e.c.NodeName, "-n", whyNS, "-o", "json", "--kubeconfig="+e.c.Kubeconfig)
	if err != nil {
		t.Fatalf("pods -o json: %v\n%s", err, out)
	}
	// The plugin prints a pod's name, namespace, uid and labels under
	// metadata.
	var list struct {
		Items []struct {
			v1alpha1.PodInfo
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("pods -o json: %v\n%s", err, out)
	}
	for _, p := range list.Items {
		if p.Metadata.Name != name || p.Mirror {
			continue
		}
		a := p.Admission
		message := kv.message
		if a != nil && a.ReadBack && ac.quotesSpec {
			message = ""
		}
		if a == nil || a.Admitted != kv.admitted || a.Reason != kv.reason || a.Message != message {
			t.Fatalf("pods -o json: admission %+v; the kubelet's verdict %+v (message %q)", a, kv, message)
		}
		if !kv.admitted {
			// STATUS is the pod's status.reason, as kubectl shows it.
			e.checkPodsStatus(t, name, kv.reason)
		}
		return
	}
	t.Fatalf("pods -o json has no row of %s:\n%s", name, out)
}

// checkPodsStatus checks that the pods table's row of the pod (not its
// mirror pod) has the STATUS status.
func (e *env) checkPodsStatus(t *testing.T, name, status string) {
	t.Helper()
	out, err := e.runPlugin(t, false, nil, "pods", e.c.NodeName, "-n", whyNS, "--no-headers", "--kubeconfig="+e.c.Kubeconfig)
	if err != nil {
		t.Fatalf("pods: %v\n%s", err, out)
	}
	for _, l := range strings.Split(out, "\n") {
		// NAMESPACE NAME READY STATUS ...
		if f := strings.Fields(l); len(f) > 3 && f[1] == name && f[3] != "-" {
			if f[3] != status {
				t.Errorf("pods shows %s as %s, want %s:\n%s", name, f[3], status, out)
			}
			return
		}
	}
	t.Errorf("pods has no row of %s:\n%s", name, out)
}
