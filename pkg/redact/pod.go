package redact

import (
	"reflect"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/merge"
)

// servedAnnotations are the only annotations a projected pod keeps: the
// kubelet's own. Any other annotation's value may carry a secret
// (last-applied-configuration holds the whole spec).
var servedAnnotations = []string{
	merge.ConfigSourceAnnotation,
	merge.ConfigSeenAnnotation,
	merge.ConfigHashAnnotation,
	merge.ConfigMirrorAnnotation,
}

// Pod returns the pod as the agent serves it by default: a new pod
// that holds only the fields on this list, copied from pod, which is left
// as it is. Every other field, including any a later k8s.io/api adds, is
// absent. --expose-pod-specs serves the pod in full instead. It is the only
// pod object the agent serves (PodInfo.Pod of /pods/{uid}); pod lists,
// snapshots, events and the runtime view carry only their own fixed
// fields: names, UIDs, labels, sources, hashes, and the runtime's IDs, states,
// images, restart counts, exit codes, reasons and IPs.
//
// Metadata: name, namespace, uid, resourceVersion, generation, creation and
// deletion timestamps, the deletion grace period, labels, the kubelet's
// annotations (kubernetes.io/config.source, .seen, .hash, .mirror) and the
// owner references (apiVersion, kind, name, uid, controller).
//
// Spec: nodeName, restartPolicy, priority, hostNetwork, hostPID, hostIPC,
// terminationGracePeriodSeconds; for every init, regular and ephemeral
// container: name, image, imagePullPolicy, restartPolicy, ports (name,
// containerPort, hostPort, protocol), resources (requests and limits), the
// liveness, readiness and startup probes and the postStart and preStop
// hooks as their kind with only the port, and for httpGet the scheme and
// the path (query values masked), plus the probes' timings; an exec
// action keeps no command and an httpGet no header. Volumes: name and type
// (the type's own settings left empty).
//
// Status: phase, reason, qosClass, startTime, observedGeneration, hostIP(s),
// podIP(s); conditions' type, status, reason and transition time; for every
// container status: name, image, imageID, containerID, ready, started,
// restartCount, and the current and last state (waiting: reason; running:
// startedAt; terminated: exitCode, signal, reason, startedAt, finishedAt,
// containerID). Messages (the pod's, conditions' and termination messages)
// are never served by default.
func Pod(pod *v1.Pod) *v1.Pod {
	out := &v1.Pod{TypeMeta: pod.TypeMeta, ObjectMeta: projectMeta(pod.ObjectMeta)}

	s := &pod.Spec
	out.Spec = v1.PodSpec{
		NodeName:                      s.NodeName,
		RestartPolicy:                 s.RestartPolicy,
		Priority:                      copyPtr(s.Priority),
		HostNetwork:                   s.HostNetwork,
		HostPID:                       s.HostPID,
		HostIPC:                       s.HostIPC,
		TerminationGracePeriodSeconds: copyPtr(s.TerminationGracePeriodSeconds),
	}
	for i := range s.InitContainers {
		out.Spec.InitContainers = append(out.Spec.InitContainers, projectContainer(&s.InitContainers[i]))
	}
	for i := range s.Containers {
		out.Spec.Containers = append(out.Spec.Containers, projectContainer(&s.Containers[i]))
	}
	for i := range s.EphemeralContainers {
		c := v1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		out.Spec.EphemeralContainers = append(out.Spec.EphemeralContainers,
			v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon(projectContainer(&c))})
	}
	for i := range s.Volumes {
		out.Spec.Volumes = append(out.Spec.Volumes, v1.Volume{Name: s.Volumes[i].Name, VolumeSource: volumeType(s.Volumes[i].VolumeSource)})
	}

	st := &pod.Status
	out.Status = v1.PodStatus{
		Phase:              st.Phase,
		Reason:             st.Reason,
		QOSClass:           st.QOSClass,
		StartTime:          st.StartTime.DeepCopy(),
		ObservedGeneration: st.ObservedGeneration,
		HostIP:             st.HostIP,
		HostIPs:            append([]v1.HostIP(nil), st.HostIPs...),
		PodIP:              st.PodIP,
		PodIPs:             append([]v1.PodIP(nil), st.PodIPs...),
	}
	for _, c := range st.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, v1.PodCondition{
			Type: c.Type, Status: c.Status, Reason: c.Reason, LastTransitionTime: c.LastTransitionTime,
		})
	}
	out.Status.InitContainerStatuses = projectStatuses(st.InitContainerStatuses)
	out.Status.ContainerStatuses = projectStatuses(st.ContainerStatuses)
	out.Status.EphemeralContainerStatuses = projectStatuses(st.EphemeralContainerStatuses)
	return out
}

// projectMeta copies the metadata Pod serves.
func projectMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	out := metav1.ObjectMeta{
		Name:                       m.Name,
		Namespace:                  m.Namespace,
		UID:                        m.UID,
		ResourceVersion:            m.ResourceVersion,
		Generation:                 m.Generation,
		CreationTimestamp:          m.CreationTimestamp,
		DeletionTimestamp:          m.DeletionTimestamp.DeepCopy(),
		DeletionGracePeriodSeconds: copyPtr(m.DeletionGracePeriodSeconds),
	}
	if m.Labels != nil {
		out.Labels = make(map[string]string, len(m.Labels))
		for k, v := range m.Labels {
			out.Labels[k] = v
		}
	}
	for _, k := range servedAnnotations {
		if v, ok := m.Annotations[k]; ok {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
	}
	for _, o := range m.OwnerReferences {
		out.OwnerReferences = append(out.OwnerReferences, metav1.OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID, Controller: copyPtr(o.Controller),
		})
	}
	return out
}

