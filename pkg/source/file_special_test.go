package source

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podsrc/podsrc/internal/sourcetest"
)

// specialFiles are files in a static pod directory that are not regular
// files, each with how to make it and what its rejection must say. The
// kubelet freezes on a FIFO that appears through a watch event; podsrc
// must reject every one of them on every path and go on.
var specialFiles = []struct {
	name string
	make func(t *testing.T, path string)
	want string
}{
	{name: "fifo", want: "named pipe", make: func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{name: "socket", want: "socket", make: func(t *testing.T, path string) {
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		// Closing a listener removes its socket file; keep it.
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		t.Cleanup(func() { l.Close() })
	}},
	{name: "char device", want: "character device", make: func(t *testing.T, path string) {
		if os.Geteuid() != 0 {
			t.Skip("mknod needs root")
		}
		// The device numbers of /dev/null.
		if err := syscall.Mknod(path, syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
			t.Skipf("mknod: %v", err)
		}
	}},
	{name: "symlink loop", want: "too many levels of symbolic links", make: func(t *testing.T, path string) {
		other := path + "-other"
		if err := os.Symlink(filepath.Base(path), other); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Base(other), path); err != nil {
			t.Fatal(err)
		}
	}},
}

// rejectedWith reports whether the source lists path as rejected with an
// error that names it and contains want.
func rejectedWith(s *FileSource, path, want string) bool {
	for _, r := range s.Status().Rejected {
		if r.Path == path && strings.Contains(r.Error, path) && strings.Contains(r.Error, want) {
			return true
		}
	}
	return false
}

// TestFileSourceSkipsFilesThatAreNotRegular puts each kind of special file
// into a watched static pod directory, before the source starts (the
// relist's path) and while it watches (the watch event's path): the file
// is reported as rejected with its type, and the source goes on reading
// the manifests that come after it.
func TestFileSourceSkipsFilesThatAreNotRegular(t *testing.T) {
	for _, sf := range specialFiles {
		t.Run(sf.name+" at start", func(t *testing.T) {
			dir := t.TempDir()
			special := filepath.Join(dir, "a-special.yaml")
			sf.make(t, special)
			write(t, filepath.Join(dir, "good.yaml"), "pod good")
			src, c := startFile(t, "", dir, 0)
			c.Until("good-node-1")
			if !rejectedWith(src, special, sf.want) {
				t.Fatalf("rejected = %+v, want %s rejected as %q", src.Status().Rejected, special, sf.want)
			}
			sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
			write(t, filepath.Join(dir, "later.yaml"), "pod later")
			c.Until("good-node-1", "later-node-1")
		})
		t.Run(sf.name+" while watching", func(t *testing.T) {
			dir := t.TempDir()
			src, c := startFile(t, "", dir, 0)
			c.Until()
			sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
			special := filepath.Join(dir, "a-special.yaml")
			sf.make(t, special)
			write(t, filepath.Join(dir, "good.yaml"), "pod good")
			c.Until("good-node-1")
			sourcetest.Eventually(t, "special file rejected", func() bool { return rejectedWith(src, special, sf.want) })
		})
	}
}

// TestFileSourceStaticPodPathIsAFIFO points a single-file static pod path
// at a FIFO: the source reports it and stops when asked.
func TestFileSourceStaticPodPathIsAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pod.yaml")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := startFile(t, "", path, 0)
	sourcetest.Eventually(t, "the FIFO reported", func() bool {
		st := src.Status()
		return strings.Contains(st.LastError, "named pipe") && strings.Contains(st.LastError, path)
	})
	// runSource's cleanup fails the test if Run does not return.
}
