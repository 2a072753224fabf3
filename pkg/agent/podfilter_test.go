package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
	"github.com/podsrc/podsrc/pkg/merge"
)

// servePodCases puts the pod cases' pods on the agent: file pods as
// manifests in its manifest directory, pods without a source as sandboxes
// of its runtime, and API pods straight into its view (these tests run no
// API server), and waits until its pod list holds them all.
func (ta *testAgent) servePodCases(t *testing.T) {
	t.Helper()
	var api []*v1.Pod
	for _, p := range querytest.Pods() {
		switch p.Source {
		case v1alpha1.SourceFile:
			name := strings.TrimSuffix(p.Name, querytest.StaticSuffix)
			m, err := yaml.Marshal(v1.Pod{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.Namespace, Labels: p.Labels},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "podsrc.local/testimg:v1"}}},
			})
			if err != nil {
				t.Fatal(err)
			}
			ta.writeManifest(t, name+".yaml", string(m))
		case v1alpha1.SourceAPI:
			api = append(api, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, Labels: p.Labels,
				Annotations: map[string]string{merge.ConfigSourceAnnotation: v1alpha1.SourceAPI}}})
		case "":
			ta.runtime.RunSandbox(string(p.UID), p.Name, p.Namespace, "")
		default:
			t.Fatalf("no way to serve a pod of source %q", p.Source)
		}
	}
	ta.syncLoop.HandleConfig(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceAPI, Pods: api})
	awaitJSON(t, ta, v1alpha1.PodsPath, func(l v1alpha1.PodList) error {
		if len(l.Items) != len(querytest.Pods()) {
			return fmt.Errorf("%d pods, want %d", len(l.Items), len(querytest.Pods()))
		}
		return nil
	})
}

// TestPodFilters runs the shared pod cases against the agent's parser and
// filter, through HTTP: the pods a query leaves out are not sent.
func TestPodFilters(t *testing.T) {
	ta := startAgent(t, nil)
	ta.servePodCases(t)
	querytest.RunPods(t, func(t *testing.T, q v1alpha1.PodQuery) []v1alpha1.PodInfo {
		var l v1alpha1.PodList
		ta.getJSON(t, v1alpha1.PodsPath+"?"+q.Encode().Encode(), &l)
		if l.Kind != v1alpha1.KindPodList || l.NodeName != "node-1" {
			t.Fatalf("pod list header %+v", l.TypeMeta)
		}
		return l.Items
	})
}

// TestPodFiltersRefuseBadQueries checks that a bad query is a 400 whose
// message names the parameter and value at fault.
func TestPodFiltersRefuseBadQueries(t *testing.T) {
	ta := startAgent(t, nil)
	for _, c := range querytest.BadPodQueries {
		t.Run(c.Name, func(t *testing.T) {
			code, body := ta.get(t, v1alpha1.PodsPath+"?"+c.Query)
			var st v1alpha1.Status
			if err := json.Unmarshal(body, &st); err != nil || code != http.StatusBadRequest || st.Code != code ||
				!strings.HasPrefix(st.Message, "bad pod list query: ") || !strings.Contains(st.Message, c.Want) {
				t.Fatalf("?%s answered %d %s; want 400 with %q", c.Query, code, body, c.Want)
			}
		})
	}
}

// TestPodFiltersCutTheAnswer lists 5,000 API pods (50 namespaces, 100 app
// labels) with and without a filter: a filtered answer holds only the pods
// that pass, and is that much smaller. It logs each answer's share of the
// unfiltered one (go test -v -run TestPodFiltersCutTheAnswer).
func TestPodFiltersCutTheAnswer(t *testing.T) {
	ta := startAgent(t, nil)
	const n = 5000
	pods := make([]*v1.Pod, 0, n)
	for i := range n {
		pods = append(pods, &v1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("pod-%d", i), Namespace: fmt.Sprintf("ns-%d", i%50), UID: types.UID(fmt.Sprintf("uid-%d", i)),
			Labels:      map[string]string{"app": fmt.Sprintf("app-%d", i%100), "tier": "web"},
			Annotations: map[string]string{merge.ConfigSourceAnnotation: v1alpha1.SourceAPI},
		}})
	}
	ta.syncLoop.HandleConfig(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceAPI, Pods: pods})
	list := func(q v1alpha1.PodQuery) (v1alpha1.PodList, int) {
		code, body := ta.get(t, v1alpha1.PodsPath+"?"+q.Encode().Encode())
		var l v1alpha1.PodList
		if err := json.Unmarshal(body, &l); err != nil || code != http.StatusOK {
			t.Fatalf("pods?%s: %d %v", q.Encode().Encode(), code, err)
		}
		return l, len(body)
	}
	all, allBytes := list(v1alpha1.PodQuery{})
	if len(all.Items) != n {
		t.Fatalf("%d pods, want %d", len(all.Items), n)
	}
	for _, c := range []struct {
		name string
		q    v1alpha1.PodQuery
		want int
	}{
		{"-n ns-7", v1alpha1.PodQuery{Namespaces: []string{"ns-7"}}, n / 50},
		{"-l app=app-7", v1alpha1.PodQuery{Selector: "app=app-7"}, n / 100},
		{"-l tier=web", v1alpha1.PodQuery{Selector: "tier=web"}, n},
		{"-n ns-7 -l app=app-7", v1alpha1.PodQuery{Namespaces: []string{"ns-7"}, Selector: "app=app-7"}, n / 100},
		{"-n ns-7 -l app=app-8", v1alpha1.PodQuery{Namespaces: []string{"ns-7"}, Selector: "app=app-8"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, size := list(c.q)
			if len(l.Items) != c.want || (c.want < n && size >= allBytes) {
				t.Fatalf("%d pods in %d bytes, want %d pods in less than the unfiltered %d bytes", len(l.Items), size, c.want, allBytes)
			}
			t.Logf("%d of %d pods, %d of %d bytes (%.4f)", len(l.Items), n, size, allBytes, float64(size)/float64(allBytes))
		})
	}
}
