package source

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// TestFileWarningsReachStatusAndSet: a manifest the decoder accepts with
// warnings is listed with them in the status and its pod carries them in
// the SET, each as often as the decoder gave it, until the file is
// rewritten without them; a file without warnings has none.
func TestFileWarningsReachStatusAndSet(t *testing.T) {
	dir := t.TempDir()
	web, db := filepath.Join(dir, "web.yaml"), filepath.Join(dir, "db.yaml")
	write(t, web, "pod web warn=priority")
	write(t, db, "pod db")
	src, c := startFile(t, "", dir, 0)

	u := c.Until("db-node-1", "web-node-1")
	if len(u.Warnings) != len(u.Pods) {
		t.Fatalf("SET has %d warning lists for %d pods", len(u.Warnings), len(u.Pods))
	}
	for i, p := range u.Pods {
		want := []string(nil)
		if p.Name == "web-node-1" {
			want = []string{"priority"}
		}
		if !slices.Equal(u.Warnings[i], want) {
			t.Errorf("SET warnings of %s = %q, want %q", p.Name, u.Warnings[i], want)
		}
	}
	want := []staticpod.WarnedFile{{Path: web, Pod: "default/web-node-1", Warnings: []string{"priority"}}}
	if got := src.Status().Warned; !reflect.DeepEqual(got, want) {
		t.Errorf("status warned files = %+v, want %+v", got, want)
	}

	sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
	write(t, web, "pod web")
	sourcetest.Eventually(t, "warning gone from the status", func() bool { return len(src.Status().Warned) == 0 })
	for i := 0; ; i++ {
		u = c.Until("db-node-1", "web-node-1")
		if u.Warnings == nil {
			break
		}
		if i == 10 {
			t.Fatalf("SETs still carry warnings %q after %d updates", u.Warnings, i)
		}
	}
}
