package agent

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestDecoderWarningsServed: a manifest the decoder accepts with a warning
// is served among the file source's warned files, and the config event
// that adds its pod carries the warning.
func TestDecoderWarningsServed(t *testing.T) {
	const warning = "kubelet v1.37 warns: priority 1000 without a priorityClassName"
	ta := startAgent(t, nil)
	ta.writeManifest(t, "warned.yaml", fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: warned
  annotations:
    %s: %q
spec:
  containers:
  - name: app
    image: podsrc.local/testimg:v1
`, testWarningAnnotation, warning))

	awaitJSON(t, ta, "/api/v1alpha1/sources", func(sl v1alpha1.SourceList) error {
		if len(sl.Items) != 1 {
			return fmt.Errorf("sources: %+v", sl.Items)
		}
		w := sl.Items[0].WarnedFiles
		if len(w) != 1 || !strings.HasSuffix(w[0].Path, "/warned.yaml") || w[0].Pod != "default/warned-node-1" || !slices.Equal(w[0].Warnings, []string{warning}) {
			return fmt.Errorf("warned files: %+v", w)
		}
		return nil
	})

	// The source lists the file before it sends the pod: the ADD may
	// follow the stream's opening heartbeat.
	stream := ta.stream(t, "?since=0")
	for {
		msg := stream.NextOf(t)
		if msg.Event == nil || msg.Event.Kind != v1alpha1.EventKindConfig || msg.Event.Op != v1alpha1.OpAdd {
			continue
		}
		for _, p := range msg.Event.Pods {
			if p.Name != "warned-node-1" {
				continue
			}
			if !slices.Equal(p.Warnings, []string{warning}) {
				t.Errorf("the ADD of %s carries warnings %q, want %q", p.Name, p.Warnings, warning)
			}
			return
		}
	}
}
