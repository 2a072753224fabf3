package why

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// analyzeCase is a scenario of Analyze and what its report must say.
type analyzeCase struct {
	name  string
	facts func() Facts
	// verdict and stage of the report; msg, evidence and fix are
	// parts of the stage's message, its evidence and the suggestion.
	verdict, stage     string
	msg, evidence, fix string
	// notFix must not be part of the suggestion.
	notFix string
	// look is the stage whose message and evidence are checked when
	// it is not the report's stage (an ok stage of an ok report).
	look string
	// stages are the report's stage names in order, when checked.
	stages []string
}

// analyzeCases are the scenarios of TestAnalyze; TestSuggestionsAreData
// runs them again with hostile names.
func analyzeCases() []analyzeCase {
	etcd := staticPod("etcd")
	web := apiPod("default", "web")
	// withInits is web with these runtime containers and init containers.
	withInits := func(runtime []v1alpha1.RuntimeContainer, inits ...corev1.Container) Facts {
		p := apiPod("default", "web")
		spec := specOf(p, "")
		spec.Spec.InitContainers = inits
		p.Runtime.Containers = runtime
		f := baseFacts()
		f.APIPod = Lookup[*corev1.Pod]{Value: spec}
		return withPods(f, nameTarget("default", "web"), p)
	}
	always := corev1.ContainerRestartPolicyAlways
	webRunning := v1alpha1.RuntimeContainer{ID: "containerd://w1", Name: "web", State: "running"}
	return []analyzeCase{
		{
			name: "healthy static pod",
			facts: func() Facts {
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, etcd.ConfigHash)}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictOK,
			stages:  []string{"file", "decode", "shadow", "config", "admission", "mirror", "sandbox", "containers"},
		},
		{
			name: "static pod the kubelet's admission rejects",
			facts: func() Facts {
				p := etcd
				p.Runtime = nil
				p.Admission = &v1alpha1.Admission{Reason: "UnexpectedAdmissionError", Handler: "predicate",
					Message: "Allocate failed due to preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 99000), ]"}
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Err: apierrors.NewNotFound(corev1.Resource("pods"), p.Name)}
				return withPods(f, pathTarget(etcd.Origin), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			msg:      "UnexpectedAdmissionError: Allocate failed due to preemption",
			evidence: "Pod was rejected: Allocate failed due to preemption",
			fix:      "out of the static pod path and back, or change it",
			stages:   []string{"file", "decode", "shadow", "config", "admission", "mirror", "sandbox", "containers"},
		},
		{
			name: "API pod the kubelet rejected, read back",
			facts: func() Facts {
				p := apiPod("default", "hog")
				p.Runtime = nil
				p.Admission = &v1alpha1.Admission{Reason: "OutOfcpu", ReadBack: true,
					Message: "Node didn't have enough resource: cpu, requested: 100000, used: 350, capacity: 2000"}
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: owned(specOf(apiPod("default", "hog"), ""))}
				return withPods(f, nameTarget("default", "hog"), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			msg: "the kubelet's own verdict, from the pod's status): OutOfcpu: Node didn't have enough resource: cpu",
			fix: "delete the pod for its controller (ReplicaSet hog-5d8f) to make a new one: kubectl delete pod -n default hog",
		},
		{
			name:    "a pod with no controller is recreated from its manifest, not deleted for good",
			facts:   rejectedAPI("OutOfcpu", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			msg:    "OutOfcpu: (the agent leaves the message out; its --expose-pod-specs serves it)",
			fix:    "recreate the pod, which has no controller, from its manifest: kubectl get pod -n default -o yaml hog > pod.yaml, then kubectl replace --force -f pod.yaml",
			notFix: "makes a new one",
		},
		{
			name: "a verdict podsrc reproduces without a message blames no flag",
			facts: func() Facts {
				f := rejectedAPI("OutOfcpu", nil)()
				for i := range f.Pods {
					if a := f.Pods[i].Admission; a != nil && a.ReadBack {
						f.Pods[i].Admission = &v1alpha1.Admission{Reason: a.Reason, Handler: "predicate"}
					}
				}
				return f
			},
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			msg: "as podsrc reproduces the kubelet's admit handlers): OutOfcpu: (no message)",
		},
		{
			name: "rejected for cpu: the pods that hold it and the request to lower",
			facts: rejectedAPI("OutOfcpu", func(pod *corev1.Pod, _ *corev1.Node) {
				pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}
			}),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "free cpu on node node-1: the pods admitted before it hold it (default/web); or lower the pod's request (it asks for 3)",
		},
		{
			name:    "rejected for the node's maxPods",
			facts:   rejectedAPI("OutOfpods", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "delete one of the pods admitted before it (default/web), or raise maxPods in the kubelet's configuration on node node-1",
		},
		{
			name: "rejected for a host port another pod of the agent holds",
			facts: rejectedAPI("NodePorts", func(pod *corev1.Pod, _ *corev1.Node) {
				pod.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 80}}
			}),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "another pod holds host port 80/TCP the pod asks for: default/web holds 80/TCP; stop it, or change the pod's hostPort",
		},
		{
			name: "rejected for a host port, its holder not known",
			facts: func() Facts {
				f := rejectedAPI("NodePorts", nil)()
				f.Pods[1].Pod = nil
				return f
			},
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "kubectl get pods -A --field-selector spec.nodeName=node-1 -o 'custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,HOSTPORTS:.spec.containers[*].ports[*].hostPort' finds it",
		},
		{
			name: "rejected for a node selector the node's labels miss",
			facts: rejectedAPI("NodeAffinity", func(pod *corev1.Pod, _ *corev1.Node) {
				pod.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
			}),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "label the node as the pod's nodeSelector asks: kubectl label node node-1 disktype=ssd (or change the pod's nodeSelector)",
		},
		{
			name:    "rejected for node affinity",
			facts:   rejectedAPI("NodeAffinity", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "add the labels it asks for to the node (kubectl get node --show-labels node-1 shows the node's), or change the pod's selector",
		},
		{
			name: "rejected for a NoExecute taint",
			facts: rejectedAPI("TaintToleration", func(pod *corev1.Pod, node *corev1.Node) {
				node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}, {Key: "other", Effect: corev1.TaintEffectNoSchedule}}
			}),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "add to the pod's spec.tolerations {key: dedicated, operator: Equal, value: db, effect: NoExecute}, or remove the taint from the node",
		},
		{
			name: "rejected for an unsafe sysctl",
			facts: rejectedAPI("SysctlForbidden", func(pod *corev1.Pod, _ *corev1.Node) {
				pod.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}}
			}),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "allow the sysctl in the kubelet's --allowed-unsafe-sysctls (allowedUnsafeSysctls in its configuration) on node node-1, or remove it from the pod's spec.securityContext.sysctls (the pod sets net.core.somaxconn)",
		},
		{
			name:    "rejected for a node feature the node does not declare",
			facts:   rejectedAPI("PodFeatureUnsupported", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1 lacks a feature the pod needs",
		},
		{
			name:    "rejected for pod-level resources",
			facts:   rejectedAPI("PodLevelResourcesNotSupported", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1's kubelet does not support pod-level resources",
		},
		{
			name:    "rejected for the node's operating system",
			facts:   rejectedAPI("PodOSNotSupported", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1 runs another operating system",
		},
		{
			name:    "rejected under node pressure",
			facts:   rejectedAPI("Evicted", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "kubectl describe node node-1 shows its conditions",
		},
		{
			name:    "rejected for a supplementalGroupsPolicy the runtime lacks",
			facts:   rejectedAPI("SupplementalGroupsPolicyNotSupported", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1's container runtime does not support supplementalGroupsPolicy Strict: set it to Merge",
		},
		{
			name:    "rejected for the operating system's node label",
			facts:   rejectedAPI("PodOSSelectorNodeLabelDoesNotMatch", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1 runs another operating system: set the pod's spec.os and its kubernetes.io/os label to the node's (kubectl get node --show-labels node-1)",
		},
		{
			name:    "rejected for an AppArmor profile",
			facts:   rejectedAPI("AppArmor", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1 cannot enforce the pod's AppArmor profile: load the profile on the node",
		},
		{
			name:    "rejected for an init container's restartPolicy",
			facts:   rejectedAPI("InitContainerRestartPolicyForbidden", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1's kubelet does not allow an init container's restartPolicy",
		},
		{
			name:    "rejected while the node shuts down",
			facts:   rejectedAPI("NodeShutdown", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "node node-1 is shutting down: wait until it is back",
		},
		{
			name:    "rejected for a reason podsrc does not know",
			facts:   rejectedAPI("UnknownReason", nil),
			verdict: v1alpha1.VerdictFailing, stage: "admission",
			fix: "remove the cause the kubelet's message names",
		},
		{
			name: "admission that cannot be judged leaves the later stages to speak",
			facts: func() Facts {
				p := etcd
				p.Admission = &v1alpha1.Admission{Unknown: "the node's Node object is not known"}
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, etcd.ConfigHash)}
				return withPods(f, pathTarget(etcd.Origin), p)
			},
			verdict: v1alpha1.VerdictUnknown, stage: "admission", msg: "cannot be judged: the node's Node object is not known",
		},
		{
			name: "healthy static pod of an agent that does not say its file",
			facts: func() Facts {
				p := etcd
				p.Origin = ""
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, etcd.ConfigHash)}
				return withPods(f, nameTarget("kube-system", "etcd"), p)
			},
			verdict: v1alpha1.VerdictOK,
		},
		{
			name: "healthy static pod of an agent that does not give its detail",
			facts: func() Facts {
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, etcd.ConfigHash)}
				f.Detail = Lookup[*v1alpha1.PodInfo]{Err: errors.New("the agent answered 404")}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictOK, look: "containers", evidence: "the agent did not give the pod's spec (the API server's is used): the agent answered 404",
		},
		{
			name: "init container crash-looping",
			facts: func() Facts {
				return withInits([]v1alpha1.RuntimeContainer{{ID: "containerd://i1", Name: "migrate", State: "exited", ExitCode: 1, Reason: "Error", RestartCount: 3}},
					corev1.Container{Name: "migrate", Image: "registry.example/migrate:1"})
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "init container migrate exited with code 1 (Error), restarts 3", fix: "kubectl logs -n default -c migrate --previous web",
		},
		{
			name: "init container that cannot be pulled",
			facts: func() Facts {
				f := withInits(nil, corev1.Container{Name: "migrate", Image: "registry.example/migrate:1"})
				f.APIPod.Value.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "migrate",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}
				return f
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "init container migrate was never created: ImagePullBackOff", fix: "crictl pull registry.example/migrate:1",
		},
		{
			name: "init container still running",
			facts: func() Facts {
				return withInits([]v1alpha1.RuntimeContainer{{ID: "containerd://i1", Name: "migrate", State: "running"}},
					corev1.Container{Name: "migrate", Image: "registry.example/migrate:1"})
			},
			verdict: v1alpha1.VerdictUnknown, stage: "containers", msg: "init container migrate is running, restarts 0: the pod's containers wait for it to complete",
		},
		{
			name: "init container completed, sidecar and container running",
			facts: func() Facts {
				return withInits([]v1alpha1.RuntimeContainer{{ID: "containerd://i1", Name: "migrate", State: "exited"},
					{ID: "containerd://s1", Name: "proxy", State: "running"}, webRunning},
					corev1.Container{Name: "migrate", Image: "registry.example/migrate:1"},
					corev1.Container{Name: "proxy", Image: "registry.example/proxy:1", RestartPolicy: &always})
			},
			verdict: v1alpha1.VerdictOK, look: "containers", msg: "2/2 containers as configured", evidence: "container proxy is running",
		},
		{
			name: "sidecar not created",
			facts: func() Facts {
				return withInits([]v1alpha1.RuntimeContainer{webRunning},
					corev1.Container{Name: "proxy", Image: "registry.example/proxy:1", RestartPolicy: &always})
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "container proxy was never created",
		},
		{
			name: "init container the runtime no longer has",
			facts: func() Facts {
				return withInits([]v1alpha1.RuntimeContainer{webRunning}, corev1.Container{Name: "migrate", Image: "registry.example/migrate:1"})
			},
			verdict: v1alpha1.VerdictOK,
		},
		{
			name: "healthy API pod",
			facts: func() Facts {
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(web, "")}
				return withPods(f, nameTarget("", "web"), web)
			},
			verdict: v1alpha1.VerdictOK,
			stages:  []string{"binding", "api-source", "config", "admission", "sandbox", "containers"},
		},
		{
			name: "decode error with its YAML line",
			facts: func() Facts {
				return rejectedManifest("bad.yaml", "error converting YAML to JSON: yaml: line 7: mapping values are not allowed in this context", nameTarget("", "bad"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "decode", msg: "yaml: line 7", evidence: "bad.yaml line 7", fix: "fix the manifest",
		},
		{
			name: "validation error",
			facts: func() Facts {
				return rejectedManifest("invalid.yaml", "invalid pod: spec.containers: Required value", pathTarget(testDir+"/invalid.yaml"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "decode", msg: "spec.containers: Required value",
		},
		{
			name: "a static pod that references a secret, rejected by the kubelet",
			facts: func() Facts {
				return rejectedManifest("secret.yaml", "static pods may not reference secrets", pathTarget(testDir+"/secret.yaml"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "decode", fix: "PreventStaticPodAPIReferences",
		},
		{
			name: "not a regular file",
			facts: func() Facts {
				f := baseFacts()
				p := testDir + "/fifo"
				fileSource(f).RejectedFiles = []v1alpha1.RejectedFile{{Path: p, Error: "manifest " + p + " is a named pipe, not a regular file: skipped"}}
				return withPods(f, pathTarget(p))
			},
			verdict: v1alpha1.VerdictFailing, stage: "file", msg: "not a regular file",
		},
		{
			name: "absent file",
			facts: func() Facts {
				return withPods(baseFacts(), pathTarget(testDir+"/gone.yaml"), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "file", msg: "has no file", fix: "ls -l",
		},
		{
			name: "absent file whose name a shell would run",
			facts: func() Facts {
				return withPods(baseFacts(), pathTarget(testDir+"/it's a;$(reboot).yaml"), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "file", fix: "ls -l '" + testDir + "/it'\\''s a;$(reboot).yaml' on node",
		},
		{
			name: "shadowed by a file whose name a shell would run",
			facts: func() Facts {
				return shadowedEtcd(testDir+"/etcd `id`.yaml", pathTarget(etcd.Origin), false)
			},
			verdict: v1alpha1.VerdictFailing, stage: "shadow", fix: "move '" + testDir + "/etcd `id`.yaml' out of " + testDir + " (",
		},
		{
			name: "outside the static pod path",
			facts: func() Facts {
				return withPods(baseFacts(), pathTarget("/root/etcd.yaml"), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "file", msg: "not in the static pod path",
		},
		{
			name: "a static pod the kubelet warns about: decoded, with the warning",
			facts: func() Facts {
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, etcd.ConfigHash)}
				fileSource(f).WarnedFiles = []v1alpha1.WarnedFile{{Path: etcd.Origin, Pod: "kube-system/etcd-node-1", Warnings: []string{
					"kubelet v1.37 warns: priority 1000 without a priorityClassName: the mirror pod may fail to be created unless the default priority class has that priority"}}}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictOK, look: "decode", msg: "decoded and valid", evidence: "kubelet v1.37 warns: priority 1000 without a priorityClassName",
		},
		{
			name: "shadowed by a backup, asked by path",
			facts: func() Facts {
				return shadowedEtcd(testDir+"/etcd.yaml.bak", pathTarget(etcd.Origin), false)
			},
			verdict: v1alpha1.VerdictFailing, stage: "shadow", msg: "shadowed by " + testDir + "/etcd.yaml.bak", fix: "move " + testDir + "/etcd.yaml.bak",
		},
		{
			name: "shadowed by a backup, asked by name",
			facts: func() Facts {
				return shadowedEtcd(testDir+"/etcd.yaml.bak", nameTarget("", "etcd"), true)
			},
			verdict: v1alpha1.VerdictOK, look: "shadow", msg: "runs the pod of this file", evidence: "hides " + testDir + "/etcd.yaml,",
		},
		{
			name: "the winner of a shadowed manifest, asked by path",
			facts: func() Facts {
				return shadowedEtcd(testDir+"/etcd.yaml.bak", pathTarget(testDir+"/etcd.yaml.bak"), true)
			},
			verdict: v1alpha1.VerdictOK, look: "shadow", msg: "runs the pod of this file", evidence: "hides " + testDir + "/etcd.yaml,",
		},
		{
			name: "mirror refused by NodeRestriction",
			facts: func() Facts {
				p := etcd
				p.APIReferences = []string{"secret"}
				return withPods(baseFacts(), pathTarget(p.Origin), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "NodeRestriction", fix: "remove the references to secret",
		},
		{
			name: "mirror refused: its namespace does not exist",
			facts: func() Facts {
				f := baseFacts()
				f.Namespace = Lookup[*corev1.Namespace]{Err: apierrors.NewNotFound(corev1.Resource("namespaces"), "kube-system")}
				f.NodeEvents.Value = []corev1.Event{{Reason: "CgroupV1", Type: corev1.EventTypeWarning, Message: "cgroup v1 detected"}}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "namespace kube-system does not exist", fix: "kubectl create namespace kube-system",
		},
		{
			name: "no mirror, the node's Events are no loop",
			facts: func() Facts {
				f := baseFacts()
				f.NodeEvents.Value = []corev1.Event{{Reason: "CgroupV1", Type: corev1.EventTypeWarning, Message: "cgroup v1 detected"},
					{Reason: "FailedMirror", Type: corev1.EventTypeWarning, Message: "mirror of " + etcd.Name + " refused"}}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "no mirror pod kube-system/" + etcd.Name + " in the API server", evidence: "Event FailedMirror",
		},
		{
			name: "no mirror yet: the static pod is seconds old",
			facts: func() Facts {
				p := etcd
				p.FirstSeen = seenAgo(7 * time.Second)
				return withPods(baseFacts(), pathTarget(p.Origin), p)
			},
			verdict: v1alpha1.VerdictUnknown, stage: "mirror", msg: "no mirror pod kube-system/" + etcd.Name + " yet: the kubelet first saw the static pod 7s ago",
			fix: "kubectl get pod -n kube-system -w " + etcd.Name,
		},
		{
			name: "no mirror a minute after the static pod was first seen",
			facts: func() Facts {
				p := etcd
				p.FirstSeen = seenAgo(mirrorGrace)
				return withPods(baseFacts(), pathTarget(p.Origin), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "no mirror pod kube-system/" + etcd.Name + " in the API server",
		},
		{
			name: "a fresh static pod that references a secret fails at once",
			facts: func() Facts {
				p := etcd
				p.FirstSeen = seenAgo(time.Second)
				p.APIReferences = []string{"secret"}
				return withPods(baseFacts(), pathTarget(p.Origin), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "admission (ServiceAccount, NodeRestriction) refuses mirror pods that reference secret",
		},
		{
			name: "the mirror of the previous version, the static pod seconds old",
			facts: func() Facts {
				p := etcd
				p.FirstSeen = seenAgo(3 * time.Second)
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, "previous")}
				return withPods(f, pathTarget(p.Origin), p)
			},
			verdict: v1alpha1.VerdictUnknown, stage: "mirror", msg: "first saw 3s ago: it replaces the mirror at its next sync", evidence: "config.mirror previous",
		},
		{
			name: "a pod of the API server that is not a mirror",
			facts: func() Facts {
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, "")}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "is not a mirror pod", fix: "kubectl delete pod -n kube-system " + etcd.Name,
		},
		{
			name: "mirror recreated in a loop",
			facts: func() Facts {
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(etcd, "stale")}
				mirror := etcd
				mirror.UID = "mirror-uid"
				f.History.Value = []v1alpha1.Event{
					configEvent("ADD", "api", 30*time.Second, mirror), configEvent("REMOVE", "api", 20*time.Second, mirror),
					configEvent("ADD", "api", 10*time.Second, mirror),
				}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "deletes and recreates", evidence: "added the mirror pod 2 times and removed it 1 times",
		},
		{
			name: "node not registered",
			facts: func() Facts {
				f := baseFacts()
				f.NodeObject = Lookup[*corev1.Node]{Err: apierrors.NewNotFound(corev1.Resource("nodes"), testNode)}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictFailing, stage: "mirror", msg: "not registered",
		},
		{
			name: "mirror unknown: forbidden and no API source",
			facts: func() Facts {
				f := baseFacts()
				f.Sources.Items = f.Sources.Items[1:]
				f.APIPod = Lookup[*corev1.Pod]{Err: apierrors.NewForbidden(podsResource, etcd.Name, errors.New("no RBAC"))}
				return withPods(f, pathTarget(etcd.Origin), etcd)
			},
			verdict: v1alpha1.VerdictUnknown, stage: "mirror", msg: "forbidden", fix: "kubectl auth can-i get pods -n kube-system",
		},
		{
			name: "image never pulled",
			facts: func() Facts {
				p := etcd
				p.Runtime = running()
				f := baseFacts()
				mirror := specOf(etcd, etcd.ConfigHash)
				mirror.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "etcd", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
					Reason: "ErrImageNeverPull", Message: `Container image "registry.example/etcd:1" is not present with pull policy of Never`}}}}
				f.APIPod = Lookup[*corev1.Pod]{Value: mirror}
				f.PodEvents.Value = []corev1.Event{{Reason: "ErrImageNeverPull", Message: "Container image is not present", Count: 4, LastTimestamp: metav1.NewTime(testNow)}}
				return withPods(f, pathTarget(p.Origin), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "never created: ErrImageNeverPull", evidence: "Event ErrImageNeverPull", fix: "imagePullPolicy",
		},
		{
			name: "crash loop with a non-zero exit code",
			facts: func() Facts {
				p := etcd
				p.Runtime = running()
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "c1", Name: "etcd", State: "exited", ExitCode: 1, Reason: "Error", RestartCount: 4}}
				return mirroredEtcd(p, specOf(etcd, etcd.ConfigHash), diedEvent(p, "etcd", 1, 70*time.Second), diedEvent(p, "etcd", 1, 50*time.Second), diedEvent(p, "etcd", 1, 10*time.Second))
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "exited with code 1 (Error), restarts 4; died 3 times in 1m0s (PLEG), intervals 20s, 40s", fix: "--previous",
		},
		{
			name: "exited with restartPolicy Never: the stopped sandbox is the kubelet's doing, the exit code the fault",
			facts: func() Facts {
				p := etcd
				p.Runtime = running()
				p.Runtime.SandboxState = "notready"
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "c1", Name: "etcd", State: "exited", ExitCode: 7, Reason: "Error"}}
				pod := specOf(etcd, etcd.ConfigHash)
				pod.Spec.RestartPolicy = corev1.RestartPolicyNever
				return mirroredEtcd(p, pod)
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "exited with code 7 (Error), restarts 0", fix: "--previous",
		},
		{
			name: "a stopped sandbox while restartPolicy Always would restart the exited container",
			facts: func() Facts {
				p := etcd
				p.Runtime = running()
				p.Runtime.SandboxState = "notready"
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "c1", Name: "etcd", State: "exited", ExitCode: 7, Reason: "Error"}}
				return mirroredEtcd(p, specOf(etcd, etcd.ConfigHash))
			},
			verdict: v1alpha1.VerdictFailing, stage: "sandbox", msg: "the sandbox is notready", fix: "crictl pods",
		},
		{
			name: "running between crashes",
			facts: func() Facts {
				p := etcd
				return mirroredEtcd(p, specOf(etcd, etcd.ConfigHash), diedEvent(p, "etcd", 2, 70*time.Second), diedEvent(p, "etcd", 2, 50*time.Second), diedEvent(p, "etcd", 2, 10*time.Second))
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "last exited with code 2 at 2026-11-22T11:59:50Z, restarting; died 3 times in 1m0s (PLEG)",
		},
		{
			name: "caught between two runs of a crash loop",
			facts: func() Facts {
				p := etcd
				p.Runtime = running()
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "c2", Name: "etcd", State: "created", RestartCount: 2},
					{ID: "c1", Name: "etcd", State: "exited", ExitCode: 3, Reason: "Error", RestartCount: 1, FinishedAt: ptrTime(testNow.Add(-2 * time.Second))}}
				return mirroredEtcd(p, specOf(etcd, etcd.ConfigHash))
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "container etcd is created, restarts 2: last exited with code 3 (Error) at 2026-11-22T11:59:58Z, restarting",
		},
		{
			name: "running again after a crash the PLEG saw",
			facts: func() Facts {
				p := etcd
				p.Runtime.Containers[0].RestartCount = 1
				return mirroredEtcd(p, specOf(etcd, etcd.ConfigHash), diedEvent(p, "etcd", 3, 5*time.Second))
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "last exited with code 3 at 2026-11-22T11:59:55Z",
		},
		{
			name: "running again after a recent crash",
			facts: func() Facts {
				p := etcd
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "c2", Name: "etcd", State: "running", RestartCount: 4}}
				mirror := specOf(etcd, etcd.ConfigHash)
				mirror.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "etcd", RestartCount: 4, LastTerminationState: corev1.ContainerState{
					Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error", FinishedAt: metav1.NewTime(testNow.Add(-5 * time.Second))}}}}
				return mirroredEtcd(p, mirror)
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "last exited with code 3 (Error) at 2026-11-22T11:59:55Z",
		},
		{
			name: "running, long after a run of crashes",
			facts: func() Facts {
				p := etcd
				return mirroredEtcd(p, specOf(etcd, etcd.ConfigHash), diedEvent(p, "etcd", 2, 3*time.Hour), diedEvent(p, "etcd", 2, 2*time.Hour), diedEvent(p, "etcd", 2, time.Hour))
			},
			verdict: v1alpha1.VerdictOK,
		},
		{
			name: "running after an old crash",
			facts: func() Facts {
				p := etcd
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "c2", Name: "etcd", State: "running", RestartCount: 4}}
				mirror := specOf(etcd, etcd.ConfigHash)
				mirror.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "etcd", RestartCount: 4, LastTerminationState: corev1.ContainerState{
					Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, FinishedAt: metav1.NewTime(testNow.Add(-time.Hour))}}}}
				return mirroredEtcd(p, mirror)
			},
			verdict: v1alpha1.VerdictOK,
		},
		{
			name: "API pod not scheduled",
			facts: func() Facts {
				f := baseFacts()
				p := specOf(web, "")
				p.Spec.NodeName = ""
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable"}}
				f.APIPod = Lookup[*corev1.Pod]{Value: p}
				f.PodEvents.Value = []corev1.Event{{Reason: "FailedScheduling", Message: "0/1 nodes are available", EventTime: metav1.NewMicroTime(testNow)}}
				return withPods(f, nameTarget("default", "web"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "binding", msg: "not scheduled to any node yet (Unschedulable)", evidence: "Event FailedScheduling: 0/1 nodes are available at 2026-11-22T12:00:00Z",
		},
		{
			name: "a container just created",
			facts: func() Facts {
				p := apiPod("default", "two")
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "a", Name: "a", State: "created"}, {ID: "b", Name: "b", State: "running"}}
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(p, "")}
				f.PodEvents.Value = []corev1.Event{{Reason: "MissingClusterDNS", Type: corev1.EventTypeWarning, Message: "no DNS"}}
				return withPods(f, nameTarget("default", "two"), p)
			},
			verdict: v1alpha1.VerdictUnknown, stage: "containers", msg: "container a is created, restarts 0: not started yet", evidence: "container b is running",
		},
		{
			name: "a failing container wins over one just created",
			facts: func() Facts {
				p := apiPod("default", "two")
				p.Runtime.Containers = []v1alpha1.RuntimeContainer{{ID: "a", Name: "a", State: "created"}, {ID: "b", Name: "b", State: "exited", ExitCode: 1}}
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(p, "")}
				return withPods(f, nameTarget("default", "two"), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "containers", msg: "container b exited with code 1",
		},
		{
			name: "sandbox not ready",
			facts: func() Facts {
				p := etcd
				p.Runtime = running()
				p.Runtime.SandboxState = "notready"
				return mirroredEtcd(p, specOf(etcd, etcd.ConfigHash))
			},
			verdict: v1alpha1.VerdictFailing, stage: "sandbox", msg: "notready",
		},
		{
			name: "API pod the kubelet did not admit",
			facts: func() Facts {
				p := web
				p.Runtime = nil
				f := baseFacts()
				pod := specOf(web, "")
				pod.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "OutOfcpu", Message: "Pod was rejected: Node didn't have enough resource: cpu"}
				f.APIPod = Lookup[*corev1.Pod]{Value: pod}
				return withPods(f, nameTarget("default", "web"), p)
			},
			verdict: v1alpha1.VerdictFailing, stage: "sandbox", msg: "the pod failed: OutOfcpu: Pod was rejected",
		},
		{
			name: "API pod that completed",
			facts: func() Facts {
				p := web
				p.Runtime = nil
				f := baseFacts()
				pod := specOf(web, "")
				pod.Status.Phase = corev1.PodSucceeded
				f.APIPod = Lookup[*corev1.Pod]{Value: pod}
				return withPods(f, nameTarget("default", "web"), p)
			},
			verdict: v1alpha1.VerdictOK,
		},
		{
			name: "PLEG off",
			facts: func() Facts {
				f := baseFacts()
				f.PLEG.Enabled = false
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(web, "")}
				return withPods(f, nameTarget("default", "web"), web)
			},
			verdict: v1alpha1.VerdictUnknown, stage: "sandbox", msg: "PLEG is off",
		},
		{
			name: "API pod gone with its namespace",
			facts: func() Facts {
				f := baseFacts()
				f.History.Value = []v1alpha1.Event{configEvent("ADD", "api", time.Hour, web), configEvent("REMOVE", "api", time.Minute, web)}
				f.Namespace = Lookup[*corev1.Namespace]{Err: apierrors.NewNotFound(corev1.Resource("namespaces"), "default")}
				return withPods(f, nameTarget("default", "web"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "binding", msg: "no pod default/web in the API server: namespace default does not exist: the API source removed it at 2026-11-22T11:59:00Z", evidence: "REMOVE from api",
		},
		{
			name: "API pod bound to another node",
			facts: func() Facts {
				f := baseFacts()
				p := specOf(web, "")
				p.Spec.NodeName = "node-2"
				f.APIPod = Lookup[*corev1.Pod]{Value: p}
				return withPods(f, nameTarget("default", "web"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "binding", msg: "bound to node node-2", fix: "kubectl podsrc why node-2 default/web",
		},
		{
			name: "API pod deleted: DELETE is the last notification",
			facts: func() Facts {
				f := baseFacts()
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(web, "")}
				f.History.Value = []v1alpha1.Event{configEvent("ADD", "api", time.Hour, web), configEvent("DELETE", "api", time.Minute, web)}
				return withPods(f, nameTarget("default", "web"), web)
			},
			verdict: v1alpha1.VerdictFailing, stage: "config", msg: "DELETEd by source api",
		},
		{
			name: "a static pod whose mirror pod was deleted last is still configured",
			facts: func() Facts {
				etcd := staticPod("etcd")
				mirror := apiPod(etcd.Namespace, etcd.Name)
				mirror.UID = "uid-mirror"
				return mirroredEtcd(etcd, specOf(etcd, etcd.ConfigHash),
					configEvent("ADD", "file", time.Hour, etcd), configEvent("ADD", "api", time.Minute, mirror), configEvent("DELETE", "api", time.Second, mirror))
			},
			verdict: v1alpha1.VerdictOK,
		},
		{
			name: "API source not seen",
			facts: func() Facts {
				f := baseFacts()
				f.Sources.Items[0].Seen = false
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(web, "")}
				return withPods(f, nameTarget("default", "web"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "api-source", msg: "first list",
		},
		{
			name: "URL source failing",
			facts: func() Facts {
				f := baseFacts()
				failed := metav1.NewTime(testNow.Add(-time.Second))
				f.Sources.Items = append(f.Sources.Items, v1alpha1.Source{Name: v1alpha1.SourceHTTP, Target: "http://config.example/pods", Seen: true,
					LastError: "rejected body: invalid pod: spec.containers: Required value", LastErrorTime: &failed})
				return withPods(f, nameTarget("", "remote"))
			},
			verdict: v1alpha1.VerdictFailing, stage: "url", msg: "rejected body", fix: "curl http://config.example/pods",
			stages: []string{"url", "config", "admission", "mirror", "sandbox", "containers"},
		},
		{
			name: "URL failing after the pod's last good list",
			facts: func() Facts {
				f := baseFacts()
				listed, failed := metav1.NewTime(testNow.Add(-time.Minute)), metav1.NewTime(testNow.Add(-time.Second))
				f.Sources.Items = append(f.Sources.Items, v1alpha1.Source{Name: v1alpha1.SourceHTTP, Target: "http://config.example/pods", Seen: true,
					LastUpdate: &listed, LastError: "Get http://config.example/pods: connection refused", LastErrorTime: &failed})
				p := staticPod("remote")
				p.Source, p.Origin = v1alpha1.SourceHTTP, "http://config.example/pods"
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(p, p.ConfigHash)}
				return withPods(f, nameTarget("", "remote"), p)
			},
			verdict: v1alpha1.VerdictOK,
		},
		{
			name: "a URL's single pod the kubelet warns about: fetched, with the warning",
			facts: func() Facts {
				f := baseFacts()
				listed := metav1.NewTime(testNow.Add(-time.Minute))
				f.Sources.Items = append(f.Sources.Items, v1alpha1.Source{Name: v1alpha1.SourceHTTP, Target: "http://config.example/pods", Seen: true, LastUpdate: &listed, Pods: 1,
					WarnedFiles: []v1alpha1.WarnedFile{{Path: "http://config.example/pods", Pod: "kube-system/remote-node-1", Warnings: []string{"kubelet v1.37 warns: priority 1000 without a priorityClassName"}}}})
				p := staticPod("remote")
				p.Source, p.Origin = v1alpha1.SourceHTTP, "http://config.example/pods"
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(p, p.ConfigHash)}
				return withPods(f, nameTarget("", "remote"), p)
			},
			verdict: v1alpha1.VerdictOK, look: "url", msg: "fetched", evidence: "kubelet v1.37 warns: priority 1000 without a priorityClassName",
		},
		{
			name: "API source failed once, then listed again",
			facts: func() Facts {
				f := baseFacts()
				failed := metav1.NewTime(testNow.Add(-time.Hour))
				f.Sources.Items[0].LastError, f.Sources.Items[0].LastErrorTime = "pods is forbidden", &failed
				f.APIPod = Lookup[*corev1.Pod]{Value: specOf(web, "")}
				return withPods(f, nameTarget("default", "web"), web)
			},
			verdict: v1alpha1.VerdictOK,
		},
	}
}

func TestAnalyze(t *testing.T) {
	for _, tc := range analyzeCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := Analyze(tc.facts())
			if r.Verdict != tc.verdict || r.Stage != tc.stage {
				t.Fatalf("verdict %q at stage %q, want %q at %q:\n%s", r.Verdict, r.Stage, tc.verdict, tc.stage, dump(r))
			}
			if tc.stages != nil {
				var names []string
				for _, s := range r.Stages {
					names = append(names, s.Name)
				}
				if strings.Join(names, ",") != strings.Join(tc.stages, ",") {
					t.Errorf("stages %v, want %v", names, tc.stages)
				}
			}
			look := tc.stage
			if tc.look != "" {
				look = tc.look
			}
			if look == "" {
				return
			}
			var st v1alpha1.WhyStage
			for _, s := range r.Stages {
				if s.Name == look {
					st = s
				}
			}
			if !strings.Contains(st.Message, tc.msg) {
				t.Errorf("message %q lacks %q", st.Message, tc.msg)
			}
			if ev := strings.Join(st.Evidence, "; "); !strings.Contains(ev, tc.evidence) {
				t.Errorf("evidence %q lacks %q", ev, tc.evidence)
			}
			if !strings.Contains(r.Suggestion, tc.fix) {
				t.Errorf("suggestion %q lacks %q", r.Suggestion, tc.fix)
			}
			if tc.notFix != "" && strings.Contains(r.Suggestion, tc.notFix) {
				t.Errorf("suggestion %q has %q", r.Suggestion, tc.notFix)
			}
		})
	}
}

// dump formats a report for a failure message.
func dump(r v1alpha1.WhyReport) string {
	var b strings.Builder
	for _, s := range r.Stages {
		b.WriteString(s.Name + " " + s.Verdict + ": " + s.Message + " [" + strings.Join(s.Evidence, "; ") + "]\n")
	}
	return b.String() + "fix: " + r.Suggestion
}

// seenAgo is a kubernetes.io/config.seen of d before testNow.
func seenAgo(d time.Duration) string {
	return testNow.Add(-d).Format("2006-01-02T15:04:05.000000000Z07:00")
}

// shadowedEtcd is etcd's manifest hidden by the file by, whose pod runs
// (with its mirror pod when mirrored), asked about as t.
func shadowedEtcd(by string, t Target, mirrored bool) Facts {
	f := baseFacts()
	etcd, winner := staticPod("etcd"), staticPod("etcd")
	winner.Origin = by
	fileSource(f).ShadowedFiles = []v1alpha1.ShadowedFile{{Path: etcd.Origin, By: winner.Origin, Pod: "kube-system/" + etcd.Name}}
	if mirrored {
		f.APIPod = Lookup[*corev1.Pod]{Value: specOf(winner, winner.ConfigHash)}
	}
	return withPods(f, t, winner)
}
