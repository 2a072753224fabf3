package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/podsrc/podsrc/internal/minorsites"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/deploy"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// The agent's image: where the agent sits in it, the repository the
// release workflow pushes it to (manifests/daemonset.yaml and
// kubectl podsrc deploy name it) and the architectures it is built for.
const (
	agentPath       = "/usr/local/bin/podsrc-agent"
	agentRepository = client.AgentImageRepository
)

var imageArchs = []string{"amd64", "arm64"}

// agentBuild is the module of the agent build for one kubelet minor: an
// agent links one minor's static pod decoder.
type agentBuild struct {
	minor kubeletminor.Minor
	dir   string
}

// agentBuilds are the agent's builds, one per kubelet minor podsrc
// reproduces, the newest last, each from that minor's module. The
// Makefile's AGENT_MODULES list the same modules
// (TestAgentBuildsMatchTheMakefile and go test ./internal/minorsites keep
// them together).
var agentBuilds = buildsOf(kubeletminor.Supported)

// buildsOf is the agent build of each of minors.
func buildsOf(minors []kubeletminor.Minor) []agentBuild {
	builds := make([]agentBuild, len(minors))
	for i, m := range minors {
		builds[i] = agentBuild{minor: m, dir: minorsites.ModuleDir(m)}
	}
	return builds
}

// imageTag is the tag of the release's image for nodes of kubelet minor m,
// the one kubectl podsrc deploy runs there.
func imageTag(version string, m kubeletminor.Minor) (string, error) {
	ref, err := deploy.ImageFor(agentRepository+":"+version, m)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(ref, agentRepository+":"), nil
}

// agentImages builds the agent's image of every kubelet minor into out and
// prints each archive's digest.
func agentImages(version, out string) error {
	for _, b := range agentBuilds {
		name, digest, err := agentImage(version, b, out, imageArchs)
		if err != nil {
			return err
		}
		fmt.Printf("%s  %s\n", digest, filepath.Join(out, name))
	}
	return nil
}

// agentImage builds b's podsrc-agent for linux on every arch, as the
// Makefile and the Dockerfile build it but static, and writes the image of
// all of them, tagged for b's minor (see writeAgentImage).
func agentImage(version string, b agentBuild, out string, archs []string) (string, v1.Hash, error) {
	tag, err := imageTag(version, b.minor)
	if err != nil {
		return "", v1.Hash{}, err
	}
	bins := map[string][]byte{}
	tmp, err := os.MkdirTemp("", "podsrc-dist-agent-")
	if err != nil {
		return "", v1.Hash{}, err
	}
	defer os.RemoveAll(tmp)
	for _, arch := range archs {
		bin := filepath.Join(tmp, "podsrc-agent-"+arch)
		if err := goBuild(b.dir, ".", "linux", arch, agentTags, version, bin); err != nil {
			return "", v1.Hash{}, err
		}
		if bins[arch], err = os.ReadFile(bin); err != nil {
			return "", v1.Hash{}, err
		}
	}
	return writeAgentImage(tag, out, bins)
}

// agentTags are the build tags of the agent (see the Makefile's AGENT_TAGS).
const agentTags = "grpcnotrace"

// imageArchive and imageDigestFile name an agent image's files in dist.
func imageArchive(tag string) string    { return "podsrc-agent_" + tag + ".oci.tar" }
func imageDigestFile(tag string) string { return "podsrc-agent_" + tag + ".digest" }

// writeAgentImage writes out/podsrc-agent_<tag>.oci.tar, an OCI image
// layout archive holding one multi-arch image index (one linux image per
// arch of bins, each the agent binary alone), named <tag> and
// ghcr.io/podsrc/podsrc-agent:<tag>, and out/podsrc-agent_<tag>.digest
// with the index's digest, which is the digest the registry serves after a
// push. Fixed times make the same binaries give the same digest. It
// returns the archive's name and the digest.
func writeAgentImage(tag, out string, bins map[string][]byte) (string, v1.Hash, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	archs := make([]string, 0, len(bins))
	for arch := range bins {
		archs = append(archs, arch)
	}
	slices.Sort(archs)
	for _, arch := range archs {
		img, err := platformImage(tag, arch, bins[arch])
		if err != nil {
			return "", v1.Hash{}, fmt.Errorf("the agent image for linux/%s: %w", arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}},
		})
	}
	digest, err := idx.Digest()
	if err != nil {
		return "", v1.Hash{}, fmt.Errorf("the agent image's index: %w", err)
	}

	dir, err := os.MkdirTemp("", "podsrc-dist-layout-")
	if err != nil {
		return "", v1.Hash{}, err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", v1.Hash{}, fmt.Errorf("writing the OCI layout: %w", err)
	}
	names := map[string]string{
		"org.opencontainers.image.ref.name": tag,
		"io.containerd.image.name":          agentRepository + ":" + tag,
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(names)); err != nil {
		return "", v1.Hash{}, fmt.Errorf("writing the OCI layout: %w", err)
	}
	var buf bytes.Buffer
	if err := tarDir(&buf, dir); err != nil {
		return "", v1.Hash{}, fmt.Errorf("archiving the OCI layout: %w", err)
	}
	name := imageArchive(tag)
	if err := os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644); err != nil {
		return "", v1.Hash{}, err
	}
	if err := os.WriteFile(filepath.Join(out, imageDigestFile(tag)), []byte(digest.String()+"\n"), 0o644); err != nil {
		return "", v1.Hash{}, err
	}
	return name, digest, nil
}

// platformImage is the image of one arch: a single layer with the agent at
// agentPath, run as root as the Dockerfile's image is (the DaemonSet drops
// every capability and explains why).
func platformImage(tag, arch string, bin []byte) (v1.Image, error) {
	var layerTar bytes.Buffer
	tw := tar.NewWriter(&layerTar)
	dir := strings.TrimPrefix(path.Dir(agentPath), "/")
	for _, d := range []string{"usr/", "usr/local/", dir + "/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(agentPath, "/"), Mode: 0o755, Size: int64(len(bin)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := layerTar.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: epoch}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		Created:      created,
		RootFS:       v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: []string{agentPath},
			User:       "0:0",
			Labels: map[string]string{
				"org.opencontainers.image.title":    "podsrc-agent",
				"org.opencontainers.image.version":  tag,
				"org.opencontainers.image.source":   "https://github.com/podsrc/podsrc",
				"org.opencontainers.image.licenses": "Apache-2.0",
			},
		},
	})
	if err != nil {
		return nil, err
	}
	return mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: created, CreatedBy: "make dist (hack/dist)"},
	})
}

// tarDir writes the regular files under dir to w as a tar archive, sorted,
// with fixed times and modes.
func tarDir(w io.Writer, dir string) error {
	var files []archived
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, archived{name: filepath.ToSlash(rel), mode: 0o644, data: data})
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(files, func(a, b archived) int { return strings.Compare(a.name, b.name) })
	return writeTar(w, files)
}
