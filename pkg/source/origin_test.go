package source

import (
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/merge"
)

// TestSetsNameTheirOrigins: every SET names where each of its pods came
// from, for the merge to carry to the notifications: a file's pods their
// manifest's host path (a backup that shadows the file's pod its own),
// a URL's pods the URL with its credentials masked.
func TestSetsNameTheirOrigins(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		dir := t.TempDir()
		web, db := filepath.Join(dir, "web.yaml"), filepath.Join(dir, "db.yaml")
		write(t, web, "pod web")
		write(t, db, "pod db")
		src, c := startFile(t, "", dir, 0)
		got := originsOf(t, c.Until("db-node-1", "web-node-1"))
		if got["web-node-1"] != web || got["db-node-1"] != db {
			t.Errorf("origins %v, want web-node-1 from %s and db-node-1 from %s", got, web, db)
		}
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		// A later file of the same pod shadows it: the pod is now the backup's.
		backup := web + ".bak"
		write(t, backup, "pod web")
		// The first events may see the backup still empty.
		for i := 0; originsOf(t, c.Until("db-node-1", "web-node-1"))["web-node-1"] != backup; i++ {
			if i == 10 {
				t.Fatalf("no SET names %s as web-node-1's origin in %d updates", backup, i)
			}
		}
	})
	t.Run("url", func(t *testing.T) {
		hs := httptest.NewServer(&bodyServer{status: 200, body: "pod a\npod b"})
		t.Cleanup(hs.Close)
		_, c := startURL(t, strings.Replace(hs.URL, "http://", "http://user:secret@", 1)+"/pods?token=secret", URLOptions{})
		u := c.Until("a-node-1", "b-node-1")
		want := strings.Replace(hs.URL, "http://", "http://xxxxx@", 1) + "/pods?token=xxxxx"
		if !slices.Equal(u.Origins, []string{want, want}) {
			t.Errorf("origins %q, want %q for each pod", u.Origins, want)
		}
	})
}

// originsOf returns the update's origins keyed by pod name.
func originsOf(t *testing.T, u merge.PodUpdate) map[string]string {
	t.Helper()
	return sourcetest.ByName(t, u, "origins", u.Origins)
}
