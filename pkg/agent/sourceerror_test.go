package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestSourceErrorClearsWhenTheSourceRecovers: a static pod path that is
// missing is the file source's last error; once the directory exists and
// the source reads it, /sources (what -o yaml prints) has no last error but
// keeps it, with its time, as clearedError.
func TestSourceErrorClearsWhenTheSourceRecovers(t *testing.T) {
	const sourcesPath = v1alpha1.SourcesPath
	missing := filepath.Join(t.TempDir(), "manifests")
	ta := startAgent(t, func(c *Config) {
		c.Sources.StaticPodPath = missing
		c.Sources.FileCheckFrequency = 100 * time.Millisecond
	})
	fileSource := func(l v1alpha1.SourceList) (v1alpha1.Source, error) {
		for _, s := range l.Items {
			if s.Name == v1alpha1.SourceFile {
				return s, nil
			}
		}
		return v1alpha1.Source{}, fmt.Errorf("no file source in %+v", l.Items)
	}
	failing := awaitJSON(t, ta, sourcesPath, func(l v1alpha1.SourceList) error {
		s, err := fileSource(l)
		if err != nil {
			return err
		}
		if !strings.Contains(s.LastError, "path does not exist") || s.LastErrorTime == nil {
			return fmt.Errorf("last error %q at %v, want the missing path", s.LastError, s.LastErrorTime)
		}
		return nil
	})
	failed, _ := fileSource(failing)
	failedAt := failed.LastErrorTime

	if err := os.Mkdir(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	awaitJSON(t, ta, sourcesPath, func(l v1alpha1.SourceList) error {
		s, err := fileSource(l)
		if err != nil {
			return err
		}
		if s.LastError != "" || s.LastErrorTime != nil {
			return fmt.Errorf("last error %q at %v, want none once the path exists", s.LastError, s.LastErrorTime)
		}
		c := s.ClearedError
		if c == nil || !strings.Contains(c.Error, "path does not exist") {
			return fmt.Errorf("cleared error %+v, want the missing path", c)
		}
		if c.Time.Before(failedAt) || c.ClearedTime.Before(&c.Time) {
			return fmt.Errorf("cleared error at %v, cleared at %v; the error was seen at %v", c.Time, c.ClearedTime, failedAt)
		}
		return nil
	})
}
