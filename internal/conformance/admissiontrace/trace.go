// Package admissiontrace reads the kubelet's admission conformance traces
// (testdata/conformance/README.md, admission/*.json) and replays them
// through pkg/admission with one kubelet minor's admit handlers. Each
// minor's admission package calls Replay in its tests.
package admissiontrace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/internal/conformance"
)

// Sub is the conformance subfolder of the admission traces.
const Sub = "admission"

// Trace is one recorded run of a kubelet minor's admit handlers over a
// series of ADD notifications.
type Trace struct {
	Kubelet     string `json:"kubelet"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Handlers names the handlers chained, in the kubelet's order; a trace
	// without them is refused.
	Handlers []string `json:"handlers"`
	// Node is the kubelet's Node object; absent when the scenario has none.
	Node                 *v1.Node `json:"node,omitempty"`
	AllowedUnsafeSysctls []string `json:"allowedUnsafeSysctls,omitempty"`
	// NodeFeatures is what the kubelet's node declared features come
	// from, and what it declared; only traces that chain the declared
	// features handler have it.
	NodeFeatures *NodeFeatures `json:"nodeFeatures,omitempty"`
	Steps        []Step        `json:"steps"`
}

// NodeFeatures is the kubelet's node declared features: its feature gates
// as the scenario sets them (every other gate has its default), the
// features its container runtime reports, its version, and the features
// it declares from them (sorted), which its Node's status carries.
type NodeFeatures struct {
	FeatureGates    map[string]bool `json:"featureGates,omitempty"`
	RuntimeFeatures map[string]bool `json:"runtimeFeatures"`
	Version         string          `json:"version"`
	Declared        []string        `json:"declared"`
}

// NodeWithFeatures returns the trace's Node as the kubelet's node status
// shows it with its declared features and its version; nil without a
// Node.
func (tr Trace) NodeWithFeatures() *v1.Node {
	if tr.Node == nil || tr.NodeFeatures == nil {
		return tr.Node
	}
	n := tr.Node.DeepCopy()
	n.Status.NodeInfo.KubeletVersion = tr.NodeFeatures.Version
	return withDeclaredFeatures(n, tr.NodeFeatures.Declared)
}

// withDeclaredFeatures returns n with status.declaredFeatures set to
// declared. It goes through the Node's JSON, since only the k8s.io/api of
// the minors that declare features has the field: the older minors'
// modules, which replay no trace with nodeFeatures, build this package too
// and get n unchanged.
func withDeclaredFeatures(n *v1.Node, declared []string) *v1.Node {
	raw, err := json.Marshal(n)
	if err != nil {
		panic(fmt.Sprintf("encoding node %s: %v", n.Name, err))
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		panic(fmt.Sprintf("decoding node %s: %v", n.Name, err))
	}
	status, _ := obj["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		obj["status"] = status
	}
	status["declaredFeatures"] = declared
	if raw, err = json.Marshal(obj); err != nil {
		panic(fmt.Sprintf("encoding node %s: %v", n.Name, err))
	}
	out := &v1.Node{}
	if err := json.Unmarshal(raw, out); err != nil {
		panic(fmt.Sprintf("decoding node %s with its declared features: %v", n.Name, err))
	}
	return out
}

// Step is one ADD notification and what the kubelet made of each pod.
type Step struct {
	Pods    []*v1.Pod `json:"pods"`
	Results []Result  `json:"results"`
}

// Result is the kubelet's verdict on one pod, in the order it took them.
type Result struct {
	// Pod is the pod's namespace/name.
	Pod       string    `json:"pod"`
	UID       types.UID `json:"uid"`
	Admit     bool      `json:"admit"`
	Reason    string    `json:"reason,omitempty"`
	Message   string    `json:"message,omitempty"`
	Preempted []string  `json:"preempted,omitempty"`
	Skipped   string    `json:"skipped,omitempty"`
}

// File is a trace with the file it was read from.
type File struct {
	// Base is the file's name without .json.
	Base string
	Trace
}

// Load reads every admission trace, sorted by file name.
func Load(t testing.TB) []File {
	t.Helper()
	var files []File
	for _, path := range conformance.Files(t, Sub) {
		tr, err := read(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Base: strings.TrimSuffix(filepath.Base(path), ".json"), Trace: tr})
	}
	return files
}

func read(path string) (Trace, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Trace{}, fmt.Errorf("reading admission trace: %w", err)
	}
	var tr Trace
	if err := json.Unmarshal(raw, &tr); err != nil {
		return Trace{}, fmt.Errorf("decoding admission trace %s: %w", path, err)
	}
	if tr.Handlers == nil {
		return Trace{}, fmt.Errorf("admission trace %s names no handlers", path)
	}
	return tr, nil
}
