package source

import (
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/merge"
)

func TestManifestFingerprint(t *testing.T) {
	base := manifestFingerprint("/etc/kubernetes/manifests/a.yaml", "node-1", []byte("pod a"))
	tests := []struct {
		name           string
		origin, node   string
		data           string
		sameAsBaseline bool
	}{
		{name: "the same manifest", origin: "/etc/kubernetes/manifests/a.yaml", node: "node-1", data: "pod a", sameAsBaseline: true},
		{name: "other bytes", origin: "/etc/kubernetes/manifests/a.yaml", node: "node-1", data: "pod a "},
		{name: "other path", origin: "/etc/kubernetes/manifests/b.yaml", node: "node-1", data: "pod a"},
		{name: "other node", origin: "/etc/kubernetes/manifests/a.yaml", node: "node-2", data: "pod a"},
		// Lengths keep the parts apart: moving bytes from one part to the
		// next is another manifest.
		{name: "path and node split elsewhere", origin: "/etc/kubernetes/manifests/a.yamlnode", node: "-1", data: "pod a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := manifestFingerprint(tt.origin, tt.node, []byte(tt.data))
			if (got == base) != tt.sameAsBaseline {
				t.Fatalf("fingerprint equal to the baseline's: %v, want %v", got == base, tt.sameAsBaseline)
			}
		})
	}
}

// fingerprintsByName maps an update's pod names to their fingerprints and
// pods.
func fingerprintsByName(t *testing.T, u merge.PodUpdate) (map[string]string, map[string]*v1.Pod) {
	t.Helper()
	if len(u.Fingerprints) != len(u.Pods) {
		t.Fatalf("%d fingerprints for %d pods", len(u.Fingerprints), len(u.Pods))
	}
	fps, pods := map[string]string{}, map[string]*v1.Pod{}
	for i, p := range u.Pods {
		if u.Fingerprints[i] == "" {
			t.Fatalf("pod %s has no fingerprint", p.Name)
		}
		fps[p.Name], pods[p.Name] = u.Fingerprints[i], p
	}
	return fps, pods
}

// TestFileSourceFingerprints relists an unchanged directory: every pod keeps
// its fingerprint and its object (the manifest is not decoded again); a
// changed manifest changes only its own pod's fingerprint.
func TestFileSourceFingerprints(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.yaml"), "pod a")
	write(t, filepath.Join(dir, "b.yaml"), "pod b")
	_, c := startFile(t, "", dir, 20*time.Millisecond)
	first, firstPods := fingerprintsByName(t, c.Until("a-node-1", "b-node-1"))
	if first["a-node-1"] == first["b-node-1"] {
		t.Fatal("two manifests have the same fingerprint")
	}
	again, againPods := fingerprintsByName(t, c.Until("a-node-1", "b-node-1"))
	for name, fp := range first {
		if again[name] != fp {
			t.Errorf("relist of an unchanged %s: fingerprint changed", name)
		}
		if againPods[name] != firstPods[name] {
			t.Errorf("relist of an unchanged %s: the manifest was decoded again", name)
		}
	}
	write(t, filepath.Join(dir, "a.yaml"), "pod a v2")
	for deadline := time.Now().Add(sourcetest.WaitLimit); ; {
		if time.Now().After(deadline) {
			t.Fatalf("a's fingerprint did not change within %v of its new manifest", sourcetest.WaitLimit)
		}
		changed, _ := fingerprintsByName(t, c.Until("a-node-1", "b-node-1"))
		if changed["a-node-1"] == first["a-node-1"] {
			continue // a relist or event from before the write
		}
		if changed["b-node-1"] != first["b-node-1"] {
			t.Errorf("b's fingerprint changed with a's manifest")
		}
		break
	}
}

// TestURLSourceFingerprints: each pod of a body has its own fingerprint, and
// a changed body changes them all.
func TestURLSourceFingerprints(t *testing.T) {
	srv := &bodyServer{status: 200, body: "pod web v1\npod other"}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	_, c := startURL(t, hs.URL, URLOptions{Period: 10 * time.Millisecond})
	first, _ := fingerprintsByName(t, c.Until("other-node-1", "web-node-1"))
	if first["web-node-1"] == first["other-node-1"] {
		t.Fatal("two pods of one body have the same fingerprint")
	}
	srv.set(200, "pod web v1\npod other\n")
	changed, _ := fingerprintsByName(t, c.Until("other-node-1", "web-node-1"))
	for name, fp := range first {
		if changed[name] == fp {
			t.Errorf("pod %s kept its fingerprint in another body", name)
		}
	}
}
