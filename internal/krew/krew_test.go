package krew

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var linuxAMD64 = [][2]string{{"linux", "amd64"}}

func validPlugin() Plugin {
	return Plugin{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{Name: "podsrc"},
		Spec: PluginSpec{
			Version:          "v0.1.0",
			ShortDescription: "Show what a node's kubelet sees",
			Platforms: []Platform{{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"os": "linux", "arch": "amd64"}},
				URI:      "https://example.invalid/kubectl-podsrc_v0.1.0_linux_amd64.tar.gz",
				Sha256:   strings.Repeat("ab", 32),
				Bin:      "kubectl-podsrc",
			}},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		change  func(*Plugin)
		wantErr string
	}{
		{name: "valid", file: "podsrc", change: func(*Plugin) {}},
		{name: "wrong apiVersion", file: "podsrc", change: func(p *Plugin) { p.APIVersion = "v1" }, wantErr: "apiVersion"},
		{name: "wrong kind", file: "podsrc", change: func(p *Plugin) { p.Kind = "Pod" }, wantErr: "kind"},
		{name: "name differs from the file", file: "other", change: func(*Plugin) {}, wantErr: "file name"},
		{name: "unsafe name", file: "pod src", change: func(p *Plugin) { p.Name = "pod src" }, wantErr: "must match"},
		{name: "no short description", file: "podsrc", change: func(p *Plugin) { p.Spec.ShortDescription = "" }, wantErr: "shortDescription"},
		{name: "two-line short description", file: "podsrc", change: func(p *Plugin) { p.Spec.ShortDescription = "a\nb" }, wantErr: "one line"},
		{name: "version without v", file: "podsrc", change: func(p *Plugin) { p.Spec.Version = "0.1.0" }, wantErr: "semantic version"},
		{name: "no platforms", file: "podsrc", change: func(p *Plugin) { p.Spec.Platforms = nil }, wantErr: "platforms"},
		{name: "upper-case sha256", file: "podsrc", change: func(p *Plugin) { p.Spec.Platforms[0].Sha256 = strings.Repeat("AB", 32) }, wantErr: "sha256"},
		{name: "no bin", file: "podsrc", change: func(p *Plugin) { p.Spec.Platforms[0].Bin = "" }, wantErr: "bin"},
		{name: "no uri", file: "podsrc", change: func(p *Plugin) { p.Spec.Platforms[0].URI = "" }, wantErr: "uri"},
		{name: "unknown selector key", file: "podsrc", change: func(p *Plugin) { p.Spec.Platforms[0].Selector.MatchLabels["distro"] = "debian" }, wantErr: "distro"},
		{name: "overlapping selectors", file: "podsrc", change: func(p *Plugin) {
			p.Spec.Platforms = append(p.Spec.Platforms, Platform{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"os": "linux"}},
				URI:      "u", Sha256: strings.Repeat("cd", 32), Bin: "b",
			})
		}, wantErr: "overlap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPlugin()
			tt.change(&p)
			err := Validate(tt.file, p, linuxAMD64)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got %v, want an error about %s", err, tt.wantErr)
			}
		})
	}
}

func TestInstall(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{"LICENSE": "Apache", "kubectl-podsrc": "#!/bin/sh\necho hi\n"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	archives := t.TempDir()
	if err := os.WriteFile(filepath.Join(archives, "kubectl-podsrc_v0.1.0_linux_amd64.tar.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	p := validPlugin()
	p.Spec.Platforms[0].Sha256 = hex.EncodeToString(sum[:])

	root := t.TempDir()
	link, err := Install(p, "linux", "amd64", archives, root)
	if err != nil {
		t.Fatal(err)
	}
	if link != filepath.Join(root, "bin", "kubectl-podsrc") {
		t.Fatalf("linked %s", link)
	}
	if data, err := os.ReadFile(link); err != nil || !strings.Contains(string(data), "echo hi") {
		t.Fatalf("the link does not reach the plugin: %v", err)
	}

	p.Spec.Platforms[0].Sha256 = strings.Repeat("00", 32)
	if _, err := Install(p, "linux", "amd64", archives, t.TempDir()); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("a wrong checksum installed: %v", err)
	}
	if _, err := Install(validPlugin(), "darwin", "arm64", archives, t.TempDir()); err == nil {
		t.Fatal("installed for a platform the manifest lacks")
	}
}
