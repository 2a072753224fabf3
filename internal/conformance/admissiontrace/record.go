package admissiontrace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/podsrc/podsrc/internal/conformance"
	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// Scenario is the input of a trace: what the recorder hands the kubelet.
type Scenario struct {
	// Name is the trace's name without its version prefix.
	Name                 string
	Description          string
	Handlers             []string
	Node                 *v1.Node
	AllowedUnsafeSysctls []string
	// NodeFeatures is what the kubelet's declared features come from, for
	// a scenario that chains the declared features handler; its Declared
	// is what the recorded kubelet declares.
	NodeFeatures *NodeFeatures
	// Steps are the ADD notifications, each in the order sent.
	Steps [][]*v1.Pod
}

// Record runs every scenario (Scenarios, and the inputs of the v1.36
// traces in the trace directory, which the kubelet's own recorder wrote),
// with those of its handlers k has, through kubelet k's code and writes
// each as the trace
// v13N-<scenario>.json. A trace that exists is not written again: its
// results must be what k gives, or Record fails (delete the file to
// record it anew), so the shared v1.36 traces also check the oracle.
func Record(t *testing.T, k Kubelet) {
	t.Helper()
	minor, err := kubeletminor.Parse(k.Version)
	if err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("v1%d-", int(minor))
	scenarios := Scenarios()
	for _, f := range Load(t) {
		name, ok := strings.CutPrefix(f.Base, "v136-")
		if !ok || scenarioNamed(scenarios, name) {
			continue
		}
		scenarios = append(scenarios, Scenario{
			Name: name, Description: f.Description, Handlers: f.Handlers,
			Node: f.Node, AllowedUnsafeSysctls: f.AllowedUnsafeSysctls, NodeFeatures: f.NodeFeatures, Steps: stepPods(f.Steps),
		})
	}
	has, err := k.Handlers(t.Context(), nil, admission.Callbacks{})
	if err != nil {
		t.Fatalf("kubelet %s: %v", k.Version, err)
	}
	for _, sc := range scenarios {
		sc.Handlers = slices.DeleteFunc(slices.Clone(sc.Handlers), func(h string) bool { _, ok := has[h]; return !ok })
		t.Run(sc.Name, func(t *testing.T) {
			path := filepath.Join(conformance.Dir(Sub), prefix+sc.Name+".json")
			sc, err := declare(t, k, sc)
			if err != nil {
				t.Fatalf("the node features of kubelet %s: %v", k.Version, err)
			}
			results, err := runKubelet(t.Context(), k, sc)
			if err != nil {
				t.Fatalf("running kubelet %s: %v", k.Version, err)
			}
			if err := writeOrCheck(path, k.Version, sc, results); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// declare gives a scenario that chains the declared features handler the
// features kubelet k declares, with the scenario's feature gates set for
// the rest of the test and k's version; one that does not chain it keeps
// no NodeFeatures, as the traces without the handler have none.
func declare(t *testing.T, k Kubelet, sc Scenario) (Scenario, error) {
	if !slices.Contains(sc.Handlers, v1alpha1.AdmitHandlerDeclaredFeatures) {
		sc.NodeFeatures = nil
		return sc, nil
	}
	if k.DeclareFeatures == nil {
		return sc, fmt.Errorf("kubelet %s chains the declared features handler but declares no features", k.Version)
	}
	nf := NodeFeatures{Version: k.Version, RuntimeFeatures: map[string]bool{}}
	if sc.NodeFeatures != nil {
		nf.FeatureGates, nf.RuntimeFeatures = sc.NodeFeatures.FeatureGates, sc.NodeFeatures.RuntimeFeatures
	}
	for gate, on := range nf.FeatureGates {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(gate), on)
	}
	declared, err := k.DeclareFeatures(nf.RuntimeFeatures, nf.Version)
	if err != nil {
		return sc, err
	}
	nf.Declared = declared
	sc.NodeFeatures = &nf
	return sc, nil
}

func scenarioNamed(scenarios []Scenario, name string) bool {
	return slices.ContainsFunc(scenarios, func(sc Scenario) bool { return sc.Name == name })
}

func stepPods(steps []Step) [][]*v1.Pod {
	out := make([][]*v1.Pod, 0, len(steps))
	for _, s := range steps {
		out = append(out, s.Pods)
	}
	return out
}

// writeOrCheck writes a new trace, or checks an existing one's results.
func writeOrCheck(path, kubelet string, sc Scenario, results [][]Result) error {
	old, err := read(path)
	switch {
	case err == nil:
		var want [][]Result
		for _, s := range old.Steps {
			want = append(want, s.Results)
		}
		if !reflect.DeepEqual(normalized(results), normalized(want)) {
			return fmt.Errorf("kubelet %s gives other results than %s (delete it to record it anew):\ngot  %+v\nwant %+v", kubelet, path, results, want)
		}
		if got, want := declaredOf(sc.NodeFeatures), declaredOf(old.NodeFeatures); !slices.Equal(got, want) {
			return fmt.Errorf("kubelet %s declares other node features than %s (delete it to record it anew): %q, not %q", kubelet, path, got, want)
		}
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	data, err := encode(kubelet, strings.TrimSuffix(filepath.Base(path), ".json"), sc, results)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing admission trace: %w", err)
	}
	return nil
}

// declaredOf is the features a trace's kubelet declares; none without
// NodeFeatures.
func declaredOf(nf *NodeFeatures) []string {
	if nf == nil {
		return nil
	}
	return nf.Declared
}

// normalized gives none preempted one form, as a trace leaves it out.
func normalized(steps [][]Result) [][]Result {
	out := make([][]Result, len(steps))
	for i, rs := range steps {
		for _, r := range rs {
			if len(r.Preempted) == 0 {
				r.Preempted = nil
			}
			out[i] = append(out[i], r)
		}
	}
	return out
}

// encode writes a trace as the format has it: pods with empty but not nil
// labels or annotations keep them as {}.
func encode(kubelet, name string, sc Scenario, results [][]Result) ([]byte, error) {
	type step struct {
		Pods    []json.RawMessage `json:"pods"`
		Results []Result          `json:"results"`
	}
	tr := struct {
		Kubelet              string        `json:"kubelet"`
		Name                 string        `json:"name"`
		Description          string        `json:"description"`
		Handlers             []string      `json:"handlers"`
		Node                 *v1.Node      `json:"node,omitempty"`
		AllowedUnsafeSysctls []string      `json:"allowedUnsafeSysctls,omitempty"`
		NodeFeatures         *NodeFeatures `json:"nodeFeatures,omitempty"`
		Steps                []step        `json:"steps"`
	}{Kubelet: kubelet, Name: name, Description: sc.Description, Handlers: sc.Handlers, Node: sc.Node, AllowedUnsafeSysctls: sc.AllowedUnsafeSysctls, NodeFeatures: sc.NodeFeatures}
	for i, pods := range sc.Steps {
		s := step{Pods: []json.RawMessage{}, Results: results[i]}
		for _, p := range pods {
			raw, err := encodePod(p)
			if err != nil {
				return nil, err
			}
			s.Pods = append(s.Pods, raw)
		}
		tr.Steps = append(tr.Steps, s)
	}
	data, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding admission trace %s: %w", name, err)
	}
	return append(data, '\n'), nil
}

func encodePod(p *v1.Pod) (json.RawMessage, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	emptyLabels := p.Labels != nil && len(p.Labels) == 0
	emptyAnnotations := p.Annotations != nil && len(p.Annotations) == 0
	if !emptyLabels && !emptyAnnotations {
		return raw, nil
	}
	var fields map[string]json.RawMessage
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(fields["metadata"], &meta); err != nil {
		return nil, err
	}
	if emptyLabels {
		meta["labels"] = json.RawMessage("{}")
	}
	if emptyAnnotations {
		meta["annotations"] = json.RawMessage("{}")
	}
	if fields["metadata"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}
