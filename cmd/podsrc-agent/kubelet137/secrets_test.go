package main

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/internal/agentprocess"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// secretsManifest is a valid static pod with a secret everywhere the
// projection leaves out: probe and hook commands and headers, env, an
// annotation, a volume's settings.
const secretsManifest = `apiVersion: v1
kind: Pod
metadata:
  name: db
  annotations:
    team: annotation-c0ffee
spec:
  volumes:
  - name: data
    hostPath:
      path: /srv/hostpath-c0ffee
  containers:
  - name: app
    image: podsrc.local/testimg:v1
    command: ["/db", "--password", "command-c0ffee"]
    env:
    - name: DB_URL
      value: postgres://u:env-c0ffee@db/x
    livenessProbe:
      exec:
        command: ["check", "--token=probe-c0ffee"]
    readinessProbe:
      httpGet:
        path: /ready?key=path-c0ffee
        port: 8080
        httpHeaders:
        - name: Authorization
          value: Bearer header-c0ffee
    lifecycle:
      preStop:
        exec:
          command: ["stop", "hook-c0ffee"]
`

// configMapManifest is not a pod: the kubelet's message about it prints
// the whole object.
const configMapManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: oops
data:
  password: configmap-c0ffee
`

// kubeletConfig is a kubelet configuration file with the static pod URL's
// credentials and header, which the flags override.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
staticPodURL: http://kcuser-c0ffee:kcpassword-c0ffee@127.0.0.1:1/pods?token=kcquery-c0ffee
staticPodURLHeader:
  Authorization: ["Bearer kcheader-c0ffee"]
`

// TestProcessServesNoSecrets runs the real binary, with the kubelet's own
// decoder, on a static pod full of secrets, a ConfigMap put among the
// manifests, a static pod URL with credentials that fails, a header flag,
// a kubelet configuration file with both, and profiling: no secret reaches
// the API, the stream or the log.
func TestProcessServesNoSecrets(t *testing.T) {
	bin := agentprocess.Build(t)
	dir := t.TempDir()
	for name, content := range map[string]string{"db.yaml": secretsManifest, "oops.yaml": configMapManifest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kcFile := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(kcFile, []byte(kubeletConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "try later", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	podURL := strings.Replace(failing.URL, "http://", "http://user-c0ffee:password-c0ffee@", 1) + "/pods?token=query-c0ffee"

	addr, profiling := agentprocess.FreeAddress(t), agentprocess.FreeAddress(t)
	p := agentprocess.Start(t, bin, "--node-name=node-1", "--static-pod-path="+dir, "--api-source=false",
		"--static-pod-url="+podURL, "--static-pod-url-header=Authorization: Bearer flag-c0ffee", "--kubelet-config="+kcFile,
		"--runtime-endpoint=", "--listen-address="+addr, "--heartbeat=100ms",
		"--enable-profiling", "--profiling-address="+profiling, "-v=4")

	base := "http://" + addr
	var sources v1alpha1.SourceList
	var pods v1alpha1.PodList
	deadline := time.Now().Add(agentprocess.WaitLimit)
	for {
		errs := 0
		if agentprocess.GetJSON(base+"/api/v1alpha1/sources", &sources) == nil {
			for _, s := range sources.Items {
				errs += len(s.RejectedFiles) + min(len(s.LastError), 1)
			}
		}
		if agentprocess.GetJSON(base+"/api/v1alpha1/pods", &pods) == nil && len(pods.Items) == 1 && errs == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never showed the pod, the rejected ConfigMap and the URL's error: %+v %+v", sources, pods)
		}
		time.Sleep(50 * time.Millisecond)
	}

	served := map[string]string{}
	get := func(url string) string {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
		}
		return string(body)
	}
	for _, path := range []string{"/api/v1alpha1/sources", "/api/v1alpha1/pods", "/api/v1alpha1/pods/" + string(pods.Items[0].UID), "/api/v1alpha1/pleg", v1alpha1.KubeletConfigPath, "/metrics", "/version"} {
		served[path] = get(base + path)
	}
	// The profiles are on their own loopback listener.
	served["/debug/pprof/cmdline"] = get("http://" + profiling + "/debug/pprof/cmdline")
	resp, err := http.Get(base + "/api/v1alpha1/events?since=0")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), `"heartbeat"`) {
		served["the stream"] += sc.Text() + "\n"
	}
	resp.Body.Close()
	if !strings.Contains(served["/api/v1alpha1/pods/"+string(pods.Items[0].UID)], `"image": "podsrc.local/testimg:v1"`) ||
		!strings.Contains(served["/api/v1alpha1/sources"], "xxxxx") {
		t.Errorf("the pod or the masked URL is not served:\n%s\n%s", served["/api/v1alpha1/pods/"+string(pods.Items[0].UID)], served["/api/v1alpha1/sources"])
	}
	p.Stop()

	everywhere := []string{"annotation-", "hostpath-", "command-", "env-", "probe-", "path-", "header-", "hook-", "configmap-",
		"user-", "password-", "query-", "flag-", "kcuser-", "kcpassword-", "kcquery-", "kcheader-"}
	if !strings.Contains(served[v1alpha1.KubeletConfigPath], `"staticPodURLHeader"`) {
		t.Errorf("the kubelet configuration is not served:\n%s", served[v1alpha1.KubeletConfigPath])
	}
	for _, s := range everywhere {
		for where, text := range served {
			if strings.Contains(text, s+"c0ffee") {
				t.Errorf("%s shows %sc0ffee", where, s)
			}
		}
	}
	// Credentials stay out of the log too (the kubelet's own messages
	// about a rejected manifest are logged as they are).
	for _, s := range []string{"user-", "password-", "query-", "flag-", "kcuser-", "kcpassword-", "kcquery-", "kcheader-"} {
		if strings.Contains(p.Logs(), s+"c0ffee") {
			t.Errorf("the log shows %sc0ffee", s)
		}
	}
}
