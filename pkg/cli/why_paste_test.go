package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// realKubectl returns a kubectl binary to paste suggestions into: the one
// $PODSRC_KUBECTL names, or the test cluster's build in the cache
// ($PODSRC_CACHE, /var/cache/podsrc by default, as hack/lib/cluster.sh);
// without one the test fails where the cluster tests run, and is skipped
// elsewhere.
func realKubectl(t *testing.T) string {
	t.Helper()
	if k := os.Getenv("PODSRC_KUBECTL"); k != "" {
		return k
	}
	cache := os.Getenv("PODSRC_CACHE")
	if cache == "" {
		cache = "/var/cache/podsrc"
	}
	builds, _ := filepath.Glob(filepath.Join(cache, "k8s-*", ".complete"))
	for _, b := range builds {
		if k := filepath.Join(filepath.Dir(b), "kubectl"); isExecutable(k) {
			return k
		}
	}
	msg := fmt.Sprintf("no real kubectl: set PODSRC_KUBECTL, or build the test cluster's binaries into %s (hack/cluster.sh build builds them; or: cd hack/tools/k8s && go build -o DIR k8s.io/kubernetes/cmd/kubectl)", cache)
	// Where the cluster tests run (as root, not turned off), the cluster's
	// build is there: its absence is a failure, not a reason to skip.
	if os.Geteuid() == 0 && os.Getenv("PODSRC_TEST_CLUSTER") != "off" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// recorder counts the requests a loopback server gets and keeps their
// Authorization headers.
type recorder struct {
	mu    sync.Mutex
	paths []string
	auth  []string
}

func (r *recorder) record(req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paths = append(r.paths, req.Method+" "+req.URL.Path)
	r.auth = append(r.auth, req.Header.Get("Authorization"))
}

func (r *recorder) seen() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...), append([]string(nil), r.auth...)
}

// pastedCommand finds a kubectl command in a suggestion: up to the prose
// after it.
var pastedCommand = regexp.MustCompile(`kubectl (?:delete|get|replace) [^()]*?(?:$| \(|; |, then)`)

// TestPastedAdviceSendsNothingToTheAgentsServer is the bearer-token
// reproduction: a hostile agent serves rejected pods in namespace
// --server=https://ATTACKER named --insecure-skip-tls-verify, one with a
// controller and one without; why suggests a command for each, and a
// real kubectl runs it, pasted through bash, with the user's kubeconfig.
// The user's API server gets kubectl's requests with the user's token;
// the attacker's gets nothing.
func TestPastedAdviceSendsNothingToTheAgentsServer(t *testing.T) {
	kubectl := realKubectl(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var user, attacker recorder
	userSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user.record(r)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api":
			json.NewEncoder(w).Encode(metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}})
		case "/apis":
			json.NewEncoder(w).Encode(metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}})
		case "/api/v1":
			json.NewEncoder(w).Encode(metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "v1",
				APIResources: []metav1.APIResource{{Name: "pods", Namespaced: true, Kind: "Pod", Verbs: []string{"get", "delete", "create", "update"}}}})
		default:
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: 404, Reason: metav1.StatusReasonNotFound, Message: "not found"})
		}
	}))
	defer userSrv.Close()
	attackerSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attacker.record(r)
		w.WriteHeader(http.StatusNotFound)
	}))
	defer attackerSrv.Close()

	ns, name := "--server="+attackerSrv.URL, "--insecure-skip-tls-verify"
	fa := fakeagent.New(whyNode)
	fa.Sources.Items = []v1alpha1.Source{{Name: v1alpha1.SourceAPI, Target: "https://10.0.0.1:6443", Seen: true, Pods: 2}}
	cs := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: whyNode}}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	for _, p := range []struct {
		name, uid string
		owned     bool
	}{{name, "hostile-owned", true}, {name + "-", "hostile-bare", false}} {
		fa.Pods.Items = append(fa.Pods.Items, v1alpha1.PodInfo{Name: p.name, Namespace: ns, UID: types.UID(p.uid), Source: v1alpha1.SourceAPI,
			Admission: &v1alpha1.Admission{Reason: "OutOfcpu", ReadBack: true}})
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: p.name, UID: types.UID(p.uid)},
			Spec:   corev1.PodSpec{NodeName: whyNode, Containers: []corev1.Container{{Name: "app", Image: "app:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "OutOfcpu"}}
		if p.owned {
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "--kubeconfig=/dev/null", UID: "rs", Controller: ptrTo(true)}}
		}
		if err := cs.Tracker().Add(pod); err != nil {
			t.Fatal(err)
		}
	}
	agent := httptest.NewServer(fa)
	defer agent.Close()

	out, errOut, code := runWhy(t, cs, "why", "--agent-url", agent.URL, "--all", "-o", "json")
	if code != ExitFailing {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitFailing, errOut)
	}
	var list struct{ Items []v1alpha1.WhyReport }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("decoding the reports: %v\n%s", err, out)
	}
	var commands []string
	for _, r := range list.Items {
		cmds := pastedCommand.FindAllString(r.Suggestion, -1)
		if len(cmds) == 0 {
			t.Errorf("no kubectl command in the suggestion for %s: %q", r.Target, r.Suggestion)
		}
		for _, c := range cmds {
			for _, end := range []string{" (", "; ", ", then"} {
				c = strings.TrimSuffix(c, end)
			}
			commands = append(commands, c)
		}
	}
	if len(commands) < 2 {
		t.Fatalf("%d commands suggested, want one per pod at least: %q", len(commands), commands)
	}

	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: " + strconv.Quote(userSrv.URL) + ", insecure-skip-tls-verify: true}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n"
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(kubectl, filepath.Join(bin, "kubectl")); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		sh := exec.Command(bash, "--norc", "--noprofile", "-c", c)
		sh.Dir = dir
		sh.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "KUBECONFIG=" + kc}
		got, _ := sh.CombinedOutput()
		t.Logf("pasted %s:\n%s", c, got)
	}
	userPaths, userAuth := user.seen()
	if len(userPaths) == 0 {
		t.Errorf("the user's API server got no request: the pasted commands did not run")
	}
	for _, a := range userAuth {
		if a != "Bearer t" {
			t.Errorf("the user's API server got Authorization %q, want the kubeconfig's token", a)
		}
	}
	if paths, auth := attacker.seen(); len(paths) > 0 {
		t.Errorf("the agent's server got %d requests %q, with Authorization %q", len(paths), paths, auth)
	}
}

func ptrTo[T any](v T) *T { return &v }
