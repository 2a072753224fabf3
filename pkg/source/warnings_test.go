package source

import (
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

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

// TestURLWarningsReachStatusAndSet: a URL's single pod with warnings
// carries them in the SET and the status lists the URL (masked) with
// them, until the body becomes a pod list, whose items have none.
func TestURLWarningsReachStatusAndSet(t *testing.T) {
	body := &bodyServer{status: 200, body: "pod a warn=priority"}
	hs := httptest.NewServer(body)
	t.Cleanup(hs.Close)
	src, c := startURL(t, hs.URL+"/pods?token=secret", URLOptions{Period: 10 * time.Millisecond})
	u := c.Until("a-node-1")
	if len(u.Warnings) != 1 || !slices.Equal(u.Warnings[0], []string{"priority"}) {
		t.Errorf("SET warnings %q, want [[priority]]", u.Warnings)
	}
	want := []staticpod.WarnedFile{{Path: hs.URL + "/pods?token=xxxxx", Pod: "default/a-node-1", Warnings: []string{"priority"}}}
	if got := src.Status().Warned; !reflect.DeepEqual(got, want) {
		t.Errorf("status warned = %+v, want %+v", got, want)
	}
	body.set(200, "pod a warn=priority\npod b")
	u = c.Until("a-node-1", "b-node-1")
	if u.Warnings != nil {
		t.Errorf("SET of a pod list has warnings %q", u.Warnings)
	}
	if got := src.Status().Warned; got != nil {
		t.Errorf("status warned = %+v after a pod list, want none", got)
	}
}
