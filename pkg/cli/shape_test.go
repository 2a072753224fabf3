package cli

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestOneObjectShapeForEveryCommand runs every command that prints
// objects with every machine-readable format: each object printed is a
// Kubernetes-style object (apiVersion, kind, metadata.name, nodeName), and
// .metadata.name names the same objects in -o json, yaml, jsonpath,
// custom-columns and name.
func TestOneObjectShapeForEveryCommand(t *testing.T) {
	srv := httptest.NewServer(whyFakeAgent())
	t.Cleanup(srv.Close)
	tests := []struct {
		name string
		args []string
		// list says the command prints a List; otherwise one object, or
		// (watch) an object per message.
		list bool
		want []string
	}{
		{"sources", []string{"sources", whyNode}, true, []string{"api", "file"}},
		{"pods", []string{"pods", whyNode, "-n", "kube-system", "--sort-by", ".metadata.uid"},
			true, []string{"broken-node-1", "broken-node-1", "etcd-node-1", "etcd-node-1", "fresh-node-1", "loop-node-1", "loop-node-1"}},
		{"pleg", []string{"pleg", whyNode}, true, []string{whyNode}},
		{"events", []string{"events", whyNode}, true, []string{"1", "2", "3"}},
		{"why all", []string{"why", whyNode, "--all", "--sort-by", ".metadata.name"}, true, []string{whyDir + "/bad.yaml", "broken-node-1", "etcd-node-1", "fresh-node-1", "loop-node-1"}},
		{"pod", []string{"pod", whyNode, "kube-system/etcd-node-1"}, false, []string{"etcd-node-1"}},
		{"why", []string{"why", whyNode, "broken"}, false, []string{"broken-node-1"}},
		{"watch", []string{"watch", whyNode, "--since=0", "--until=3"}, false, []string{"1", "2", "3"}},
	}
	formats := []struct {
		name  string
		args  func(list bool) []string
		names func(t *testing.T, out string) []string
	}{
		{"json", func(bool) []string { return []string{"-o", "json"} }, objectNames},
		{"yaml", func(bool) []string { return []string{"-o", "yaml"} }, objectNames},
		{"jsonpath", func(list bool) []string {
			if list {
				return []string{"-o", "jsonpath={.items[*].metadata.name}"}
			}
			return []string{"-o", `jsonpath={.metadata.name}{" "}`}
		}, func(_ *testing.T, out string) []string { return strings.Fields(out) }},
		{"custom-columns", func(bool) []string { return []string{"-o", "custom-columns=NAME:.metadata.name"} },
			func(t *testing.T, out string) []string {
				lines := strings.Split(strings.TrimSpace(out), "\n")
				if lines[0] != "NAME" {
					t.Errorf("-o custom-columns printed %q, want a header NAME", out)
				}
				return lines[1:]
			}},
		{"name", func(bool) []string { return []string{"-o", "name"} },
			func(t *testing.T, out string) []string {
				var names []string
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					kind, name, _ := strings.Cut(l, "/")
					if !strings.HasSuffix(kind, "."+v1alpha1.GroupName) {
						t.Errorf("-o name printed %q, want KIND.%s/NODE/NAME", l, v1alpha1.GroupName)
					}
					// -o name names each object after its node, but a
					// PLEG status, named after its node.
					names = append(names, strings.TrimPrefix(name, "node-1/"))
				}
				return names
			}},
	}
	for _, tc := range tests {
		for _, f := range formats {
			t.Run(tc.name+"/"+f.name, func(t *testing.T) {
				args := append(append(slices.Clone(tc.args), f.args(tc.list)...), "--agent-url", srv.URL)
				out, errOut, status := runWhy(t, whyCluster(), args...)
				if status != 0 && !strings.HasPrefix(tc.name, "why") {
					t.Fatalf("%v: exit status %d; stderr %s", args, status, errOut)
				}
				if got := f.names(t, out); !slices.Equal(got, tc.want) {
					t.Errorf("%v printed the names %q, want %q; stdout:\n%s\nstderr: %s", args, got, tc.want, out, errOut)
				}
			})
		}
	}
}

// objectNames decodes the JSON or YAML objects of out (a List, one object,
// or a stream of them), checks that each is a Kubernetes-style object of
// podsrc, and returns their metadata.name.
func objectNames(t *testing.T, out string) []string {
	t.Helper()
	var names []string
	check := func(o map[string]any) {
		md, _ := o["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		if o["apiVersion"] != v1alpha1.GroupVersion || o["kind"] == "" || name == "" || o["nodeName"] != whyNode {
			t.Errorf("object with apiVersion %v, kind %v, metadata %v, nodeName %v; want podsrc's apiVersion, a kind, a name and node %s", o["apiVersion"], o["kind"], o["metadata"], o["nodeName"], whyNode)
		}
		names = append(names, name)
	}
	d := yaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(out)), 4096)
	for {
		var o map[string]any
		err := d.Decode(&o)
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatalf("decoding %q: %v", out, err)
		}
		if o == nil {
			continue
		}
		if o["kind"] != "List" {
			check(o)
			continue
		}
		items, _ := o["items"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			check(m)
		}
	}
}
