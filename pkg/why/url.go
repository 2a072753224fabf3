package why

import (
	"fmt"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// url is the stage of the static pod URL's last fetch.
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
	evidence := []string{"last list sent " + last, fmt.Sprintf("%d pods", src.Pods)}
	if src.LastError != "" {
		at := ""
		if src.LastErrorTime != nil {
			at = " at " + stamp(src.LastErrorTime.Time)
		}
		return failing(name, src.LastError, "curl "+src.Target+" from node "+a.f.Node+" and fix what it serves", append(evidence, "failed"+at)...)
	}
	if !src.Seen {
		return failing(name, "the static pod URL has not been fetched yet", "kubectl podsrc sources "+a.f.Node+" -o wide", evidence...)
	}
	return ok(name, "fetched "+src.Target, evidence...)
}
