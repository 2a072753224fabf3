package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri/critest"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
	"github.com/podsrc/podsrc/pkg/source"
)

// waitLimit bounds every wait in these tests.
const waitLimit = 20 * time.Second

// yamlDecoder stands in for the kubelet decoder in this package's tests: it
// decodes a YAML pod, names it for the node and derives its UID from the
// manifest and its path; testWarningAnnotation gives a warning.
// noAdmission builds a chain of no admit handlers.
func noAdmission(context.Context, admission.Config) (admission.AdmitHandler, error) {
	return admission.NewChain("v1.36.3", nil, nil)
}

type yamlDecoder struct{}

func (yamlDecoder) KubeletVersion() string { return "v1.36.3" }

func (yamlDecoder) DecodeFile(data []byte, hostPath, nodeName string) (*v1.Pod, []string, error) {
	var pod v1.Pod
	if err := yaml.UnmarshalStrict(data, &pod); err != nil {
		return nil, nil, fmt.Errorf("%s: couldn't parse as pod: %w", hostPath, err)
	}
	if pod.Name == "" {
		return nil, nil, fmt.Errorf("%s: invalid pod: name is required", hostPath)
	}
	sum := sha256.Sum256(append(data, hostPath...))
	uid := hex.EncodeToString(sum[:16])
	pod.Name += "-" + strings.ToLower(nodeName)
	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	pod.UID = types.UID(uid)
	// As the kubelet's decoder, it adds its annotations to the pod's own.
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[merge.ConfigHashAnnotation] = uid
	pod.Annotations[merge.ConfigSourceAnnotation] = "file"
	pod.Spec.NodeName = nodeName
	var warnings []string
	if w := pod.Annotations[testWarningAnnotation]; w != "" {
		warnings = []string{w}
	}
	return &pod, warnings, nil
}

// testWarningAnnotation is the annotation whose value yamlDecoder gives
// as a warning about the pod it keeps, as a kubelet's decoder warns.
const testWarningAnnotation = "test.podsrc.io/warning"

func (yamlDecoder) DecodeURL([]byte, string, string) ([]*v1.Pod, []string, error) {
	return nil, nil, fmt.Errorf("no URL pods in these tests")
}

// eventsOf counts the events of kind the agent's event ring holds.
func (ta *testAgent) eventsOf(kind string) int {
	var b eventring.Batch
	ta.ring.Read(&b, max(ta.ring.FirstSeq(), 1)-1, ta.cfg.EventBuffer)
	n := 0
	for _, e := range b.Events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// testAgent is an agent running in-process on loopback, with a manifest
// directory and a fake CRI runtime.
type testAgent struct {
	*Agent
	// url is the API's, probeURL the probes' listener's.
	url, probeURL string
	manifests     string
	runtime       *critest.Server
	// stop stops the agent and waits until Run returned (at the test's
	// end, unless called before).
	stop func()
}

// startAgent runs an agent until the test ends; adjust may change its config.
func startAgent(t *testing.T, adjust func(*Config)) *testAgent {
	t.Helper()
	return startAgentWith(t, adjust, nil)
}

// startAgentWith is startAgent with extra sources run beside the
// configured ones (stubs of a source's state).
func startAgentWith(t *testing.T, adjust func(*Config), extra []namedSource) *testAgent {
	t.Helper()
	manifests := t.TempDir()
	rt := critest.NewForTest(t)
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Node: nodeenv.Env{NodeName: "node-1"},
		Sources: source.Config{
			StaticPodPath:      manifests,
			FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second,
		},
		RuntimeEndpoint: rt.Endpoint(),
		RuntimeSocket:   strings.TrimPrefix(rt.Endpoint(), "unix://"),
		PLEG:            pleg.Options{RelistPeriod: 50 * time.Millisecond, RelistThreshold: 3 * time.Minute},
		ListenAddress:   "127.0.0.1:0",
		Mode:            merge.Incremental,
		EventBuffer:     1000,
		Heartbeat:       200 * time.Millisecond,
		Limits:          serve.DefaultLimits(),
	}
	if adjust != nil {
		adjust(cfg)
	}
	a, err := New(cfg, kubeletminor.V136, yamlDecoder{})
	if err != nil {
		t.Fatal(err)
	}
	a.sources = append(a.sources, extra...)
	ta := runAgent(t, a, context.Background())
	ta.manifests, ta.runtime = manifests, rt
	// Ready, and the file source's first notification is in the sequence.
	ta.waitFor(t, "the agent to be ready", func() bool { return a.podConfig.Ready() && ta.eventsOf(v1alpha1.EventKindConfig) > 0 })
	// Live: until the PLEG's first relist, /livez answers "pleg has yet to
	// be successful", and on a loaded machine that is a while.
	if a.pleg != nil {
		ta.waitFor(t, "the PLEG's first relist", func() bool { ok, _ := a.pleg.Healthy(); return ok })
	}
	return ta
}

// runAgent runs a on loopback with ctx until the test ends.
func runAgent(t *testing.T, a *Agent, ctx context.Context) *testAgent {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	probes, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, lis, probes) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("agent: %v", err)
				}
			case <-time.After(waitLimit):
				t.Error("agent did not stop")
			}
		})
	}
	t.Cleanup(stop)
	return &testAgent{Agent: a, url: "http://" + lis.Addr().String(), probeURL: "http://" + probes.Addr().String(), stop: stop}
}

// sourcelessConfig is a valid Config for node-1 with no source and no PLEG.
func sourcelessConfig() *Config {
	return &Config{
		Node:          nodeenv.Env{NodeName: "node-1"},
		PLEG:          pleg.Options{RelistPeriod: time.Second, RelistThreshold: time.Minute},
		ListenAddress: "127.0.0.1:0",
		Mode:          merge.Incremental,
		EventBuffer:   10,
		Heartbeat:     time.Second,
		Limits:        serve.DefaultLimits(),
	}
}

// writeManifest writes a manifest atomically, as an operator should.
func (ta *testAgent) writeManifest(t *testing.T, name, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(ta.manifests), "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(ta.manifests, name)); err != nil {
		t.Fatal(err)
	}
}

// get returns the status code and body of a GET.
func (ta *testAgent) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(ta.url + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, body
}

// getJSON decodes the answer of a GET that must succeed.
func (ta *testAgent) getJSON(t *testing.T, path string, v any) {
	t.Helper()
	code, body := ta.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, body)
	}
}

// pollInterval is how often the tests' awaited conditions are checked.
const pollInterval = 20 * time.Millisecond

// waitFor polls cond until it holds, or fails the test.
func (ta *testAgent) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, waitLimit, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// awaitJSON GETs path until check accepts the decoded answer and returns
// it, or fails the test with check's last complaint. Each assertion on a
// moving state (the PLEG's next relist, a file's rejection) awaits its own
// condition this way rather than trusting an earlier wait.
func awaitJSON[T any](t *testing.T, ta *testAgent, path string, check func(T) error) T {
	t.Helper()
	var v T
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, waitLimit, true, func(context.Context) (bool, error) {
		v = *new(T)
		ta.getJSON(t, path, &v)
		last = check(v)
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("GET %s: not within %v (%v): %v", path, waitLimit, err, last)
	}
	return v
}

// stream opens the agent's event stream with query.
func (ta *testAgent) stream(t *testing.T, query string) *servetest.Stream {
	t.Helper()
	return servetest.OpenStream(t, ta.url+v1alpha1.EventsPath+query)
}
