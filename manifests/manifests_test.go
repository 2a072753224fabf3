package manifests

import (
	"bytes"
	"os"
	"testing"
)

// TestEmbeddedIsTheFile checks that the plugin applies daemonset.yaml as it
// is in the tree, byte for byte.
func TestEmbeddedIsTheFile(t *testing.T) {
	file, err := os.ReadFile("daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, DaemonSet) {
		t.Fatalf("the embedded manifest (%d bytes) differs from manifests/daemonset.yaml (%d bytes)", len(DaemonSet), len(file))
	}
}
