package why

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

const (
	testNode = "node-1"
	testDir  = "/etc/kubernetes/manifests"
)

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func ptrTime(t time.Time) *metav1.Time { mt := metav1.NewTime(t); return &mt }

func at(d time.Duration) metav1.MicroTime { return metav1.NewMicroTime(testNow.Add(-d)) }

var podsResource = schema.GroupResource{Resource: "pods"}

// baseFacts are a healthy node with a file and an API source and nothing
// asked yet of the API server but the node.
func baseFacts() Facts {
	seen := metav1.NewTime(testNow.Add(-time.Minute))
	return Facts{
		Node: testNode, Now: testNow,
		Sources: &v1alpha1.SourceList{NodeName: testNode, AllSourcesSeen: true, Items: []v1alpha1.Source{
			{Name: v1alpha1.SourceAPI, Target: "https://10.0.0.1:6443", Seen: true, LastUpdate: &seen, Pods: 1},
			{Name: v1alpha1.SourceFile, Target: testDir, Seen: true, LastUpdate: &seen, Pods: 1},
		}},
		PLEG:       &v1alpha1.PLEGStatus{NodeName: testNode, Enabled: true, Healthy: true},
		History:    Lookup[[]v1alpha1.Event]{Value: []v1alpha1.Event{}},
		NodeObject: Lookup[*corev1.Node]{Value: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: testNode}}},
		APIPod:     Lookup[*corev1.Pod]{Err: apierrors.NewNotFound(podsResource, "x")},
		PodEvents:  Lookup[[]corev1.Event]{Value: []corev1.Event{}},
		NodeEvents: Lookup[[]corev1.Event]{Value: []corev1.Event{}},
	}
}

// running is a runtime pod with a ready sandbox and its containers running.
func running(containers ...string) *v1alpha1.RuntimePod {
	rt := &v1alpha1.RuntimePod{SandboxID: "sandbox0123456789abcdef", SandboxState: "ready", IPs: []string{"10.0.0.5"}}
	for _, c := range containers {
		rt.Containers = append(rt.Containers, v1alpha1.RuntimeContainer{ID: "containerd://" + c + "0123456789abcdef", Name: c, State: "running"})
	}
	return rt
}

// staticPod is a running static pod from dir/name.yaml.
func staticPod(name string) v1alpha1.PodInfo {
	return v1alpha1.PodInfo{
		Name: name + "-" + testNode, Namespace: "kube-system", UID: types.UID("uid-" + name), Source: v1alpha1.SourceFile,
		Static: true, ConfigHash: "uid-" + name, Origin: testDir + "/" + name + ".yaml", Runtime: running(name),
		Admission: &v1alpha1.Admission{Admitted: true},
	}
}

// apiPod is a running pod of the API server.
func apiPod(ns, name string) v1alpha1.PodInfo {
	return v1alpha1.PodInfo{Name: name, Namespace: ns, UID: types.UID("uid-" + name), Source: v1alpha1.SourceAPI, Runtime: running(name),
		Admission: &v1alpha1.Admission{Admitted: true, ReadBack: true}}
}

// specOf is the pod of the API server (or mirror) that goes with info.
func specOf(info v1alpha1.PodInfo, mirrorHash string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: info.Name, Namespace: info.Namespace, UID: info.UID},
		Spec:       corev1.PodSpec{NodeName: testNode, RestartPolicy: corev1.RestartPolicyAlways},
	}
	if mirrorHash != "" {
		p.UID = "mirror-" + info.UID
		p.Annotations = map[string]string{configMirrorAnnotation: mirrorHash}
	}
	for _, c := range info.Runtime.Containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c.Name, Image: "registry.example/" + c.Name + ":1"})
	}
	return p
}

// withPods adds the pods to the agent's answer and locates t.
func withPods(f Facts, t Target, pods ...v1alpha1.PodInfo) Facts {
	f.Pods = append(f.Pods, pods...)
	f.Target = t
	s, err := NewLocator(f.Node, f.Sources, f.Pods).Locate(t)
	if err != nil {
		panic(err)
	}
	f.Subject = s
	return f
}

// rejectedManifest is the facts of the manifest testDir/file, which the file
// source has rejected with err since testNow, asked for as t.
func rejectedManifest(file, err string, t Target) Facts {
	f := baseFacts()
	fileSource(f).RejectedFiles = []v1alpha1.RejectedFile{{Path: testDir + "/" + file, Error: err, Since: metav1.NewTime(testNow)}}
	return withPods(f, t)
}

// mirroredEtcd is the facts of the static pod p (etcd's, as the agent has
// it) asked for by its manifest's path, with its mirror pod in the API server
// and, when given, the PLEG's history of it.
func mirroredEtcd(p v1alpha1.PodInfo, mirror *corev1.Pod, history ...v1alpha1.Event) Facts {
	f := baseFacts()
	f.APIPod = Lookup[*corev1.Pod]{Value: mirror}
	if len(history) > 0 {
		f.History.Value = history
	}
	return withPods(f, pathTarget(p.Origin), p)
}

// fileSource returns the facts' file source.
func fileSource(f Facts) *v1alpha1.Source { return findSource(f.Sources, v1alpha1.SourceFile) }

func pathTarget(p string) Target { return Target{Raw: p, Path: p} }

func nameTarget(ns, name string) Target {
	raw := name
	if ns != "" {
		raw = ns + "/" + name
	}
	return Target{Raw: raw, Namespace: ns, Name: name}
}

func configEvent(op, source string, d time.Duration, p v1alpha1.PodInfo) v1alpha1.Event {
	return v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: op, Source: source, Time: at(d),
		Pods: []v1alpha1.PodRef{{Name: p.Name, Namespace: p.Namespace, UID: p.UID}}}
}

func diedEvent(p v1alpha1.PodInfo, container string, code int, d time.Duration) v1alpha1.Event {
	return v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerDied", PodUID: p.UID, PodName: p.Name,
		Namespace: p.Namespace, ContainerName: container, ExitCode: &code, Time: at(d)}
}

// owned gives pod a ReplicaSet as its controller.
func owned(pod *corev1.Pod) *corev1.Pod {
	yes := true
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: pod.Name + "-5d8f", UID: "rs-uid", Controller: &yes}}
	return pod
}

// rejectedAPI is the facts of the API pod default/hog, which the kubelet
// rejected for reason, beside the running pod default/web that holds
// host port 80; change edits hog's pod (which has no controller) and the
// node before the pods are located.
func rejectedAPI(reason string, change func(pod *corev1.Pod, node *corev1.Node)) func() Facts {
	return func() Facts {
		hog, web := apiPod("default", "hog"), apiPod("default", "web")
		hog.Runtime = nil
		hog.Admission = &v1alpha1.Admission{Reason: reason, ReadBack: true}
		web.Pod = specOf(web, "")
		web.Pod.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}}
		f := baseFacts()
		pod := specOf(apiPod("default", "hog"), "")
		if change != nil {
			change(pod, f.NodeObject.Value)
		}
		f.APIPod = Lookup[*corev1.Pod]{Value: pod}
		return withPods(f, nameTarget("default", "hog"), hog, web)
	}
}
