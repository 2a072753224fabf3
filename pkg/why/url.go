package why

import (
	"fmt"

	"github.com/podsrc/podsrc/internal/shell"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// url is the stage of the static pod URL's last fetch. A failed fetch
// leaves the kubelet with the pods of the last good one: it fails the
// stage only for a pod that is not among them.
func (a *analysis) url() result {
	name := v1alpha1.StageURL
	src := findSource(a.f.Sources, v1alpha1.SourceHTTP)
	if src == nil {
		return failing(name, "the kubelet has no static pod URL (no http source)", "set staticPodURL in the kubelet's configuration on node "+a.f.Node)
	}
	last := "never"
	if src.LastUpdate != nil {
		last = stamp(src.LastUpdate.Time)
	}
	evidence := append([]string{"last list sent " + last, fmt.Sprintf("%d pods", src.Pods)}, lastError(src)...)
	fix := "curl " + shell.Operands(src.Target) + " from node " + shell.Quote(a.f.Node) + " and fix what it serves"
	switch {
	case failingNow(src) && a.f.Subject.Info == nil:
		return failing(name, src.LastError, fix, evidence...)
	case !src.Seen:
		return failing(name, "the static pod URL has not been fetched yet", "kubectl podsrc sources -o wide "+shell.Operands(a.f.Node), evidence...)
	}
	// The kubelet keeps a single pod it warns about, and only logs the
	// warning.
	for _, w := range src.WarnedFiles {
		evidence = append(evidence, w.Warnings...)
	}
	return ok(name, "fetched "+src.Target, evidence...)
}

// failingNow reports whether a source's last error came after its last
// list.
func failingNow(src *v1alpha1.Source) bool {
	if src.LastError == "" {
		return false
	}
	return src.LastUpdate == nil || src.LastErrorTime == nil || !src.LastErrorTime.Before(src.LastUpdate)
}

// lastError describes a source's last error as evidence.
func lastError(src *v1alpha1.Source) []string {
	if src.LastError == "" {
		return nil
	}
	at := ""
	if src.LastErrorTime != nil {
		at = " at " + stamp(src.LastErrorTime.Time)
	}
	return []string{"last error" + at + ": " + src.LastError}
}
