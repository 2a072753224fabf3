package agent

import (
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/pleg/plegstats"
	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// timePtr returns nil for the zero time, so that JSON omits it.
func timePtr(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t)
	return &mt
}

// sourceInfo combines what the merge counted of a source with the source's
// own status; expose is --expose-pod-specs.
func sourceInfo(name string, st *source.Status, ms *merge.SourceStats, expose bool) v1alpha1.Source {
	out := v1alpha1.Source{Name: name}
	if ms != nil {
		out.Seen = ms.Seen
		out.Pods = ms.Pods
		out.Updates = ms.Updates
		out.LastUpdate = timePtr(ms.LastUpdate)
	}
	if st == nil {
		return out
	}
	// The sources mask their own URLs, and the decoder leaves the
	// manifest's content out of its errors; a manifest's error may still
	// name a URL with credentials of the manifest's.
	served := func(msg, unredacted string) string {
		if expose {
			return unredacted
		}
		return redact.MaskURLs(msg)
	}
	out.Target = redact.MaskURLs(st.Target)
	out.LastError = served(st.LastError, st.LastErrorUnredacted)
	out.LastErrorTime = timePtr(st.LastErrorTime)
	if c := st.Cleared; c.Error != "" {
		out.ClearedError = &v1alpha1.ClearedError{Error: served(c.Error, c.Error), Time: metav1.NewTime(c.Time), ClearedTime: metav1.NewTime(c.ClearedTime)}
	}
	for _, r := range st.Rejected {
		out.RejectedFiles = append(out.RejectedFiles, v1alpha1.RejectedFile{Path: r.Path, Error: served(r.Error, r.Unredacted), Since: metav1.NewTime(r.FirstSeen)})
	}
	for _, s := range st.Shadowed {
		out.ShadowedFiles = append(out.ShadowedFiles, v1alpha1.ShadowedFile{Path: s.Path, By: s.By, Pod: s.Pod})
	}
	for _, w := range st.Warned {
		out.WarnedFiles = append(out.WarnedFiles, v1alpha1.WarnedFile{Path: w.Path, Pod: w.Pod, Warnings: slices.Clone(w.Warnings)})
	}
	return out
}

// podInfo describes a configured pod with its admission verdict; a static
// pod's origin is masked as the sources mask it.
func podInfo(s syncloop.Sourced) v1alpha1.PodInfo {
	p := s.Pod
	info := v1alpha1.PodInfo{
		Name:          p.Name,
		Namespace:     p.Namespace,
		UID:           p.UID,
		Labels:        maps.Clone(p.Labels),
		Source:        s.Source,
		ConfigHash:    p.Annotations[merge.ConfigHashAnnotation],
		ConfigMirror:  p.Annotations[merge.ConfigMirrorAnnotation],
		FirstSeen:     p.Annotations[merge.ConfigSeenAnnotation],
		Containers:    specContainers(p.Spec),
		RestartPolicy: string(p.Spec.RestartPolicy),
	}
	if s.Admission != nil {
		v := *s.Admission
		info.Admission = &v
	}
	info.Static = s.Source == v1alpha1.SourceFile || s.Source == v1alpha1.SourceHTTP
	if info.Static {
		info.Origin = redact.MaskURLs(s.Origin)
		info.APIReferences = redact.APIReferences(p)
	}
	_, info.Mirror = p.Annotations[merge.ConfigMirrorAnnotation]
	return info
}

// specContainers returns the names of the containers a pod spec runs, as
// kubectl counts them: its sidecars (init containers that restart always)
// and its containers.
func specContainers(spec v1.PodSpec) []string {
	var out []string
	for _, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			out = append(out, c.Name)
		}
	}
	for _, c := range spec.Containers {
		out = append(out, c.Name)
	}
	return out
}

// runtimePod describes what the PLEG saw of a pod: the listing for states
// and the status cache for exit codes, restart counts and IPs.
func runtimePod(rp pleg.RuntimePod, cached pleg.CachedPod, haveCache bool) *v1alpha1.RuntimePod {
	out := &v1alpha1.RuntimePod{}
	if len(rp.Sandboxes) > 0 {
		out.SandboxID = rp.Sandboxes[0].ID
		out.SandboxState = sandboxStateName(rp.Sandboxes[0].State)
	}
	statuses := map[string]pleg.ContainerStatus{}
	if haveCache {
		out.Error = cached.Error
		if cached.Status != nil {
			out.IPs = cached.Status.IPs
			for _, c := range cached.Status.Containers {
				statuses[c.ID] = c
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range rp.Containers {
		// Containers are newest first: the first of a name is its current one.
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		rc := v1alpha1.RuntimeContainer{ID: c.ID, Name: c.Name, State: string(c.State)}
		if st, ok := statuses[c.ID]; ok {
			rc.Image = st.Image
			rc.RestartCount = st.RestartCount
			rc.ExitCode = st.ExitCode
			rc.Reason = st.Reason
			rc.StartedAt = timePtr(st.StartedAt)
			rc.FinishedAt = timePtr(st.FinishedAt)
		}
		out.Containers = append(out.Containers, rc)
	}
	return out
}

// sandboxStateName names a sandbox state as CRI clients show it.
func sandboxStateName(s pleg.ContainerState) string {
	switch s {
	case pleg.StateRunning:
		return v1alpha1.SandboxReady
	case pleg.StateExited:
		return v1alpha1.SandboxNotReady
	}
	return string(s)
}

// latency converts a PLEG latency summary.
func latency(s plegstats.LatencySummary) v1alpha1.Latency {
	return v1alpha1.Latency{Count: s.Count, Last: s.LastSeconds, P50: s.P50Seconds, P99: s.P99Seconds, Max: s.WindowMaxSeconds}
}

// servedPod returns the pod as the agent serves it: projected unless
// --expose-pod-specs, and then the view's own pod, which nobody changes
// (the merge shares its pods; see merge.PodUpdate).
func servedPod(p *v1.Pod, expose bool) *v1.Pod {
	if expose {
		return p
	}
	return redact.Pod(p)
}
