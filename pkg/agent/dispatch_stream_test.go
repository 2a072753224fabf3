package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/printers"
)

// TestDispatchOnTheStream follows a static pod through the real agent, a
// fake CRI runtime and the JSON printer of kubectl podsrc watch -o json:
// each config and PLEG event carries the kubelet's handler; a ContainerDied
// has the older exited container of its name removed (the kubelet keeps
// one); a ContainerRemoved, a ContainerChanged and the events of a pod no
// source configures are ignored, each with its reason. Each step awaits its
// event, so that no relist falls between two steps unexpectedly.
func TestDispatchOnTheStream(t *testing.T) {
	ta := startAgent(t, nil)
	s := ta.stream(t, "")
	flags := printers.NewPrintFlags()
	*flags.OutputFormat = "json"
	var out bytes.Buffer
	wp, err := flags.ToWatchPrinter(&out, nil)
	if err != nil {
		t.Fatal(err)
	}
	// next returns the next event as watch -o json prints it.
	next := func() v1alpha1.Event {
		t.Helper()
		m := s.NextOf(t)
		out.Reset()
		if err := wp.PrintMessage("node-1", &m); err != nil {
			t.Fatal(err)
		}
		var wm printers.WatchMessage
		if err := json.Unmarshal(out.Bytes(), &wm); err != nil || wm.Event == nil {
			t.Fatalf("watch -o json printed %q (%v), want an event", out.String(), err)
		}
		return *wm.Event
	}
	type want struct {
		kind, what, data, handler, ignored string
		removes                            []string
		// removesUnknown is the start of RemovesUnknown.
		removesUnknown string
	}
	expect := func(w want) v1alpha1.Event {
		t.Helper()
		e := next()
		what := e.Op
		if e.Kind == v1alpha1.EventKindPLEG {
			what = e.Type
		}
		if e.Kind != w.kind || what != w.what || w.data != "" && e.Data != w.data || e.Handler != w.handler || e.Ignored != w.ignored ||
			!slices.Equal(e.Removes, w.removes) || (e.RemovesUnknown == "") != (w.removesUnknown == "") || !strings.HasPrefix(e.RemovesUnknown, w.removesUnknown) {
			t.Fatalf("got %+v,\nwant %+v", e, w)
		}
		return e
	}
	const (
		kubeletSkips = "the kubelet's PLEG does not send ContainerChanged"
		pleg         = v1alpha1.EventKindPLEG
		syncs        = v1alpha1.SyncHandlerPodSyncs
		ignored      = v1alpha1.SyncHandlerIgnored
	)

	ta.writeManifest(t, "web.yaml", "metadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: nginx\n")
	add := expect(want{kind: v1alpha1.EventKindConfig, what: v1alpha1.OpAdd, handler: v1alpha1.SyncHandlerPodAdditions})
	uid := string(add.Pods[0].UID)

	// The static pod's runtime pod has its config UID, as the kubelet's.
	sb := ta.runtime.RunSandbox(uid, "web-node-1", "default", "10.1.0.9")
	expect(want{kind: pleg, what: "ContainerStarted", data: sb, handler: syncs})
	var died []string
	for range 2 {
		c := ta.runtime.CreateContainer(sb, "app")
		expect(want{kind: pleg, what: "ContainerChanged", data: c, handler: ignored, ignored: kubeletSkips})
		ta.runtime.StartContainer(c)
		expect(want{kind: pleg, what: "ContainerStarted", data: c, handler: syncs})
		ta.runtime.ExitContainer(c, 1, "Error")
		// The first death leaves one exited app container, which the
		// kubelet keeps; the second has it remove the first.
		expect(want{kind: pleg, what: "ContainerDied", data: c, handler: syncs, removes: died})
		died = append(died, c)
	}
	// The kubelet's container deletor removes it.
	ta.runtime.RemoveContainer(died[0])
	expect(want{kind: pleg, what: "ContainerRemoved", data: died[0], handler: ignored, ignored: "ContainerRemoved is not sync-worthy"})

	// A pod no source configures: not in the pod manager.
	orphan := ta.runtime.RunSandbox("uid-orphan", "orphan", "default", "")
	expect(want{kind: pleg, what: "ContainerStarted", data: orphan, handler: ignored, ignored: "pod not in the pod manager"})

	if err := os.Remove(filepath.Join(ta.manifests, "web.yaml")); err != nil {
		t.Fatal(err)
	}
	expect(want{kind: v1alpha1.EventKindConfig, what: v1alpha1.OpRemove, handler: v1alpha1.SyncHandlerPodRemoves})
	// The pod is out of the pod manager: its sandbox's death is ignored,
	// and whether the kubelet removes its exited container depends on its
	// pod worker, which the agent cannot see.
	ta.runtime.StopSandbox(sb)
	expect(want{kind: pleg, what: "ContainerDied", data: sb, handler: ignored, ignored: "pod not in the pod manager",
		removesUnknown: "the pod is not in the pod manager: the kubelet removes all its exited containers if its pod worker has terminated the pod"})

	// The source's first, empty ADD came before the stream opened.
	_, body := ta.get(t, "/metrics")
	for _, series := range []string{
		`podsrc_events_by_handler_total{handler="HandlePodSyncs",kind="pleg"} 5`,
		`podsrc_events_by_handler_total{handler="ignored",kind="pleg"} 5`,
		`podsrc_events_by_handler_total{handler="HandlePodAdditions",kind="config"} 2`,
		`podsrc_events_by_handler_total{handler="HandlePodRemoves",kind="config"} 1`,
	} {
		if !strings.Contains(string(body), series+"\n") {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}
