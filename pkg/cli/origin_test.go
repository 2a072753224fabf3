package cli

import (
	"context"
	"strings"
	"testing"
)

// TestEventsByOrigin: a static pod's config event names its manifest in
// DETAIL (ORIGIN with -o wide, origin in JSON), and --origin keeps only the
// events of the manifests it names, matched exactly.
func TestEventsByOrigin(t *testing.T) {
	const etcd = "/etc/kubernetes/manifests/etcd.yaml"
	for _, tc := range []struct {
		name        string
		args        []string
		want, never []string
	}{
		{"the table names the manifest", nil, []string{"from " + etcd, "default/web-node-1"}, nil},
		{"-o wide has a column", []string{"-o", "wide"}, []string{"ORIGIN", etcd}, []string{"from " + etcd}},
		{"-o json has a field", []string{"-o", "jsonpath={.items[*].event.pods[*].origin}"}, []string{etcd}, nil},
		{"--origin keeps its manifest's events", []string{"--origin=" + etcd},
			[]string{"kube-system/etcd-node-1", "from " + etcd}, []string{"default/web-node-1", "ContainerStarted"}},
		{"--origin matches whole paths", []string{"--origin=/etc/kubernetes/manifests/etcd"}, nil, []string{"etcd-node-1"}},
		{"--origin excludes", []string{"--origin=!" + etcd}, []string{"default/web-node-1"}, []string{"from " + etcd}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, u := richAgent(t, "node-1", 1)
			out, errOut, err := run(t, context.Background(), append([]string{"events", "--agent-url", u}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v; stderr %s", err, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(out, n) {
					t.Errorf("the output has %q:\n%s", n, out)
				}
			}
		})
	}
}
