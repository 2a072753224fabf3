package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/internal/agentprocess"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// secretPod is a static pod with a secret volume: a kubelet with
// PreventStaticPodAPIReferences on (the default since v1.34) rejects it,
// one with the gate off runs it.
const secretPod = `apiVersion: v1
kind: Pod
metadata:
  name: creds
spec:
  containers:
  - name: app
    image: podsrc.local/testimg:v1
  volumes:
  - name: creds
    secret:
      secretName: creds
`

// TestProcessFollowsTheKubeletsFeatureGates runs the binary on a kubelet
// configuration file, with and without featureGates and --feature-gates:
// its decoder accepts a static pod that references a secret exactly when
// PreventStaticPodAPIReferences is off for the kubelet, the flag
// overriding the file as in the kubelet.
func TestProcessFollowsTheKubeletsFeatureGates(t *testing.T) {
	bin := agentprocess.Build(t)
	tests := []struct {
		name     string
		gates    string // the config file's featureGates, YAML flow style
		args     []string
		accepted bool
	}{
		{name: "default: the gate is on"},
		{name: "off in the config file", gates: "{PreventStaticPodAPIReferences: false}", accepted: true},
		{name: "off by the flag", args: []string{"--feature-gates=PreventStaticPodAPIReferences=false"}, accepted: true},
		{name: "the flag overrides the file", gates: "{PreventStaticPodAPIReferences: false}", args: []string{"--feature-gates=PreventStaticPodAPIReferences=true"}},
		{name: "gates the agent does not know are ignored", gates: "{PreventStaticPodAPIReferences: false, NoSuchGate: true}", accepted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			manifests := filepath.Join(dir, "manifests")
			if err := os.Mkdir(manifests, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(manifests, "creds.yaml"), []byte(secretPod), 0o644); err != nil {
				t.Fatal(err)
			}
			config := fmt.Sprintf("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: %s\n", manifests)
			if tt.gates != "" {
				config += "featureGates: " + tt.gates + "\n"
			}
			configPath := filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			_, base := agentprocess.StartServing(t, bin, append([]string{"--kubelet-config=" + configPath, "--api-source=false", "--runtime-endpoint="}, tt.args...)...)
			var pods v1alpha1.PodList
			var sources v1alpha1.SourceList
			agentprocess.Await(t, "the file source to list the pod or reject its file", func() bool {
				if agentprocess.GetJSON(base+"/api/v1alpha1/pods", &pods) != nil || agentprocess.GetJSON(base+"/api/v1alpha1/sources", &sources) != nil {
					return false
				}
				return len(pods.Items) > 0 || len(rejected(sources)) > 0
			})
			if got := len(pods.Items) == 1; got != tt.accepted {
				t.Fatalf("pod accepted: %v (pods %+v, rejected %v); want %v", got, pods.Items, rejected(sources), tt.accepted)
			}
			if !tt.accepted && !strings.Contains(strings.Join(rejected(sources), "\n"), "static pods may not reference secrets") {
				t.Errorf("rejected %v, want the gate's error", rejected(sources))
			}
		})
	}
}

// rejected returns the errors of the files the sources reject.
func rejected(l v1alpha1.SourceList) []string {
	var out []string
	for _, s := range l.Items {
		for _, r := range s.RejectedFiles {
			out = append(out, r.Error)
		}
	}
	return out
}
