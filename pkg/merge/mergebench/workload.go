// Package mergebench generates the pod lists the merge benchmarks feed to
// pkg/merge, and that a side-by-side run feeds to the kubelet's own pod
// config: API-server pods of realistic size, a fraction of which change
// between two lists the way the API server would change them.
package mergebench

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Workload is a source's pod list that changes a little at every step.
type Workload struct {
	pods    []*v1.Pod
	rv      int
	step    int
	changed int
}

// NewWorkload returns a list of n pods of which changePercent percent (at
// least one) change at every step.
func NewWorkload(n int, changePercent int) *Workload {
	w := &Workload{pods: make([]*v1.Pod, n)}
	for i := range w.pods {
		w.rv++
		w.pods[i] = Pod(i, w.rv)
	}
	w.changed = max(1, n*changePercent/100)
	return w
}

// Current returns deep copies of the current pods, and their resource
// versions as an API source would fingerprint them.
func (w *Workload) Current() ([]*v1.Pod, []string) {
	pods := make([]*v1.Pod, len(w.pods))
	fps := make([]string, len(w.pods))
	for i, p := range w.pods {
		pods[i] = p.DeepCopy()
		fps[i] = p.ResourceVersion
	}
	return pods, fps
}

// Advance changes the next pods in turn: a new image, a new label or, for a
// third of them, only the status; each changed pod gets a new resource version.
func (w *Workload) Advance() {
	for range w.changed {
		i := w.step % len(w.pods)
		p := w.pods[i].DeepCopy()
		switch w.step % 3 {
		case 0:
			p.Spec.Containers[0].Image = fmt.Sprintf("registry.example/app:%d", w.step)
		case 1:
			p.Labels["revision"] = strconv.Itoa(w.step)
		case 2:
			p.Status.Conditions[0].LastProbeTime = metav1.Unix(int64(1700000000+w.step), 0)
		}
		w.rv++
		p.ResourceVersion = strconv.Itoa(w.rv)
		w.pods[i] = p
		w.step++
	}
}

// Pod returns the i-th pod of a workload: two containers with env,
// resources and probes, labels, annotations, an owner, and a running status.
func Pod(i, rv int) *v1.Pod {
	name := fmt.Sprintf("web-%d", i)
	uid := types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
	start := metav1.Unix(1700000000, 0)
	container := func(cname, image string, port int32) v1.Container {
		return v1.Container{
			Name:  cname,
			Image: image,
			Args:  []string{"--listen", fmt.Sprintf(":%d", port), "--log-level", "info"},
			Ports: []v1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: v1.ProtocolTCP}},
			Env: []v1.EnvVar{
				{Name: "POD_NAME", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
				{Name: "MODE", Value: "production"},
				{Name: "CACHE_SIZE", Value: "512"},
			},
			Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("256Mi")},
			},
			LivenessProbe: &v1.Probe{
				ProbeHandler:        v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(port), Scheme: v1.URISchemeHTTP}},
				InitialDelaySeconds: 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
			},
			ReadinessProbe: &v1.Probe{
				ProbeHandler:   v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(port), Scheme: v1.URISchemeHTTP}},
				TimeoutSeconds: 1, PeriodSeconds: 5, SuccessThreshold: 1, FailureThreshold: 3,
			},
			VolumeMounts:             []v1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			TerminationMessagePath:   "/dev/termination-log",
			TerminationMessagePolicy: v1.TerminationMessageReadFile,
			ImagePullPolicy:          v1.PullIfNotPresent,
		}
	}
	status := func(cname, image string) v1.ContainerStatus {
		return v1.ContainerStatus{
			Name: cname, Image: image, ImageID: "registry.example/" + cname + "@sha256:0123456789abcdef",
			ContainerID: fmt.Sprintf("containerd://%064d", i), Ready: true, Started: ptr.To(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: start}},
		}
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: uid, ResourceVersion: strconv.Itoa(rv),
			Generation: 1, CreationTimestamp: start, GenerateName: "web-",
			Labels:      map[string]string{"app": "web", "tier": "frontend", "pod-template-hash": "5d8f7c9b6"},
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "8080"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f7c9b6", UID: "11111111-2222-4333-8444-555555555555",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: v1.PodSpec{
			Containers: []v1.Container{container("app", "registry.example/app:1.0", 8080), container("sidecar", "registry.example/proxy:2.3", 9090)},
			Volumes: []v1.Volume{{Name: "kube-api-access", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{
				Sources: []v1.VolumeProjection{{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}}},
			}}}},
			RestartPolicy: v1.RestartPolicyAlways, TerminationGracePeriodSeconds: ptr.To[int64](30),
			DNSPolicy: v1.DNSClusterFirst, ServiceAccountName: "default", NodeName: "node-1",
			SecurityContext: &v1.PodSecurityContext{}, SchedulerName: "default-scheduler",
			Tolerations: []v1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
				{Key: "node.kubernetes.io/unreachable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			},
			Priority: ptr.To[int32](0), EnableServiceLinks: ptr.To(true), PreemptionPolicy: ptr.To(v1.PreemptLowerPriority),
		},
		Status: v1.PodStatus{
			Phase: v1.PodRunning,
			Conditions: []v1.PodCondition{
				{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: start},
				{Type: v1.ContainersReady, Status: v1.ConditionTrue, LastTransitionTime: start},
				{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: start},
			},
			HostIP: "10.0.0.1", PodIP: fmt.Sprintf("10.244.%d.%d", i/250, i%250+2), StartTime: &start, QOSClass: v1.PodQOSBurstable,
			ContainerStatuses: []v1.ContainerStatus{status("app", "registry.example/app:1.0"), status("sidecar", "registry.example/proxy:2.3")},
		},
	}
}
