package syncloop

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/redact"
)

// ConfigEvent turns a notification of the merge into an event; a pod's
// origin is masked as the sources mask it, and its decoder's warnings go
// with it.
func ConfigEvent(u merge.PodUpdate) v1alpha1.Event {
	e := v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: u.Op.String(), Source: u.Source, Pods: make([]v1alpha1.PodRef, len(u.Pods))}
	for i, p := range u.Pods {
		e.Pods[i] = v1alpha1.PodRef{Name: p.Name, Namespace: p.Namespace, UID: p.UID, Labels: maps.Clone(p.Labels)}
		if i < len(u.Origins) {
			e.Pods[i].Origin = redact.MaskURLs(u.Origins[i])
		}
		if i < len(u.Warnings) {
			e.Pods[i].Warnings = slices.Clone(u.Warnings[i])
		}
	}
	return e
}

// WithAdmissions sets the admission verdicts on an ADD's pods, by UID, on
// its event.
func WithAdmissions(e *v1alpha1.Event, verdicts map[types.UID]v1alpha1.Admission) {
	for i, p := range e.Pods {
		if v, ok := verdicts[p.UID]; ok {
			e.Pods[i].Admission = &v
		}
	}
}

// plegEvent turns a pod lifecycle event into an event; podLabels are the
// labels of the pod as configured.
func plegEvent(r pleg.ComputedEvent, podLabels map[string]string) v1alpha1.Event {
	sends := r.KubeletSends && r.Outcome != pleg.OutcomeDropped
	return v1alpha1.Event{
		Kind:          v1alpha1.EventKindPLEG,
		Time:          metav1.NewMicroTime(r.Time),
		PodUID:        r.ID,
		PodName:       r.PodName,
		Namespace:     r.PodNamespace,
		Type:          string(r.Type),
		Data:          r.Data,
		Sandbox:       r.Sandbox,
		ContainerName: r.ContainerName,
		Labels:        maps.Clone(podLabels),
		KubeletSends:  &sends,
		ExitCode:      r.ExitCode,
	}
}
