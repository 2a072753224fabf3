package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/internal/krew"
)

// TestDistMatchesTheKrewManifest checks the committed krew/podsrc.yaml by
// krew's rules, builds the release archives again, checks each archive
// against the manifest written for it (sha256, bin and LICENSE inside),
// installs the plugin the way krew would on this machine and runs it through
// kubectl's plugin discovery.
func TestDistMatchesTheKrewManifest(t *testing.T) {
	t.Chdir("../..")
	data, err := os.ReadFile("krew/podsrc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var committed krew.Plugin
	if err := yaml.UnmarshalStrict(data, &committed); err != nil {
		t.Fatalf("krew/podsrc.yaml: %v", err)
	}
	if err := krew.Validate("podsrc", committed, platforms); err != nil {
		t.Fatalf("krew/podsrc.yaml breaks krew's rules: %v", err)
	}

	out := t.TempDir()
	manifest := filepath.Join(out, "podsrc.yaml")
	if err := run(committed.Spec.Version, out, manifest, "https://github.com/podsrc/podsrc/releases/download"); err != nil {
		t.Fatal(err)
	}
	freshData, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var fresh krew.Plugin
	if err := yaml.UnmarshalStrict(freshData, &fresh); err != nil {
		t.Fatal(err)
	}
	// The archives change with every change of the plugin's code, so the
	// committed checksums are those of the last release build; everything
	// else must be what make dist writes.
	for i := range fresh.Spec.Platforms {
		if i < len(committed.Spec.Platforms) {
			committed.Spec.Platforms[i].Sha256 = fresh.Spec.Platforms[i].Sha256
		}
	}
	if !reflect.DeepEqual(committed, fresh) {
		t.Fatalf("krew/podsrc.yaml differs from what make dist writes for %s: run make dist and commit it", committed.Spec.Version)
	}

	for _, pl := range fresh.Spec.Platforms {
		name := filepath.Base(pl.URI)
		archive, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		files, err := krew.ArchiveFiles(name, archive)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(files, pl.Bin) || !slices.Contains(files, "LICENSE") {
			t.Fatalf("%s holds %v, want %s and LICENSE", name, files, pl.Bin)
		}
	}

	root := t.TempDir()
	if _, err := krew.Install(fresh, runtime.GOOS, runtime.GOARCH, out, root); err != nil {
		t.Fatal(err)
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH to discover the plugin with (hack/install-deps.sh installs one)")
	}
	env := append(os.Environ(), "PATH="+filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+filepath.Join(root, "none"))
	list, err := runIn(env, kubectl, "plugin", "list")
	if err != nil || !strings.Contains(list, filepath.Join(root, "bin", "kubectl-podsrc")) {
		t.Fatalf("kubectl plugin list: %v\n%s", err, list)
	}
	version, err := runIn(env, kubectl, "podsrc", "version")
	if err != nil || !strings.Contains(version, committed.Spec.Version) {
		t.Fatalf("kubectl podsrc version: %v\n%s", err, version)
	}
}

func runIn(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
