package querytest

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// StaticSuffix ends the name of every file pod of Pods, as the kubelet
// names a static pod after its node (here node-1).
const StaticSuffix = "-node-1"

// Pods returns the pods the pod cases filter, in the order of an agent's
// pod list: the configured pods by namespace, name and source, then the
// pods only the runtime has (no source, no labels).
func Pods() []v1alpha1.PodInfo {
	pod := func(ns, name, source string, l map[string]string) v1alpha1.PodInfo {
		return v1alpha1.PodInfo{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name), Source: source, Labels: l}
	}
	return []v1alpha1.PodInfo{
		pod("default", "db-1", v1alpha1.SourceAPI, map[string]string{"app": "db"}),
		pod("default", "web-1", v1alpha1.SourceAPI, map[string]string{"app": "web", "tier": "frontend"}),
		pod("default", "web-2", v1alpha1.SourceAPI, map[string]string{"app": "web"}),
		pod("kube-system", "etcd"+StaticSuffix, v1alpha1.SourceFile, map[string]string{"tier": "control-plane", "component": "etcd"}),
		pod("kube-system", "kube-apiserver"+StaticSuffix, v1alpha1.SourceFile, map[string]string{"tier": "control-plane", "component": "kube-apiserver"}),
		pod("monitoring", "agent-x", v1alpha1.SourceAPI, map[string]string{"app": "agent"}),
		pod("default", "ghost", "", nil),
	}
}

// PodCase is a pod filter and the pods of Pods it keeps, each as
// namespace/name, in order.
type PodCase struct {
	Name  string
	Query v1alpha1.PodQuery
	Want  []string
}

// PodCases are the pod filter's cases.
var PodCases = []PodCase{
	{Name: "no filter", Want: podNames(0, 1, 2, 3, 4, 5, 6)},
	{Name: "a source leaves the runtime's pods out", Query: v1alpha1.PodQuery{Source: v1alpha1.SourceFile}, Want: podNames(3, 4)},
	{Name: "a source with no pods", Query: v1alpha1.PodQuery{Source: v1alpha1.SourceHTTP}},
	{Name: "a namespace keeps the runtime's pods in it", Query: v1alpha1.PodQuery{Namespaces: []string{"default"}}, Want: podNames(0, 1, 2, 6)},
	{Name: "two namespaces", Query: v1alpha1.PodQuery{Namespaces: []string{"kube-system", "monitoring"}}, Want: podNames(3, 4, 5)},
	{Name: "an excluded namespace", Query: v1alpha1.PodQuery{Namespaces: []string{"!default"}}, Want: podNames(3, 4, 5)},
	{Name: "a label selector", Query: v1alpha1.PodQuery{Selector: "app=web"}, Want: podNames(1, 2)},
	{Name: "a set selector", Query: v1alpha1.PodQuery{Selector: "app in (db,agent)"}, Want: podNames(0, 5)},
	{Name: "two requirements", Query: v1alpha1.PodQuery{Selector: "app=web,tier=frontend"}, Want: podNames(1)},
	{Name: "a negative selector keeps unlabelled pods", Query: v1alpha1.PodQuery{Selector: "app!=web"}, Want: podNames(0, 3, 4, 5, 6)},
	{Name: "an existence selector", Query: v1alpha1.PodQuery{Selector: "!app"}, Want: podNames(3, 4, 6)},
	{Name: "a namespace and a selector", Query: v1alpha1.PodQuery{Namespaces: []string{"kube-system"}, Selector: "component=etcd"}, Want: podNames(3)},
	{Name: "a source and a selector", Query: v1alpha1.PodQuery{Source: v1alpha1.SourceAPI, Selector: "app"}, Want: podNames(0, 1, 2, 5)},
	{Name: "a pod by namespace and name", Query: v1alpha1.PodQuery{Pods: []string{"default/web-1"}}, Want: podNames(1)},
	{Name: "a pod glob", Query: v1alpha1.PodQuery{Pods: []string{"*" + StaticSuffix}}, Want: podNames(3, 4)},
	{Name: "nothing matches", Query: v1alpha1.PodQuery{Namespaces: []string{"default"}, Selector: "tier=control-plane"}},
}

// podNames returns namespace/name of the pods of Pods at the indexes.
func podNames(i ...int) []string {
	pods := Pods()
	var out []string
	for _, n := range i {
		out = append(out, pods[n].Namespace+"/"+pods[n].Name)
	}
	return out
}

// BadPodQueries are pod queries an agent refuses with a 400, and what its
// message must say.
var BadPodQueries = []struct {
	Name, Query, Want string
}{
	{"an unknown source", "source=kubelet", `source "kubelet": want one of file, http, api`},
	{"two sources", "source=file&source=api", `source "file,api": want one source`},
	{"a bad namespace", "namespace=Kube_System", `namespace "Kube_System"`},
	{"a bad selector", "labelSelector=app%3D%3D%3Dweb", `labelSelector "app===web"`},
	{"a bad glob", "pod=web-%5B", `pod "web-[": want a glob`},
}

// RunPods runs every pod case: list gets the case's query and returns the
// pods of the list.
func RunPods(t *testing.T, list func(t *testing.T, q v1alpha1.PodQuery) []v1alpha1.PodInfo) {
	t.Helper()
	for _, c := range PodCases {
		t.Run(c.Name, func(t *testing.T) {
			checkKept(t, c.Query.Encode().Encode(), list(t, c.Query), c.Want)
		})
	}
}

// checkKept fails t unless the pods that query kept are want, as
// namespace/name in order.
func checkKept(t *testing.T, query string, kept []v1alpha1.PodInfo, want []string) {
	t.Helper()
	var got []string
	for _, p := range kept {
		got = append(got, p.Namespace+"/"+p.Name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("query %s kept\n\t%s\nwant\n\t%s", query, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
