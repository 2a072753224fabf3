package cluster

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEnv(t *testing.T) {
	// As hack/cluster.sh containerd-up prints it; values may hold '='.
	out := "CONTAINERD_NAME=smoke\nCRI_ENDPOINT=unix:///run/podsrc-cluster/containerd-smoke/containerd.sock\n\n# comment\nEXTRA=a=b\n"
	got, err := parseEnv(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"CONTAINERD_NAME": "smoke",
		"CRI_ENDPOINT":    "unix:///run/podsrc-cluster/containerd-smoke/containerd.sock",
		"EXTRA":           "a=b",
	}
	if !maps.Equal(got, want) {
		t.Errorf("parseEnv = %v, want %v", got, want)
	}

	for _, bad := range []string{"cluster: reusing the running cluster\n", "=value\n"} {
		if env, err := parseEnv(bad); err == nil {
			t.Errorf("parseEnv(%q) = %v, want an error", bad, env)
		}
	}
}

func TestReadEnvNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "env")
	if err := os.WriteFile(path, []byte("KUBECONFIG=/k\nnot a pair\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readEnv(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a pair") {
		t.Errorf("readEnv of a bad file: %v, want an error naming %s and the line", err, path)
	}
}

func TestEnvFileFollowsRunDir(t *testing.T) {
	for _, tc := range []struct {
		name, runDir, want string
	}{
		{name: "default", runDir: "", want: "/run/podsrc-cluster/env"},
		{name: "moved", runDir: "/tmp/podsrc-run", want: "/tmp/podsrc-run/env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(RunDirEnv, tc.runDir)
			if got := EnvFile(); got != tc.want {
				t.Errorf("EnvFile() with %s=%q = %q, want %q", RunDirEnv, tc.runDir, got, tc.want)
			}
		})
	}
}
