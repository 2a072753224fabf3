package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// discoveryAPIServer adds to fakeAPIServer the discovery and the
// namespaces that kubectl's completion helpers ask for.
type discoveryAPIServer struct {
	fakeAPIServer
	namespaces []string
}

func (d *discoveryAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var v any
	switch r.URL.Path {
	case "/api":
		v = metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}}
	case "/apis":
		v = metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	case "/api/v1":
		v = metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "nodes", SingularName: "node", Kind: "Node", Verbs: metav1.Verbs{"get", "list"}, ShortNames: []string{"no"}},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: metav1.Verbs{"get", "list"}, ShortNames: []string{"ns"}},
		}}
	case "/api/v1/namespaces":
		l := corev1.NamespaceList{TypeMeta: metav1.TypeMeta{Kind: "NamespaceList", APIVersion: "v1"}}
		for _, n := range d.namespaces {
			l.Items = append(l.Items, corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
		}
		v = l
	default:
		d.fakeAPIServer.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// TestCompletion completes through cobra's __complete, as the shells and
// kubectl's plugin completion do.
func TestCompletion(t *testing.T) {
	api := httptest.NewServer(&discoveryAPIServer{
		fakeAPIServer: fakeAPIServer{nodes: []string{"node-1", "node-2", "worker-1"}},
		namespaces:    []string{"default", "kube-system"},
	})
	t.Cleanup(api.Close)
	cluster := []string{"--kubeconfig", kubeconfig(t, api.URL), "--cache-dir", t.TempDir()}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"node names", []string{"pods", ""}, []string{"node-1", "node-2", "worker-1"}},
		{"node names by prefix", []string{"sources", "no"}, []string{"node-1", "node-2"}},
		{"nodes named already left out", []string{"watch", "node-1", ""}, []string{"node-2", "worker-1"}},
		{"namespaces", []string{"pods", "node-1", "-n", ""}, []string{"default", "kube-system"}},
		{"contexts", []string{"pleg", "--context", ""}, []string{"c"}},
		{"clusters", []string{"pleg", "--cluster", ""}, []string{"c"}},
		{"users", []string{"pleg", "--user", ""}, []string{"u"}},
		{"shells", []string{"completion", ""}, []string{"bash", "fish", "powershell", "zsh"}},
		{"commands", []string{"o"}, []string{"options"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := completions(t, append(slices.Clip(cluster), tc.args...)...); !slices.Equal(got, tc.want) {
				t.Errorf("completions %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash":       "__start_kubectl-podsrc",
		"zsh":        "#compdef kubectl-podsrc",
		"fish":       "complete -c kubectl-podsrc",
		"powershell": "Register-ArgumentCompleter -CommandName 'kubectl-podsrc'",
	} {
		t.Run(shell, func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), "completion", shell)
			if err != nil || !strings.Contains(out, want) {
				t.Fatalf("error %v, stderr %s; the script lacks %q", err, errOut, want)
			}
		})
	}
}
