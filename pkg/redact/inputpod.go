package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
// --expose-pod-specs (v1alpha1.Input.Redacted): whole, so that the merge
// and the admit handlers replay on what they judged, but for the fields
// that may hold a secret, which are cleared. These are every container's
// environment, command and arguments, its probes' and lifecycle hooks'
// commands, headers and path queries (kept as Pod serves them), every
// volume's settings (its type kept), the annotations other than the
// kubelet's and those its admit handlers read, the managed fields, and
// the status's messages.
//
// What was cleared from the spec and the annotations is replaced by the
// annotation v1alpha1.RedactedDigestAnnotation, and the status's messages by
// the condition v1alpha1.RedactedDigestCondition (a rejection's message by
// the kubelet's prefix, unless the kubelet wrote it whole, which stays):
// each a digest keyed by key, so that two pods differ
// in it exactly when they differ in what it stands for, and the merge
// finds the same changes (spec and annotations are compared for an update,
// the status for a reconcile). key must be the agent process's own and
// never served: the digests then say nothing of the values. pod is left as
// it is.
func InputPod(pod *v1.Pod, key []byte) *v1.Pod {
	out := pod.DeepCopy()
	out.ManagedFields = nil

	var cleared clearedSpec
	for k, v := range out.Annotations {
		if keptInputAnnotation(k) {
			continue
		}
		if cleared.Annotations == nil {
			cleared.Annotations = map[string]string{}
		}
		cleared.Annotations[k] = v
		delete(out.Annotations, k)
	}
	for i := range out.Spec.InitContainers {
		cleared.Containers = append(cleared.Containers, clearContainer(&out.Spec.InitContainers[i]))
	}
	for i := range out.Spec.Containers {
		cleared.Containers = append(cleared.Containers, clearContainer(&out.Spec.Containers[i]))
	}
	for i := range out.Spec.EphemeralContainers {
		c := v1.Container(out.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		cleared.Containers = append(cleared.Containers, clearContainer(&c))
		out.Spec.EphemeralContainers[i].EphemeralContainerCommon = v1.EphemeralContainerCommon(c)
	}
	for i := range out.Spec.Volumes {
		cleared.Volumes = append(cleared.Volumes, out.Spec.Volumes[i].VolumeSource)
		out.Spec.Volumes[i].VolumeSource = volumeType(out.Spec.Volumes[i].VolumeSource)
	}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[v1alpha1.RedactedDigestAnnotation] = digest(key, cleared)

	// A rejection keeps its prefix, by which the kubelet's verdict is read
	// back (admission.KubeletVerdict).
	rejected := strings.HasPrefix(out.Status.Message, admission.RejectedPrefix)
	if messages := clearMessages(&out.Status); len(messages) > 0 {
		if rejected && out.Status.Message == "" {
			out.Status.Message = admission.RejectedPrefix
		}
		out.Status.Conditions = append(out.Status.Conditions, v1.PodCondition{
			Type: v1alpha1.RedactedDigestCondition, Status: v1.ConditionTrue, Reason: digest(key, messages),
		})
	}
	return out
}

// keptInputAnnotation reports whether an input pod keeps the annotation.
func keptInputAnnotation(k string) bool {
	for _, s := range servedAnnotations {
		if k == s {
			return true
		}
	}
	for _, p := range inputAnnotationPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// clearedSpec is what InputPod clears from a pod's metadata and spec.
type clearedSpec struct {
	Annotations map[string]string  `json:"annotations,omitempty"`
	Containers  []clearedContainer `json:"containers,omitempty"`
	Volumes     []v1.VolumeSource  `json:"volumes,omitempty"`
}

// clearedContainer is what InputPod clears from a container.
type clearedContainer struct {
	Env       []v1.EnvVar        `json:"env,omitempty"`
	EnvFrom   []v1.EnvFromSource `json:"envFrom,omitempty"`
	Command   []string           `json:"command,omitempty"`
	Args      []string           `json:"args,omitempty"`
	Liveness  *v1.Probe          `json:"liveness,omitempty"`
	Readiness *v1.Probe          `json:"readiness,omitempty"`
	Startup   *v1.Probe          `json:"startup,omitempty"`
	Lifecycle *v1.Lifecycle      `json:"lifecycle,omitempty"`
}

// clearContainer clears c's fields that may hold a secret and returns
// them.
func clearContainer(c *v1.Container) clearedContainer {
	cc := clearedContainer{
		Env: c.Env, EnvFrom: c.EnvFrom, Command: c.Command, Args: c.Args,
		Liveness: c.LivenessProbe, Readiness: c.ReadinessProbe, Startup: c.StartupProbe, Lifecycle: c.Lifecycle,
	}
	c.Env, c.EnvFrom, c.Command, c.Args = nil, nil, nil, nil
	c.LivenessProbe, c.ReadinessProbe, c.StartupProbe = projectProbe(c.LivenessProbe), projectProbe(c.ReadinessProbe), projectProbe(c.StartupProbe)
	if l := c.Lifecycle; l != nil {
		c.Lifecycle = &v1.Lifecycle{PostStart: projectHook(l.PostStart), PreStop: projectHook(l.PreStop), StopSignal: l.StopSignal}
	}
	return cc
}

// clearMessages clears the status's messages (the pod's, its conditions'
// and its containers' states') and returns them, in their order. A
// rejection the kubelet wrote whole stays: the agent serves it anyway
// (admission.QuotedRejection), and a replay reads it back as the agent
// did.
func clearMessages(st *v1.PodStatus) []string {
	var messages []string
	take := func(s *string) {
		messages = append(messages, *s)
		*s = ""
	}
	if st.Message != "" && !admission.QuotedRejection(st.Message) {
		take(&st.Message)
	}
	for i := range st.Conditions {
		if st.Conditions[i].Message != "" {
			take(&st.Conditions[i].Message)
		}
	}
	for _, statuses := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for i := range statuses {
			for _, s := range []*v1.ContainerState{&statuses[i].State, &statuses[i].LastTerminationState} {
				if s.Waiting != nil && s.Waiting.Message != "" {
					take(&s.Waiting.Message)
				}
				if s.Terminated != nil && s.Terminated.Message != "" {
					take(&s.Terminated.Message)
				}
			}
		}
	}
	return messages
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