// projectContainer copies the container fields Pod serves.
func projectContainer(c *v1.Container) v1.Container {
	out := v1.Container{
		Name:            c.Name,
		Image:           c.Image,
		ImagePullPolicy: c.ImagePullPolicy,
		RestartPolicy:   copyPtr(c.RestartPolicy),
		Resources:       v1.ResourceRequirements{Requests: c.Resources.Requests.DeepCopy(), Limits: c.Resources.Limits.DeepCopy()},
		LivenessProbe:   projectProbe(c.LivenessProbe),
		ReadinessProbe:  projectProbe(c.ReadinessProbe),
		StartupProbe:    projectProbe(c.StartupProbe),
	}
	for _, p := range c.Ports {
		out.Ports = append(out.Ports, v1.ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort, HostPort: p.HostPort, Protocol: p.Protocol})
	}
	if l := c.Lifecycle; l != nil {
		out.Lifecycle = &v1.Lifecycle{PostStart: projectHook(l.PostStart), PreStop: projectHook(l.PreStop)}
	}
	return out
}

// projectProbe keeps a probe's kind, port, httpGet path and scheme, and
// timings.
func projectProbe(p *v1.Probe) *v1.Probe {
	if p == nil {
		return nil
	}
	h := &p.ProbeHandler
	out := &v1.Probe{
		ProbeHandler: v1.ProbeHandler{
			HTTPGet:   projectHTTPGet(h.HTTPGet),
			TCPSocket: projectTCPSocket(h.TCPSocket),
		},
		InitialDelaySeconds:           p.InitialDelaySeconds,
		TimeoutSeconds:                p.TimeoutSeconds,
		PeriodSeconds:                 p.PeriodSeconds,
		SuccessThreshold:              p.SuccessThreshold,
		FailureThreshold:              p.FailureThreshold,
		TerminationGracePeriodSeconds: copyPtr(p.TerminationGracePeriodSeconds),
	}
	if h.Exec != nil {
		out.Exec = &v1.ExecAction{}
	}
	if h.GRPC != nil {
		out.GRPC = &v1.GRPCAction{Port: h.GRPC.Port}
	}
	return out
}

// projectHook keeps a lifecycle hook's kind, port, httpGet path and scheme,
// and sleep time.
func projectHook(h *v1.LifecycleHandler) *v1.LifecycleHandler {
	if h == nil {
		return nil
	}
	out := &v1.LifecycleHandler{HTTPGet: projectHTTPGet(h.HTTPGet), TCPSocket: projectTCPSocket(h.TCPSocket)}
	if h.Exec != nil {
		out.Exec = &v1.ExecAction{}
	}
	if h.Sleep != nil {
		out.Sleep = &v1.SleepAction{Seconds: h.Sleep.Seconds}
	}
	return out
}

func projectHTTPGet(g *v1.HTTPGetAction) *v1.HTTPGetAction {
	if g == nil {
		return nil
	}
	return &v1.HTTPGetAction{Path: MaskURL(g.Path), Port: g.Port, Scheme: g.Scheme}
}

func projectTCPSocket(t *v1.TCPSocketAction) *v1.TCPSocketAction {
	if t == nil {
		return nil
	}
	return &v1.TCPSocketAction{Port: t.Port}
}

// projectStatuses copies the container status fields Pod serves.
func projectStatuses(in []v1.ContainerStatus) []v1.ContainerStatus {
	var out []v1.ContainerStatus
	for _, c := range in {
		out = append(out, v1.ContainerStatus{
			Name:                 c.Name,
			Image:                c.Image,
			ImageID:              c.ImageID,
			ContainerID:          c.ContainerID,
			Ready:                c.Ready,
			Started:              copyPtr(c.Started),
			RestartCount:         c.RestartCount,
			State:                projectState(c.State),
			LastTerminationState: projectState(c.LastTerminationState),
		})
	}
	return out
}

// projectState keeps a container state without its message.
func projectState(s v1.ContainerState) v1.ContainerState {
	var out v1.ContainerState
	if w := s.Waiting; w != nil {
		out.Waiting = &v1.ContainerStateWaiting{Reason: w.Reason}
	}
	if r := s.Running; r != nil {
		out.Running = &v1.ContainerStateRunning{StartedAt: r.StartedAt}
	}
	if t := s.Terminated; t != nil {
		out.Terminated = &v1.ContainerStateTerminated{
			ExitCode: t.ExitCode, Signal: t.Signal, Reason: t.Reason,
			StartedAt: t.StartedAt, FinishedAt: t.FinishedAt, ContainerID: t.ContainerID,
		}
	}
	return out
}

// volumeType returns a volume source of the same type as vs with none of
// its settings: whichever of its members is set becomes that member's
// empty value. Types a later k8s.io/api adds are covered alike.
func volumeType(vs v1.VolumeSource) v1.VolumeSource {
	var out v1.VolumeSource
	in, o := reflect.ValueOf(vs), reflect.ValueOf(&out).Elem()
	for i := range in.NumField() {
		if f := in.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			o.Field(i).Set(reflect.New(f.Type().Elem()))
		}
	}
	return out
}

// copyPtr returns a pointer to a copy of *p, nil for nil.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
