package why

import (
	"fmt"
	"slices"

	"github.com/podsrc/podsrc/internal/shell"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// maxHistory bounds the notifications a stage quotes.
const maxHistory = 5

// config is the stage of the pod's place in the kubelet's merged
// configuration.
func (a *analysis) config() result {
	name, node := v1alpha1.StageConfig, a.f.Node
	info := a.f.Subject.Info
	if info == nil {
		if r, stop := a.blocked(name, v1alpha1.StageFile, v1alpha1.StageDecode, v1alpha1.StageShadow, v1alpha1.StageURL, v1alpha1.StageBinding, v1alpha1.StageAPISource); stop {
			return r
		}
		ops := a.configOps()
		evidence := formatOps(ops)
		fix := "kubectl podsrc watch --kind config --since 1h " + shell.Operands(node)
		if n := len(ops); n > 0 && (ops[n-1].Op == v1alpha1.OpRemove || ops[n-1].Op == v1alpha1.OpDelete) {
			last := ops[n-1]
			return failing(name, fmt.Sprintf("%sd by source %s at %s", last.Op, last.Source, stamp(last.Time.Time)), fix, evidence...)
		}
		if !a.f.History.Known() {
			evidence = append(evidence, "the agent's history is unknown: "+a.f.History.Why())
		}
		return failing(name, "pod "+a.podRef()+" is not in the kubelet's merged configuration", fix, evidence...)
	}
	evidence := []string{"uid " + string(info.UID)}
	if info.ConfigHash != "" {
		evidence = append(evidence, "config.hash "+info.ConfigHash)
	}
	if info.FirstSeen != "" {
		evidence = append(evidence, "first seen "+info.FirstSeen)
	}
	ops := a.configOps()
	evidence = append(evidence, formatOps(ops)...)
	if d := a.f.Detail.Value; d != nil && d.Pod != nil && d.Pod.DeletionTimestamp != nil {
		return failing(name, "the pod is being deleted since "+stamp(d.Pod.DeletionTimestamp.Time)+": the kubelet stops it",
			"kubectl get pod -n "+shell.Quote(info.Namespace)+" -o yaml "+shell.Operands(info.Name)+" (deletionTimestamp, finalizers)", evidence...)
	}
	// The pod's own notifications: a static pod's mirror pod shares its
	// name, and a DELETE of the mirror pod does not stop the static pod.
	own := slices.DeleteFunc(slices.Clone(ops), func(ev v1alpha1.Event) bool {
		return !slices.ContainsFunc(ev.Pods, func(p v1alpha1.PodRef) bool { return p.UID == info.UID })
	})
	if n := len(own); n > 0 && own[n-1].Op == v1alpha1.OpDelete {
		return failing(name, "DELETEd by source "+own[n-1].Source+" at "+stamp(own[n-1].Time.Time)+": the kubelet stops the pod",
			"kubectl podsrc watch --kind config --since 1h "+shell.Operands(node), evidence...)
	}
	return ok(name, "in the merged configuration from source "+info.Source, evidence...)
}

// configOps returns the config notifications about the subject's pod (its
// UID, or its namespace and name), oldest first.
func (a *analysis) configOps() []v1alpha1.Event {
	var out []v1alpha1.Event
	s := a.f.Subject
	for _, ev := range a.f.History.Value {
		if ev.Kind != v1alpha1.EventKindConfig {
			continue
		}
		for _, p := range ev.Pods {
			if (s.Info != nil && p.UID == s.Info.UID) || (s.Name != "" && p.Name == s.Name && p.Namespace == s.Namespace) {
				out = append(out, ev)
				break
			}
		}
	}
	return out
}

// formatOps describes the last notifications.
func formatOps(ops []v1alpha1.Event) []string {
	if len(ops) > maxHistory {
		ops = ops[len(ops)-maxHistory:]
	}
	var out []string
	for _, ev := range ops {
		out = append(out, fmt.Sprintf("%s from %s at %s", ev.Op, ev.Source, stamp(ev.Time.Time)))
	}
	return out
}
