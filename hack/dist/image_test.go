package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// openImage unpacks the OCI layout archive name in dir and returns the
// image index it holds (checked as a registry would: every digest, size and
// diff ID, and each image's platform against its config) and the
// annotations naming it.
func openImage(t *testing.T, dir, name string) (v1.ImageIndex, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		target := filepath.Join(root, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	top, err := layout.ImageIndexFromPath(root)
	if err != nil {
		t.Fatalf("%s is not an OCI layout: %v", name, err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].MediaType != types.OCIImageIndex {
		t.Fatalf("index.json lists %+v, want one image index", m.Manifests)
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Index(idx); err != nil {
		t.Fatalf("the image index is not valid: %v", err)
	}
	return idx, m.Manifests[0].Annotations
}

// agentIn returns the agent binary of the image for arch, after checking
// the image runs it as the Dockerfile's image does.
func agentIn(t *testing.T, idx v1.ImageIndex, arch string) []byte {
	t.Helper()
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" || d.Platform.Architecture != arch {
			continue
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(cfg.Config.Entrypoint, " ") != agentPath || cfg.Config.User != "0:0" {
			t.Fatalf("linux/%s runs %v as %q, want %s as 0:0", arch, cfg.Config.Entrypoint, cfg.Config.User, agentPath)
		}
		layers, err := img.Layers()
		if err != nil || len(layers) != 1 {
			t.Fatalf("linux/%s has %d layers (%v), want 1", arch, len(layers), err)
		}
		rc, err := layers[0].Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err != nil {
				t.Fatalf("linux/%s: no %s in the layer (%v)", arch, agentPath, err)
			}
			if "/"+h.Name == agentPath {
				if h.Mode&0o111 == 0 {
					t.Fatalf("%s has mode %o, not executable", agentPath, h.Mode)
				}
				bin, err := io.ReadAll(tr)
				if err != nil {
					t.Fatal(err)
				}
				return bin
			}
		}
	}
	t.Fatalf("no linux/%s image in %+v", arch, m.Manifests)
	return nil
}

// TestAgentImageLayout assembles the image from small stand-ins for the
// binaries, without cross-building the agent.
func TestAgentImageLayout(t *testing.T) {
	out := t.TempDir()
	bins := map[string][]byte{"amd64": []byte("agent for amd64"), "arm64": []byte("agent for arm64")}
	name, digest, err := writeAgentImage("v0.3.0", out, bins)
	if err != nil {
		t.Fatal(err)
	}
	if name != "podsrc-agent_v0.3.0.oci.tar" {
		t.Fatalf("archive %s", name)
	}
	idx, names := openImage(t, out, name)
	if got, err := idx.Digest(); err != nil || got != digest {
		t.Fatalf("index digest %v (%v), writeAgentImage said %v", got, err, digest)
	}
	if d, err := os.ReadFile(filepath.Join(out, "podsrc-agent_v0.3.0.digest")); err != nil || strings.TrimSpace(string(d)) != digest.String() {
		t.Fatalf("the digest file says %q (%v), want %s", d, err, digest)
	}
	if names["org.opencontainers.image.ref.name"] != "v0.3.0" || names["io.containerd.image.name"] != "ghcr.io/podsrc/podsrc-agent:v0.3.0" {
		t.Fatalf("the image is named %v", names)
	}
	for arch, want := range bins {
		if got := agentIn(t, idx, arch); !bytes.Equal(got, want) {
			t.Fatalf("linux/%s holds %q, want %q", arch, got, want)
		}
	}

	// The same binaries give the same image; another binary another one.
	if _, again, err := writeAgentImage("v0.3.0", t.TempDir(), bins); err != nil || again != digest {
		t.Fatalf("a second build has digest %v (%v), the first %v", again, err, digest)
	}
	bins["arm64"] = []byte("another agent for arm64")
	if _, other, err := writeAgentImage("v0.3.0", t.TempDir(), bins); err != nil || other == digest {
		t.Fatalf("another binary gave digest %v (%v), the same as before", other, err)
	}
}

// TestAgentImageRunsTheAgent builds the real agent of the newest kubelet
// minor for this machine's architecture only, as make dist builds each
// minor's for each, and runs the binary taken out of the image, named for
// its minor. The older minors' builds are vetted by make lint.
func TestAgentImageRunsTheAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	t.Chdir("../..")
	out := t.TempDir()
	name, _, err := agentImage("v0.3.0", agentBuilds[len(agentBuilds)-1], out, []string{runtime.GOARCH})
	if err != nil {
		t.Fatal(err)
	}
	if name != "podsrc-agent_v0.3.0-kubelet1.37.oci.tar" {
		t.Fatalf("archive %s, want podsrc-agent_v0.3.0-kubelet1.37.oci.tar", name)
	}
	idx, _ := openImage(t, out, name)
	bin := filepath.Join(t.TempDir(), "podsrc-agent")
	if err := os.WriteFile(bin, agentIn(t, idx, runtime.GOARCH), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(got), "v0.3.0") {
		t.Fatalf("podsrc-agent --version from the image: %v\n%s", err, got)
	}
}

