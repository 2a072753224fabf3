package agent

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// origins returns where each static pod came from, by UID: its manifest's
// path on the host or the static pod URL (masked as the sources mask it).
func (a *Agent) origins() map[types.UID]string {
	out := map[types.UID]string{}
	for _, s := range a.sources {
		st := s.src.Status()
		for _, p := range st.Pods {
			out[types.UID(p.UID)] = redact.MaskURLs(p.Origin)
		}
	}
	return out
}

// originOf returns where one pod of the view came from, as origins does,
// asking only the source the view has it from.
func (a *Agent) originOf(p syncloop.Sourced) string {
	for _, s := range a.sources {
		if s.name != p.Source {
			continue
		}
		if o, ok := s.src.Origin(string(p.Pod.UID)); ok {
			return redact.MaskURLs(o)
		}
	}
	return ""
}
