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

// testPlatforms are the platforms the test builds; make dist builds them
// all. The host's build shares its compiled packages with the agent's
// (test/e2e builds it for the host too, CGO_ENABLED=0 and -trimpath, with the
// same build cache). windows/amd64 is the one most unlike the host: it
// catches a file or import the plugin needs that a build tag or a _unix.go
// name keeps off Windows, and it has the .exe name and the zip archive.
var testPlatforms = [][2]string{{runtime.GOOS, runtime.GOARCH}, {"windows", "amd64"}}

// TestDistMatchesTheKrewManifest checks the committed krew/podsrc.yaml by
// krew's rules, builds the release archives of testPlatforms again, checks
// each archive against the manifest written for it (sha256, bin and LICENSE
// inside), installs the plugin the way krew would on this machine and runs
// it through kubectl's plugin discovery.
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
	for _, p := range testPlatforms {
		if !slices.Contains(platforms, p) {
			t.Fatalf("the test builds %s/%s, which make dist does not release", p[0], p[1])
		}
	}

	out := t.TempDir()
	manifest := filepath.Join(out, "podsrc.yaml")
	if err := run(committed.Spec.Version, out, manifest, "https://github.com/podsrc/podsrc/releases/download", testPlatforms); err != nil {
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
	// else must be what make dist writes, for the platforms built here.
	built := map[string]krew.Platform{}
	for _, pl := range fresh.Spec.Platforms {
		built[platformKey(pl)] = pl
	}
	want := committed
	want.Spec.Platforms = nil
	for _, pl := range committed.Spec.Platforms {
		if f, ok := built[platformKey(pl)]; ok {
			pl.Sha256 = f.Sha256
			want.Spec.Platforms = append(want.Spec.Platforms, pl)
		}
	}
	if !reflect.DeepEqual(want, fresh) {
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
		shim := completionShim
		if pl.Selector.MatchLabels["os"] == "windows" {
			shim += ".cmd"
		}
		if !slices.Contains(files, pl.Bin) || !slices.Contains(files, "LICENSE") || !slices.Contains(files, shim) {
			t.Fatalf("%s holds %v, want %s, LICENSE and %s", name, files, pl.Bin, shim)
		}
	}

	root := t.TempDir()
	link, err := krew.Install(fresh, runtime.GOOS, runtime.GOARCH, out, root)
	if err != nil {
		t.Fatal(err)
	}
	// krew links only the plugin: the README has the completion shim
	// linked next to it.
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(target), completionShim), filepath.Join(root, "bin", completionShim)); err != nil {
		t.Fatalf("the completion shim is not in the plugin's directory: %v", err)
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
	// kubectl podsrc <TAB>, as the shells ask kubectl.
	comps, err := runIn(env, kubectl, "__complete", "podsrc", "")
	if err != nil || !strings.Contains(comps, "sources\t") || !strings.Contains(comps, "options\t") {
		t.Fatalf("kubectl __complete podsrc: %v\n%s", err, comps)
	}
}

// platformKey names a manifest platform by its os and arch.
func platformKey(pl krew.Platform) string {
	return pl.Selector.MatchLabels["os"] + "/" + pl.Selector.MatchLabels["arch"]
}

func runIn(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