// TestAgentBuilds checks that there is one agent build per kubelet minor
// podsrc reproduces, each that minor's module, and that their images are
// tagged as kubectl podsrc deploy expects.
func TestAgentBuilds(t *testing.T) {
	t.Chdir("../..")
	if len(agentBuilds) != len(kubeletminor.Supported) {
		t.Fatalf("%d agent builds for the %d minors %v", len(agentBuilds), len(kubeletminor.Supported), kubeletminor.Supported)
	}
	for i, b := range agentBuilds {
		if b.minor != kubeletminor.Supported[i] {
			t.Errorf("build %d is for %v, want %v", i, b.minor, kubeletminor.Supported[i])
		}
		mod, err := os.ReadFile(filepath.Join(b.dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		module := fmt.Sprintf("module github.com/podsrc/podsrc/cmd/podsrc-agent/kubelet1%d\n", int(b.minor))
		if !strings.HasPrefix(string(mod), module) {
			t.Errorf("%s/go.mod is not %q", b.dir, strings.TrimSpace(module))
		}
		tag, err := imageTag("v0.3.0", b.minor)
		if want := fmt.Sprintf("v0.3.0-kubelet1.%d", int(b.minor)); err != nil || tag != want {
			t.Errorf("the %v image's tag is %q (%v), want %q", b.minor, tag, err, want)
		}
	}
}

// TestAgentBuildsMatchTheMakefile checks that the Makefile builds the same
// agents as the release: its AGENT_MODULES are the builds of every minor, in
// the same order, so that its build target, which builds the last one as
// bin/podsrc-agent, builds the newest minor's agent.
func TestAgentBuildsMatchTheMakefile(t *testing.T) {
	t.Chdir("../..")
	data, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	modules, ok := makeVariable(string(data), "AGENT_MODULES")
	if !ok {
		t.Fatal("the Makefile sets no AGENT_MODULES")
	}
	var dirs []string
	for _, b := range agentBuilds {
		dirs = append(dirs, b.dir)
	}
	if got := strings.Fields(modules); !slices.Equal(got, dirs) {
		t.Errorf("the Makefile's AGENT_MODULES are %v, hack/dist's agentBuilds %v: change both", got, dirs)
	}
	if newest := agentBuilds[len(agentBuilds)-1].minor; newest != kubeletminor.Supported[len(kubeletminor.Supported)-1] {
		t.Errorf("the last agent build is for %v, but the Makefile's build target builds the last as the newest minor's agent", newest)
	}
}

// makeVariable returns the value a Makefile's simple `NAME := value` line
// (continued by trailing backslashes) gives the variable name.
func makeVariable(makefile, name string) (string, bool) {
	lines := strings.Split(makefile, "\n")
	for i, line := range lines {
		value, ok := strings.CutPrefix(line, name+" :=")
		if !ok {
			continue
		}
		for strings.HasSuffix(value, `\`) && i+1 < len(lines) {
			i++
			value = strings.TrimSuffix(value, `\`) + " " + lines[i]
		}
		return value, true
	}
	return "", false
}
