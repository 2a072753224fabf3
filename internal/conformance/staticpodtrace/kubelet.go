package staticpodtrace

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/internal/syncbuf"
	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// KubeletSources are one kubelet minor's own static pod source constructors:
// config.NewSourceFile and config.NewSourceURL of its
// k8s.io/kubernetes/pkg/kubelet/config. Their parameters differ between
// minors (a logger from v1.35, an unexported update type from v1.36), so
// they are called by reflection, with each argument chosen by its type.
// The kubelet's sources cannot be stopped; they outlive the test.
type KubeletSources struct {
	NewSourceFile any
	NewSourceURL  any
}

// CompareWithKubelet runs the inputs of every staticpod trace, whatever its
// minor (the scenarios include manifests that minors accept differently),
// through the kubelet's own sources and through podsrc's with decoder d,
// and compares the pods (names, UIDs, config hashes, every default) and
// the rejections: each error of d must be what the kubelet logged.
func CompareWithKubelet(t *testing.T, d staticpod.Decoder, k KubeletSources) {
	logs := captureKlog(t)
	seen := map[string]bool{}
	compared := 0
	for _, tr := range Load(t) {
		scenario := tr.Name[strings.Index(tr.Name, "-")+1:]
		if seen[scenario] {
			continue
		}
		seen[scenario] = true
		t.Run(scenario, func(t *testing.T) {
			switch tr.Kind {
			case "file":
				compareFile(t, d, k, tr, logs)
			case "url":
				compareURL(t, d, k, tr, logs)
			default:
				t.Fatalf("unknown trace kind %q", tr.Kind)
			}
		})
		compared++
	}
	t.Logf("compared %d scenarios with the sources of kubelet %s", compared, d.KubeletVersion())
}

func compareFile(t *testing.T, d staticpod.Decoder, k KubeletSources, tr Trace, logs *klogOutput) {
	dir := filepath.Join(t.TempDir(), "manifests")
	writeFiles(t, dir, tr.Files)
	kubeletPods := make(chan []*v1.Pod, 1)
	startSource(t, k.NewSourceFile, dir, tr.NodeName, kubeletPods)
	want := receive(t, kubeletPods, "the kubelet's file source")

	got, st := fileSourceSet(t, d, "/", dir, tr.NodeName)
	comparePods(t, got.Pods, want)

	var rejected []string
	for _, r := range st.Rejected {
		rejected = append(rejected, r.Path)
		data, err := os.ReadFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.DecodeFile(data, r.Path, tr.NodeName); err == nil {
			t.Errorf("podsrc rejected %s, but its decoder accepts it", r.Path)
		} else {
			// The kubelet quotes what podsrc leaves out of its errors.
			expectLogged(t, logs, "Could not process manifest file", `path="`+r.Path+`"`, redact.Unredacted(err))
		}
	}
	var kubeletRejected []string
	for _, e := range logs.entries("Could not process manifest file") {
		if p, ok := field(e, "path"); ok && strings.HasPrefix(p, dir+"/") && !slices.Contains(kubeletRejected, p) {
			kubeletRejected = append(kubeletRejected, p)
		}
	}
	slices.Sort(kubeletRejected)
	slices.Sort(rejected)
	if !slices.Equal(kubeletRejected, rejected) {
		t.Errorf("the kubelet rejected %q, podsrc %q", kubeletRejected, rejected)
	}
}

func compareURL(t *testing.T, d staticpod.Decoder, k KubeletSources, tr Trace, logs *klogOutput) {
	if tr.Body == nil {
		t.Fatal("url trace without body")
	}
	body := []byte(*tr.Body)
	var fetches sync.WaitGroup
	fetches.Add(1)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(body)
		once.Do(fetches.Done)
	}))
	defer srv.Close()
	url := srv.URL + "/pods"

	failuresBefore := len(logs.entries("Failed to read pods from URL"))
	kubeletPods := make(chan []*v1.Pod, 1)
	startSource(t, k.NewSourceURL, url, tr.NodeName, kubeletPods)
	var podsrcPods []*v1.Pod
	var podsrcErr error
	if len(body) == 0 {
		podsrcPods = []*v1.Pod{}
	} else {
		podsrcPods, _, podsrcErr = d.DecodeURL(body, url, tr.NodeName)
	}
	if podsrcErr != nil {
		// The kubelet sends nothing for a body it rejects; it logs why.
		deadline := time.Now().Add(traceWait)
		for len(logs.entries("Failed to read pods from URL")) == failuresBefore {
			if time.Now().After(deadline) {
				t.Fatalf("the kubelet logged no failure to read %s within %v; podsrc: %v", url, traceWait, podsrcErr)
			}
			time.Sleep(5 * time.Millisecond)
		}
		expectLogged(t, logs, "Failed to read pods from URL", "", redact.Unredacted(podsrcErr))
		select {
		case pods := <-kubeletPods:
			t.Fatalf("the kubelet sent %d pods for a body podsrc rejects (%v)", len(pods), podsrcErr)
		default:
		}
		return
	}
	comparePods(t, podsrcPods, receive(t, kubeletPods, "the kubelet's URL source"))
}

