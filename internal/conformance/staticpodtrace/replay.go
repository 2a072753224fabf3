// Package staticpodtrace replays the kubelet's staticpod conformance traces
// (testdata/conformance/README.md) through podsrc's file and URL sources
// with one kubelet minor's decoder. Each decoder module's tests call Replay.
package staticpodtrace

import (
	"context"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/internal/conformance"
	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// Trace is one recorded run of the kubelet's file or URL source;
// the format is described in testdata/conformance/README.md.
type Trace struct {
	Kubelet  string            `json:"kubelet"`
	Name     string            `json:"name"`
	Kind     string            `json:"kind"`
	NodeName string            `json:"nodeName"`
	Path     string            `json:"path"`
	URL      string            `json:"url"`
	Files    map[string]string `json:"files"`
	Body     *string           `json:"body"`
	Sent     bool              `json:"sent"`
	Pods     []*v1.Pod         `json:"pods"`
	Errors   []string          `json:"errors"`
	Logged   []string          `json:"logged"`
}

// traceWait bounds every wait for a source in the replay.
const traceWait = 30 * time.Second

// Replay replays, through the real file or URL source with decoder d, every
// staticpod trace recorded from the kubelet minor d follows, and compares
// the first SET (every pod field), the rejections and the warnings with
// what the kubelet did. It fails for a trace whose kubelet version cannot be read, and says
// so when it skips for want of a trace of d's minor; traces of other minors
// are other decoders' (TestEveryTraceHasADecoder checks each has one).
func Replay(t *testing.T, d staticpod.Decoder) {
	t.Helper()
	minor, err := kubeletminor.Parse(d.KubeletVersion())
	if err != nil {
		t.Fatalf("decoder: %v", err)
	}
	replayed := 0
	for _, tr := range Load(t) {
		m, err := kubeletminor.Of(tr.Kubelet)
		if err != nil {
			t.Fatalf("trace %s: %v", tr.Name, err)
		}
		if m != minor {
			continue
		}
		t.Run(tr.Name, func(t *testing.T) {
			switch tr.Kind {
			case "file":
				replayFileTrace(t, d, tr)
			case "url":
				replayURLTrace(t, d, tr)
			default:
				t.Fatalf("unknown trace kind %q", tr.Kind)
			}
		})
		replayed++
	}
	if replayed == 0 {
		// Recorded traces exist for some minors only; CompareWithKubelet
		// checks every minor against its kubelet's own sources.
		t.Skipf("no staticpod trace of kubelet %s in %s to replay", minor, conformance.Dir("staticpod"))
	}
	t.Logf("replayed %d staticpod traces of kubelet %s from %s with the decoder of kubelet %s", replayed, minor, conformance.Dir("staticpod"), d.KubeletVersion())
}

// Load reads every staticpod trace.
func Load(t testing.TB) []Trace {
	t.Helper()
	var traces []Trace
	for _, file := range conformance.Files(t, "staticpod") {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("reading trace %s: %v", file, err)
		}
		var tr Trace
		if err := json.Unmarshal(raw, &tr); err != nil {
			t.Fatalf("decoding trace %s: %v", file, err)
		}
		traces = append(traces, tr)
	}
	return traces
}

func replayFileTrace(t *testing.T, d staticpod.Decoder, tr Trace) {
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, tr.Path), tr.Files)
	got, st := fileSourceSet(t, d, root, tr.Path, tr.NodeName)
	comparePods(t, got.Pods, tr.Pods)
	compareWarnings(t, got, tr.Logged)
	for _, w := range st.Warned {
		if i := slices.IndexFunc(got.Pods, func(p *v1.Pod) bool { return p.Namespace+"/"+p.Name == w.Pod }); i < 0 || !slices.Equal(got.Warnings[i], w.Warnings) {
			t.Errorf("warned file %s (pod %s, %q) does not match the SET's warnings %q", w.Path, w.Pod, w.Warnings, got.Warnings)
		}
	}
	var rejected []string
	for _, r := range st.Rejected {
		if !strings.HasPrefix(r.Path, tr.Path+"/") {
			t.Errorf("rejected file %s is not named by its host path under %s", r.Path, tr.Path)
		}
		rejected = append(rejected, r.Error)
	}
	compareErrors(t, rejected, tr.Errors)
}

// writeFiles creates dir and a trace's files in it.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fileSourceSet runs podsrc's file source on path (under hostRoot) with
// decoder d until its first SET, and returns that with the source's status
// (the rejections are recorded before the SET is sent).
func fileSourceSet(t *testing.T, d staticpod.Decoder, hostRoot, path, nodeName string) (merge.PodUpdate, source.Status) {
	t.Helper()
	c := sourcetest.NewCollector(t)
	src, err := source.NewFile(source.FileOptions{
		Path:     path,
		HostRoot: hostRoot,
		NodeName: nodeName,
		Decoder:  d,
		Period:   time.Hour,
		Updates:  c.Updates,
	})
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Run(t, src.Run)
	got := c.Next()
	if got.Op != merge.Set || got.Source != v1alpha1.SourceFile {
		t.Errorf("update is %v from %q, want SET from \"file\"", got.Op, got.Source)
	}
	return got, src.Status()
}

