package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// inputAnnotationPrefixes start the annotations, besides the kubelet's own,
// that an input pod keeps: the kubelet's admit handlers read them, and they
// name profiles, not secrets.
var inputAnnotationPrefixes = []string{
	"container.apparmor.security.beta.kubernetes.io/",
	"seccomp.security.alpha.kubernetes.io/",
	"container.seccomp.security.alpha.kubernetes.io/",
}

// InputPod returns pod as an input event records it without
// --expose-pod-specs (v1alpha1.Input.Redacted): a new pod that holds only
// the fields on this list, so that the merge and the kubelet's admit
// handlers replay on what they judged by, copied from pod, which is left
// as it is. Every other field, including any a later k8s.io/api adds, is
// absent. A field a later kubelet's handler reads and this list lacks
// makes a replay differ, never a secret leave the node.
//
// Metadata: as Pod serves it, plus the annotations naming AppArmor and
// seccomp profiles. Status: as Pod serves it, and a rejection's message
// when the kubelet wrote it whole (admission.QuotedRejection; another
// rejection keeps the kubelet's prefix alone, by which its verdict is read
// back). Spec: what places and sizes the pod (nodeName, nodeSelector,
// affinity, tolerations, os, priority and its class, preemption policy,
// runtime class, overhead, resources, resource claims, scheduling gates,
// restart policy, grace and deadline), its host namespaces and user
// namespace, its security context, and its volumes by name and type; for
// every container: name, image and pull policy, ports, resources, resize
// and restart policies and rules, volume mounts and devices, security
// context, the probes and hooks as Pod serves them, and its termination
// message settings. Without: environment, commands and arguments, working
// directories, DNS settings and host aliases, service accounts, image pull
// secrets, a Windows security context's GMSA credential spec, and the
// volumes' settings.
//
// Annotation v1alpha1.RedactedDigestAnnotation is a digest of the whole
// spec and annotations, and condition v1alpha1.RedactedDigestCondition of
// the whole status, each keyed by key: two pods differ in them exactly
// when they differ in what they stand for, so the merge finds the same
// updates and reconciles. key must be the agent process's own and never
// served: the digests then say nothing of the values.
func InputPod(pod *v1.Pod, key []byte) *v1.Pod {
	served := Pod(pod)
	out := &v1.Pod{TypeMeta: pod.TypeMeta, ObjectMeta: served.ObjectMeta, Spec: inputSpec(&pod.Spec), Status: served.Status}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	for k, v := range pod.Annotations {
		for _, p := range inputAnnotationPrefixes {
			if strings.HasPrefix(k, p) {
				out.Annotations[k] = v
			}
		}
	}
	out.Annotations[v1alpha1.RedactedDigestAnnotation] = digest(key, struct {
		Spec        *v1.PodSpec       `json:"spec"`
		Annotations map[string]string `json:"annotations"`
	}{&pod.Spec, pod.Annotations})

	switch m := pod.Status.Message; {
	case admission.QuotedRejection(m):
		out.Status.Message = m
	case strings.HasPrefix(m, admission.RejectedPrefix):
		out.Status.Message = admission.RejectedPrefix
	}
	out.Status.Conditions = append(out.Status.Conditions, v1.PodCondition{
		Type: v1alpha1.RedactedDigestCondition, Status: v1.ConditionTrue, Reason: digest(key, &pod.Status),
	})
	return out
}

// inputSpec copies the spec fields InputPod keeps.
func inputSpec(s *v1.PodSpec) v1.PodSpec {
	out := v1.PodSpec{
		NodeName:                      s.NodeName,
		NodeSelector:                  s.NodeSelector,
		Affinity:                      s.Affinity.DeepCopy(),
		Tolerations:                   s.Tolerations,
		OS:                            s.OS.DeepCopy(),
		Priority:                      copyPtr(s.Priority),
		PriorityClassName:             s.PriorityClassName,
		PreemptionPolicy:              copyPtr(s.PreemptionPolicy),
		RuntimeClassName:              copyPtr(s.RuntimeClassName),
		Overhead:                      s.Overhead.DeepCopy(),
		Resources:                     s.Resources.DeepCopy(),
		ResourceClaims:                s.ResourceClaims,
		SchedulingGates:               s.SchedulingGates,
		RestartPolicy:                 s.RestartPolicy,
		TerminationGracePeriodSeconds: copyPtr(s.TerminationGracePeriodSeconds),
		ActiveDeadlineSeconds:         copyPtr(s.ActiveDeadlineSeconds),
		HostNetwork:                   s.HostNetwork,
		HostPID:                       s.HostPID,
		HostIPC:                       s.HostIPC,
		ShareProcessNamespace:         copyPtr(s.ShareProcessNamespace),
		HostUsers:                     copyPtr(s.HostUsers),
		SecurityContext:               s.SecurityContext.DeepCopy(),
	}
	if sc := out.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		sc.WindowsOptions.GMSACredentialSpec = nil
	}
	for i := range s.InitContainers {
		out.InitContainers = append(out.InitContainers, inputContainer(&s.InitContainers[i]))
	}
	for i := range s.Containers {
		out.Containers = append(out.Containers, inputContainer(&s.Containers[i]))
	}
	for i := range s.EphemeralContainers {
		c := v1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		out.EphemeralContainers = append(out.EphemeralContainers, v1.EphemeralContainer{
			EphemeralContainerCommon: v1.EphemeralContainerCommon(inputContainer(&c)),
			TargetContainerName:      s.EphemeralContainers[i].TargetContainerName,
		})
	}
	for i := range s.Volumes {
		out.Volumes = append(out.Volumes, v1.Volume{Name: s.Volumes[i].Name, VolumeSource: volumeType(s.Volumes[i].VolumeSource)})
	}
	return out
}

// inputContainer copies the container fields InputPod keeps: those Pod
// serves, and what the admit handlers judge a container by.
func inputContainer(c *v1.Container) v1.Container {
	out := projectContainer(c)
	if c.Lifecycle != nil {
		out.Lifecycle.StopSignal = copyPtr(c.Lifecycle.StopSignal)
	}
	out.Resources = *c.Resources.DeepCopy()
	out.ResizePolicy = c.ResizePolicy
	// restartPolicyRules came with k8s.io/api v0.34: named, it is kept
	// where the build's API has it.
	keepFields(&out, c, "RestartPolicyRules")
	out.VolumeMounts = c.VolumeMounts
	out.VolumeDevices = c.VolumeDevices
	out.SecurityContext = c.SecurityContext.DeepCopy()
	if sc := out.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		sc.WindowsOptions.GMSACredentialSpec = nil
	}
	out.TerminationMessagePath, out.TerminationMessagePolicy = c.TerminationMessagePath, c.TerminationMessagePolicy
	return out
}

// keepFields copies the named fields of *src into *dst (both of one struct
// type), each where the type has it: for the fields some minors' API
// lacks.
func keepFields[T any](dst, src *T, names ...string) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for _, n := range names {
		if f := s.FieldByName(n); f.IsValid() {
			d.FieldByName(n).Set(f)
		}
	}
}

// digest is the hex HMAC-SHA256 under key of v's JSON.
func digest(key []byte, v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		// The API types always marshal; a failure must still hide the
		// values and differ from every digest.
		raw = []byte(err.Error())
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(raw)
	return hex.EncodeToString(mac.Sum(nil))
}