func receive(t *testing.T, ch <-chan []*v1.Pod, what string) []*v1.Pod {
	t.Helper()
	select {
	case pods := <-ch:
		return pods
	case <-time.After(traceWait):
		t.Fatalf("no update from %s within %v", what, traceWait)
	}
	return nil
}

// expectLogged checks that the kubelet logged msg with err (and with
// also, when given) as klog writes them.
func expectLogged(t *testing.T, logs *klogOutput, msg, also, err string) {
	t.Helper()
	want := "err=" + klogString(err)
	for _, e := range logs.entries(msg) {
		if strings.Contains(e, want) && strings.Contains(e, also) {
			return
		}
	}
	t.Errorf("the kubelet logged no %q with %s %s; its entries:\n%s", msg, want, also, strings.Join(logs.entries(msg), "\n"))
}

// klogString renders a string value as klog's text format does: quoted on
// one line, or between <> with every line indented by a tab.
func klogString(s string) string {
	if !strings.Contains(s, "\n") {
		return strconv.Quote(s)
	}
	var b strings.Builder
	b.WriteString("<\n")
	for _, line := range strings.Split(s, "\n") {
		b.WriteString("\t" + line + "\n")
	}
	b.WriteString(" >")
	return b.String()
}

// field returns the quoted value of key in a klog entry.
func field(entry, key string) (string, bool) {
	i := strings.Index(entry, " "+key+`="`)
	if i < 0 {
		return "", false
	}
	v, err := strconv.QuotedPrefix(entry[i+len(key)+2:])
	if err != nil {
		return "", false
	}
	u, err := strconv.Unquote(v)
	return u, err == nil
}

// klogOutput is klog's output during the comparison.
type klogOutput struct{ syncbuf.Buffer }

// entryStart matches the header klog starts every entry with.
var entryStart = regexp.MustCompile(`(?m)^[IWEF]\d{4} `)

// entries returns the entries with message msg (podsrc's file source logs
// its rejections under the kubelet's message too, with other fields).
func (b *klogOutput) entries(msg string) []string {
	text := b.String()
	starts := entryStart.FindAllStringIndex(text, -1)
	var out []string
	for i, s := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		if e := text[s[0]:end]; strings.Contains(e, "] "+strconv.Quote(msg)+" ") {
			out = append(out, strings.TrimRight(e, "\n"))
		}
	}
	return out
}

// captureKlog sends klog's output, which the kubelet's sources log their
// rejections to, into a buffer until the test ends.
func captureKlog(t *testing.T) *klogOutput {
	b := &klogOutput{}
	klog.LogToStderr(false)
	klog.SetOutput(b)
	t.Cleanup(func() {
		klog.SetOutput(os.Stderr)
		klog.LogToStderr(true)
	})
	return b
}

// startSource calls the kubelet's source constructor newSource for the
// path or URL where, on node nodeName, with a channel of the constructor's
// own update type, and hands the pods of every update to pods.
func startSource(t *testing.T, newSource any, where, nodeName string, pods chan<- []*v1.Pod) {
	t.Helper()
	fn := reflect.ValueOf(newSource)
	if fn.Kind() != reflect.Func || fn.Type().NumIn() == 0 {
		t.Fatalf("the kubelet's source constructor is a %T, not a function", newSource)
	}
	typ := fn.Type()
	updates := typ.In(typ.NumIn() - 1)
	if updates.Kind() != reflect.Chan {
		t.Fatalf("%v: the last parameter is no update channel", typ)
	}
	args := make([]reflect.Value, 0, typ.NumIn())
	for i := 0; i < typ.NumIn()-1; i++ {
		switch in := typ.In(i); in {
		case reflect.TypeFor[klog.Logger]():
			args = append(args, reflect.ValueOf(klog.Background()))
		case reflect.TypeFor[string]():
			args = append(args, reflect.ValueOf(where))
		case reflect.TypeFor[types.NodeName]():
			args = append(args, reflect.ValueOf(types.NodeName(nodeName)))
		case reflect.TypeFor[time.Duration]():
			// No periodic rereads: the comparison awaits the first update.
			args = append(args, reflect.ValueOf(time.Hour))
		case reflect.TypeFor[http.Header]():
			args = append(args, reflect.Zero(in))
		default:
			t.Fatalf("%v: no argument for a parameter of type %v", typ, in)
		}
	}
	ch := reflect.MakeChan(reflect.ChanOf(reflect.BothDir, updates.Elem()), 0)
	go func() {
		for {
			u, ok := ch.Recv()
			if !ok {
				return
			}
			// Up to v1.35 the channel carries interface{} holding a
			// kubetypes.PodUpdate; v1.36's update is a struct. Both have Pods.
			if u.Kind() == reflect.Interface {
				u = u.Elem()
			}
			pods <- u.FieldByName("Pods").Interface().([]*v1.Pod)
		}
	}()
	fn.Call(append(args, ch.Convert(updates)))
}