func replayURLTrace(t *testing.T, d staticpod.Decoder, tr Trace) {
	if tr.Body == nil {
		t.Fatal("url trace without body")
	}
	body := *tr.Body
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	// The trace's URL enters the UIDs, so requests for it are carried to the
	// test server whatever address it names.
	transport := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	defer transport.CloseIdleConnections()

	updates := make(chan merge.PodUpdate, 1)
	src, err := source.NewURL(source.URLOptions{
		URL:       tr.URL,
		NodeName:  tr.NodeName,
		Decoder:   d,
		Period:    time.Hour,
		Transport: transport,
		Updates:   updates,
	})
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Run(t, src.Run)

	deadline := time.Now().Add(traceWait)
	for src.Status().Checks == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the URL source made no fetch within %v", traceWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
	st := src.Status()
	var got *merge.PodUpdate
	select {
	case u := <-updates:
		got = &u
	default:
	}
	if (got != nil) != tr.Sent {
		t.Fatalf("sent an update: %v, kubelet: %v (last error %q)", got != nil, tr.Sent, st.LastError)
	}
	if got != nil {
		if got.Op != merge.Set || got.Source != v1alpha1.SourceHTTP {
			t.Errorf("update is %v from %q, want SET from \"http\"", got.Op, got.Source)
		}
		comparePods(t, got.Pods, tr.Pods)
		compareWarnings(t, *got, tr.Logged)
	}
	var errs []string
	if st.LastError != "" {
		errs = append(errs, st.LastError)
	}
	compareErrors(t, errs, tr.Errors)
}

// comparePods compares the pods sent with the kubelet's, field by field,
// after putting both through the JSON encoding a trace goes through.
func comparePods(t *testing.T, got, want []*v1.Pod) {
	t.Helper()
	if got == nil {
		t.Errorf("sent a nil pod list; the kubelet sends a non-nil one")
	}
	normalized := make([]*v1.Pod, 0, len(got))
	for _, p := range got {
		normalized = append(normalized, asRecorded(t, p))
	}
	sortPods(normalized)
	want = slices.Clone(want)
	for i, p := range want {
		want[i] = asRecorded(t, p)
	}
	sortPods(want)
	if len(normalized) != len(want) {
		t.Fatalf("sent %d pods, kubelet %d:\ngot  %s\nwant %s", len(normalized), len(want), toJSON(normalized), toJSON(want))
	}
	for i := range want {
		if !reflect.DeepEqual(normalized[i], want[i]) {
			t.Errorf("pod %d differs:\ngot  %s\nwant %s", i, toJSON(normalized[i]), toJSON(want[i]))
		}
	}
}

// asRecorded round-trips a pod through encoding/json the way the traces
// were written: empty but non-nil labels and annotations survive as {}.
func asRecorded(t *testing.T, p *v1.Pod) *v1.Pod {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	out := &v1.Pod{}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	if p.Labels != nil && len(p.Labels) == 0 {
		out.Labels = map[string]string{}
	}
	if p.Annotations != nil && len(p.Annotations) == 0 {
		out.Annotations = map[string]string{}
	}
	return out
}

func sortPods(pods []*v1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		if pods[i].Name != pods[j].Name {
			return pods[i].Name < pods[j].Name
		}
		return pods[i].Namespace < pods[j].Namespace
	})
}

// kubeletWarned finds the pod in a logged line of the kubelet's static pod
// priority warning.
var kubeletWarned = regexp.MustCompile(`^Static pod has .* pod=(\S+)`)

// compareWarnings checks the SET's warnings against the ones the kubelet
// logged: each pod it warned about has a warning, and no pod has one when
// it warned about none. The kubelet logs each text only for the first pod
// it finds it for, so a pod it did not name may still have one.
func compareWarnings(t *testing.T, got merge.PodUpdate, logged []string) {
	t.Helper()
	warned := map[string]bool{}
	for i, p := range got.Pods {
		if i < len(got.Warnings) && len(got.Warnings[i]) > 0 {
			warned[p.Namespace+"/"+p.Name] = true
		}
	}
	kubelet := 0
	for _, line := range logged {
		m := kubeletWarned.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		kubelet++
		if !warned[m[1]] {
			t.Errorf("the kubelet warned about pod %s (%q); podsrc's warnings: %q", m[1], line, got.Warnings)
		}
	}
	if kubelet == 0 && len(warned) > 0 {
		t.Errorf("podsrc warns about %v, the kubelet about no pod: %q", slices.Sorted(maps.Keys(warned)), got.Warnings)
	}
}

// compareErrors checks that there are as many errors as the kubelet
// reported and that each of the kubelet's substrings occurs in one of them.
func compareErrors(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d errors %q, kubelet %d: %q", len(got), got, len(want), want)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.Contains(g, w) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no error contains %q; errors: %q", w, got)
		}
	}
}

func toJSON(v any) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(data)
}
