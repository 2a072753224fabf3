package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// schemeKubelet is a staticpod.Kubelet that decodes with client-go's scheme
// and fails as the kubelet's own decoding does: the decoder's errors quote
// what they could not decode ("Object 'Kind' is missing in '{…}'",
// "invalid pod: &v1.Secret{…}"), so the agent's tests see the messages the
// real kubelet code writes, through staticpod.NewDecoder.
type schemeKubelet struct{}

func (schemeKubelet) KubeletVersion() string { return "v1.36.3" }

func (schemeKubelet) DecodePod(data []byte, loc staticpod.Location) (bool, *v1.Pod, []string, error) {
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return false, nil, nil, err
	}
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return false, nil, nil, fmt.Errorf("invalid pod: %#v", obj)
	}
	if pod.Name == "" {
		return true, nil, nil, fmt.Errorf("invalid pod: name is needed for the pod")
	}
	pod.Name = loc.PodName(pod.Name)
	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	pod.UID = k8stypes.UID("uid-" + pod.Name)
	return true, pod, nil, nil
}

func (schemeKubelet) DecodePodList(data []byte, _ staticpod.Location) (bool, []*v1.Pod, error) {
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return false, nil, err
	}
	if _, ok := obj.(*v1.PodList); !ok {
		return false, nil, fmt.Errorf("invalid pods list: %#v", obj)
	}
	return true, nil, nil
}

// plantedSecret is the marker every secret of these tests carries.
const plantedSecret = "c0ffee"

// undecodable are manifests the decoder cannot turn into a pod, each with
// a secret, and the class of failure its error must keep.
var undecodable = []struct {
	name, content, class string
}{
	{
		name:  "knid.yaml",
		class: "Object 'Kind' is missing",
		content: "apiVersion: v1\nknid: Pod\nmetadata:\n  name: db\nspec:\n  containers:\n  - name: db\n    image: postgres\n" +
			"    env:\n    - name: POSTGRES_PASSWORD\n      value: knid-" + plantedSecret + "\n",
	},
	{
		name:    "secret.yaml",
		class:   "invalid pod: &v1.Secret{",
		content: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: secret-" + plantedSecret + "\n",
	},
	{
		name:    "configmap.yaml",
		class:   "invalid pod: &v1.ConfigMap{",
		content: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  password: configmap-" + plantedSecret + "\n",
	},
	{
		name:    "yaml.yaml",
		class:   "line 3",
		content: "apiVersion: v1\nkind: Pod\nmetadata: {name: x, password: \"yaml-" + plantedSecret + "\"\n  : bad\n",
	},
	{
		name:    "json.json",
		class:   "json: cannot unmarshal",
		content: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"j"},"spec":{"containers":"json-` + plantedSecret + `","priority":314159}}`,
	},
}

// TestDecodeErrorsQuoteNoContent plants secrets in undecodable manifests,
// in a file a symlink of the static pod path points at, and in the body
// of the static pod URL: the agent's answers, its stream, its metrics and
// its log at -v=10 keep each error's class and none of the secrets. With
// --expose-pod-specs the sources show the content again.
func TestDecodeErrorsQuoteNoContent(t *testing.T) {
	for _, expose := range []bool{false, true} {
		t.Run(fmt.Sprintf("expose=%v", expose), func(t *testing.T) {
			manifests, outside := t.TempDir(), t.TempDir()
			for _, m := range undecodable {
				if err := os.WriteFile(filepath.Join(manifests, m.name), []byte(m.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := filepath.Join(outside, "target.yaml")
			linked := strings.ReplaceAll(undecodable[0].content, "knid-", "symlink-")
			if err := os.WriteFile(target, []byte(linked), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(manifests, "link.yaml")); err != nil {
				t.Fatal(err)
			}
			// YAML, so that the decoder's message quotes it as JSON.
			body := strings.ReplaceAll(undecodable[0].content, "knid-", "url-")
			podURL := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				fmt.Fprint(w, body)
			}))
			defer podURL.Close()

			cfg := sourcelessConfig()
			cfg.ExposePodSpecs = expose
			cfg.Sources = source.Config{
				StaticPodPath: manifests, StaticPodURL: podURL.URL + "/pods",
				FileCheckFrequency: 100 * time.Millisecond, HTTPCheckFrequency: 100 * time.Millisecond,
			}
			a, err := New(cfg, kubeletminor.V136, staticpod.NewDecoder(schemeKubelet{}))
			if err != nil {
				t.Fatal(err)
			}
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
			ta := runAgent(t, a, klog.NewContext(context.Background(), logger))

			// Every manifest is rejected, the URL fails, and the file
			// source has relisted since (its log line for each file).
			sources := awaitJSON(t, ta, "/api/v1alpha1/sources", func(l v1alpha1.SourceList) error {
				for _, s := range l.Items {
					switch {
					case s.Name == v1alpha1.SourceFile && len(s.RejectedFiles) != len(undecodable)+1:
						return fmt.Errorf("%d files rejected, want %d", len(s.RejectedFiles), len(undecodable)+1)
					case s.Name == v1alpha1.SourceHTTP && s.LastError == "":
						return fmt.Errorf("the URL source has no error yet")
					}
				}
				return nil
			})
			checks := a.sources[0].src.Status().Checks
			ta.waitFor(t, "two more relists", func() bool { return a.sources[0].src.Status().Checks >= checks+2 })

			rejected := map[string]string{}
			for _, s := range sources.Items {
				for _, r := range s.RejectedFiles {
					rejected[filepath.Base(r.Path)] = r.Error
				}
				if s.Name == v1alpha1.SourceHTTP {
					rejected["url"] = s.LastError
				}
			}
			for _, m := range undecodable {
				if !strings.Contains(rejected[m.name], m.class) {
					t.Errorf("%s's error %q lost its class %q", m.name, rejected[m.name], m.class)
				}
			}
			if !strings.Contains(rejected["url"], "Object 'Kind' is missing") {
				t.Errorf("the URL's error %q lost its class", rejected["url"])
			}

			served := map[string]string{}
			for _, path := range []string{"/api/v1alpha1/sources", "/api/v1alpha1/pods", "/api/v1alpha1/pleg", "/metrics", "/version"} {
				_, b := ta.get(t, path)
				served[path] = string(b)
			}
			stream := ta.stream(t, "?since=0")
			for {
				msg := stream.Next(t)
				if msg.Type == v1alpha1.MessageHeartbeat {
					break
				}
				served["the stream"] += fmt.Sprintf("%+v\n", msg)
			}
			served["the log"] = logger.GetSink().(ktesting.Underlier).GetBuffer().String()

			for where, text := range served {
				if where == "/api/v1alpha1/sources" && expose {
					continue
				}
				if strings.Contains(text, plantedSecret) {
					i := strings.Index(text, plantedSecret)
					t.Errorf("%s shows a secret: …%s…", where, text[max(0, i-200):min(len(text), i+40)])
				}
			}
			if expose {
				for _, s := range []string{"knid-", "secret-", "configmap-", "symlink-"} {
					if !strings.Contains(served["/api/v1alpha1/sources"], s+plantedSecret) {
						t.Errorf("--expose-pod-specs does not serve the content %s%s", s, plantedSecret)
					}
				}
			}
		})
	}
}
