package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

const testNode = "Node-1"

// startFile starts a file source on path (under hostRoot) and returns its
// collector; period 0 means an hour, so that only fsnotify moves it.
func startFile(t *testing.T, hostRoot, path string, period time.Duration) (*FileSource, *sourcetest.Collector) {
	t.Helper()
	if period == 0 {
		period = time.Hour
	}
	c := sourcetest.NewCollector(t)
	src, err := NewFile(FileOptions{
		Path: path, HostRoot: hostRoot, NodeName: testNode,
		Decoder: fakeDecoder{}, Period: period, Updates: c.Updates,
	})
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Run(t, src.Run)
	return src, c
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeAtomically writes through a dotfile renamed into place.
func writeAtomically(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	write(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestFileSourceWatch(t *testing.T) {
	cases := []struct {
		name string
		// before is the directory content at start.
		before map[string]string
		// change modifies the directory (dir is the read path).
		change func(t *testing.T, dir string)
		// want are the pod names of the update that ends the case.
		want []string
		// wantContent, when set, is the content of a.yaml whose pod the
		// final update must carry.
		wantContent string
	}{
		{
			name:   "create adds",
			change: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.yaml"), "pod a") },
			want:   []string{"a-node-1"},
		},
		{
			name:        "write modifies",
			before:      map[string]string{"a.yaml": "pod a v1"},
			change:      func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a.yaml"), "pod a v2") },
			want:        []string{"a-node-1"},
			wantContent: "pod a v2",
		},
		{
			name:        "rename into place",
			before:      map[string]string{"a.yaml": "pod a v1"},
			change:      func(t *testing.T, dir string) { writeAtomically(t, filepath.Join(dir, "a.yaml"), "pod a v2") },
			want:        []string{"a-node-1"},
			wantContent: "pod a v2",
		},
		{
			name:   "remove deletes",
			before: map[string]string{"a.yaml": "pod a", "b.yaml": "pod b"},
			change: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "a.yaml")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"b-node-1"},
		},
		{
			name:   "rename away deletes",
			before: map[string]string{"a.yaml": "pod a", "b.yaml": "pod b"},
			change: func(t *testing.T, dir string) {
				if err := os.Rename(filepath.Join(dir, "a.yaml"), filepath.Join(dir, ".a.yaml.off")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"b-node-1"},
		},
		{
			name: "dotfiles are ignored",
			change: func(t *testing.T, dir string) {
				write(t, filepath.Join(dir, ".hidden.yaml"), "pod hidden")
				write(t, filepath.Join(dir, ".a.yaml.swp"), "pod swap")
				// The next update must be this file's and nothing else.
				write(t, filepath.Join(dir, "visible.yaml"), "pod visible")
			},
			want: []string{"visible-node-1"},
		},
		{
			name:   "chmod rereads",
			before: map[string]string{"a.yaml": "pod a"},
			change: func(t *testing.T, dir string) {
				if err := os.Chmod(filepath.Join(dir, "a.yaml"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"a-node-1"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.before {
				write(t, filepath.Join(dir, name), content)
			}
			src, c := startFile(t, "", dir, 0)
			var initial []string
			for _, content := range tc.before {
				initial = append(initial, strings.Fields(content)[1]+"-node-1")
			}
			c.Until(initial...)
			sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
			tc.change(t, dir)
			u := c.Until(tc.want...)
			if tc.wantContent != "" {
				wantPod, _, _ := fakeDecoder{}.DecodeFile([]byte(tc.wantContent), filepath.Join(dir, "a.yaml"), testNode)
				if u.Pods[0].UID != wantPod.UID {
					t.Errorf("pod UID %s is not that of %q", u.Pods[0].UID, tc.wantContent)
				}
			}
			if u.Op != merge.Set || u.Source != v1alpha1.SourceFile {
				t.Errorf("update %v from %q, want SET from file", u.Op, u.Source)
			}
		})
	}
}

// watching reports whether the source's watcher is in place. Tests use it
// so that a change is not made before the watch exists.
func watching(s *FileSource) bool { return s.watchReady.Load() }

func TestFileSourceRelist(t *testing.T) {
	const period = 50 * time.Millisecond
	t.Run("missing path sends an empty SET and records the error", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "manifests")
		src, c := startFile(t, "", dir, period)
		u := c.Next()
		if u.Pods == nil || len(u.Pods) != 0 {
			t.Fatalf("got %v pods (nil: %v), want an empty non-nil SET", len(u.Pods), u.Pods == nil)
		}
		sourcetest.Eventually(t, "status seen with error", func() bool {
			st := src.Status()
			return st.Seen && strings.Contains(st.LastError, "path does not exist")
		})
		// The path appearing later is picked up.
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "a.yaml"), "pod a")
		c.Until("a-node-1")
	})
	t.Run("directory removed and re-created", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "manifests")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "a.yaml"), "pod a")
		_, c := startFile(t, "", dir, period)
		c.Until("a-node-1")
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		c.Until()
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "b.yaml"), "pod b")
		c.Until("b-node-1")
	})
	t.Run("symlinked directory swap", func(t *testing.T) {
		root := t.TempDir()
		for _, v := range []string{"v1", "v2"} {
			if err := os.Mkdir(filepath.Join(root, v), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		write(t, filepath.Join(root, "v1", "a.yaml"), "pod a")
		write(t, filepath.Join(root, "v2", "b.yaml"), "pod b")
		link := filepath.Join(root, "manifests")
		if err := os.Symlink("v1", link); err != nil {
			t.Fatal(err)
		}
		_, c := startFile(t, "", link, period)
		c.Until("a-node-1")
		tmp := filepath.Join(root, ".manifests.new")
		if err := os.Symlink("v2", tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, link); err != nil {
			t.Fatal(err)
		}
		c.Until("b-node-1")
	})
	t.Run("editor backup file ends right after the relist", func(t *testing.T) {
		// Vim's write: the original becomes a~, the new content is written
		// to a fresh a.yaml, and a~ is removed. The removal of the backup
		// drops the pod (the kubelet maps the backup to the same pod key);
		// the relist restores it.
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.yaml"), "pod a v1")
		src, c := startFile(t, "", dir, period)
		c.Until("a-node-1")
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		backup := filepath.Join(dir, "a.yaml~")
		if err := os.Rename(filepath.Join(dir, "a.yaml"), backup); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "a.yaml"), "pod a v2")
		if err := os.Remove(backup); err != nil {
			t.Fatal(err)
		}
		want, _, _ := fakeDecoder{}.DecodeFile([]byte("pod a v2"), filepath.Join(dir, "a.yaml"), testNode)
		deadline := time.After(sourcetest.WaitLimit)
		for {
			u := c.Next()
			if len(u.Pods) == 1 && u.Pods[0].UID == want.UID && src.Status().Checks > 1 {
				break
			}
			select {
			case <-deadline:
				t.Fatalf("no update with the new pod after a relist within %v", sourcetest.WaitLimit)
			default:
			}
		}
	})
}

func TestFileSourceWatchRetry(t *testing.T) {
	// A path under a regular file fails with ENOTDIR, not as a missing
	// path: the watch backs off and is retried until it is in place. The
	// relist period is an hour, so only the watch can send the new pod.
	parent := filepath.Join(t.TempDir(), "etc")
	write(t, parent, "not a directory")
	dir := filepath.Join(parent, "manifests")
	src, c := startFile(t, "", dir, 0)
	sourcetest.Eventually(t, "watch failure recorded", func() bool {
		return strings.Contains(src.Status().LastError, "watching static pod path "+dir)
	})
	if watching(src) {
		t.Fatal("watching a path that cannot be watched")
	}
	if err := os.Remove(parent); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sourcetest.Eventually(t, "watch established after the back-off", func() bool { return watching(src) })
	write(t, filepath.Join(dir, "a.yaml"), "pod a")
	c.Until("a-node-1")
	if st := src.Status(); st.Checks != 1 {
		t.Errorf("%d relists, want only the first", st.Checks)
	}
}

func TestFileSourceKubeletBookkeeping(t *testing.T) {
	t.Run("removing a backup of the same pod drops the pod until the relist", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.yaml"), "pod a v1")
		src, c := startFile(t, "", dir, 0)
		c.Until("a-node-1")
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		backup := filepath.Join(dir, "a.yaml~")
		write(t, backup, "pod a backup")
		c.Until("a-node-1")
		write(t, filepath.Join(dir, "a.yaml"), "pod a v2")
		c.Until("a-node-1")
		if err := os.Remove(backup); err != nil {
			t.Fatal(err)
		}
		c.Until()
	})
	t.Run("a file edited into an invalid one keeps its pod until the relist", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.yaml"), "pod a")
		src, c := startFile(t, "", dir, 0)
		c.Until("a-node-1")
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		write(t, filepath.Join(dir, "a.yaml"), "garbage")
		sourcetest.Eventually(t, "file rejected", func() bool { return len(src.Status().Rejected) == 1 })
		write(t, filepath.Join(dir, "b.yaml"), "pod b")
		c.Until("a-node-1", "b-node-1")
	})
}

func TestFileSourceReport(t *testing.T) {
	t.Run("rejected files stay until fixed or removed", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "bad.yaml"), "garbage")
		write(t, filepath.Join(dir, "worse.yaml"), "garbage too")
		write(t, filepath.Join(dir, "good.yaml"), "pod good")
		src, c := startFile(t, "", dir, 0)
		c.Until("good-node-1")
		st := src.Status()
		if len(st.Rejected) != 2 || st.Rejected[0].Path != filepath.Join(dir, "bad.yaml") ||
			!strings.Contains(st.Rejected[0].Error, "bad.yaml") || st.Rejected[0].FirstSeen.IsZero() {
			t.Fatalf("rejected = %+v", st.Rejected)
		}
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		// Atomically: a write in place is two watch events (the truncation
		// and the write), the second of which would send a SET that nobody
		// receives, holding up the removal below.
		writeAtomically(t, filepath.Join(dir, "bad.yaml"), "pod fixed")
		c.Until("fixed-node-1", "good-node-1")
		if err := os.Remove(filepath.Join(dir, "worse.yaml")); err != nil {
			t.Fatal(err)
		}
		sourcetest.Eventually(t, "no file rejected", func() bool { return len(src.Status().Rejected) == 0 })
	})
	t.Run("a subdirectory is neither read nor rejected", func(t *testing.T) {
		dir := t.TempDir()
		src, c := startFile(t, "", dir, 0)
		c.Until()
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "sub", "inner.yaml"), "pod inner")
		write(t, filepath.Join(dir, "top.yaml"), "pod top")
		c.Until("top-node-1")
		if st := src.Status(); len(st.Rejected) != 0 {
			t.Errorf("rejected = %+v", st.Rejected)
		}
	})
	t.Run("the later file in sorted order shadows the earlier", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "kube-apiserver.yaml"), "pod kube-apiserver current")
		write(t, filepath.Join(dir, "kube-apiserver.yaml.bak"), "pod kube-apiserver old")
		src, c := startFile(t, "", dir, 0)
		u := c.Until("kube-apiserver-node-1")
		if got := u.Pods[0].Annotations["test/origin"]; got != "file:"+filepath.Join(dir, "kube-apiserver.yaml.bak") {
			t.Errorf("pod comes from %s, want the .bak file", got)
		}
		// The status records a SET once the receiver has taken it.
		sourcetest.Eventually(t, "SET recorded", func() bool { return src.Status().UpdatesSent == 1 })
		st := src.Status()
		want := staticpod.ShadowedFile{
			Pod:  "default/kube-apiserver-node-1",
			Path: filepath.Join(dir, "kube-apiserver.yaml"),
			By:   filepath.Join(dir, "kube-apiserver.yaml.bak"),
		}
		if len(st.Shadowed) != 1 || st.Shadowed[0] != want {
			t.Errorf("shadowed = %+v, want %+v", st.Shadowed, want)
		}
		if len(st.Pods) != 1 || st.Pods[0].Origin != want.By {
			t.Errorf("status pods = %+v", st.Pods)
		}
	})
	t.Run("manifests of 10 MiB are rejected", func(t *testing.T) {
		dir := t.TempDir()
		big := "pod big " + strings.Repeat("x", staticpod.MaxManifestBytes-len("pod big "))
		write(t, filepath.Join(dir, "big.yaml"), big)
		write(t, filepath.Join(dir, "fits.yaml"), "pod fits "+strings.Repeat("x", staticpod.MaxManifestBytes-len("pod fits ")-1))
		src, c := startFile(t, "", dir, 0)
		c.Until("fits-node-1")
		st := src.Status()
		if len(st.Rejected) != 1 || !strings.Contains(st.Rejected[0].Error, "limit") {
			t.Errorf("rejected = %+v", st.Rejected)
		}
	})
}

func TestFileSourcePaths(t *testing.T) {
	t.Run("host root reads under the root and hashes the host path", func(t *testing.T) {
		root := t.TempDir()
		hostDir := "/etc/kubernetes/manifests"
		read := filepath.Join(root, hostDir)
		if err := os.MkdirAll(read, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(read, "a.yaml"), "pod a")
		src, c := startFile(t, root, hostDir+"/", 0)
		u := c.Until("a-node-1")
		if got, want := u.Pods[0].Annotations["test/origin"], "file:"+hostDir+"/a.yaml"; got != want {
			t.Errorf("hashed path %s, want %s", got, want)
		}
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		write(t, filepath.Join(read, "bad.yaml"), "garbage")
		sourcetest.Eventually(t, "rejected under the host path", func() bool {
			st := src.Status()
			return len(st.Rejected) == 1 && st.Rejected[0].Path == hostDir+"/bad.yaml" && st.UpdatesSent >= 1
		})
		st := src.Status()
		if st.Target != hostDir || st.ReadPath != read || st.Pods[0].Origin != hostDir+"/a.yaml" {
			t.Errorf("status target %s read %s pods %+v", st.Target, st.ReadPath, st.Pods)
		}
	})
	t.Run("single file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "pod.yaml")
		write(t, file, "pod single v1")
		src, c := startFile(t, "", file, 0)
		c.Until("single-node-1")
		sourcetest.Eventually(t, "watch established", func() bool { return watching(src) })
		write(t, file, "pod single v2")
		u := c.Until("single-node-1")
		want, _, _ := fakeDecoder{}.DecodeFile([]byte("pod single v2"), file, testNode)
		if u.Pods[0].UID != want.UID {
			t.Errorf("UID %s, want that of v2", u.Pods[0].UID)
		}
	})
	t.Run("an invalid single file sends nothing", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "pod.yaml")
		write(t, file, "garbage")
		src, c := startFile(t, "", file, 0)
		sourcetest.Eventually(t, "relisted", func() bool { return src.Status().Checks == 1 })
		st := src.Status()
		if st.Seen || st.UpdatesSent != 0 || len(st.Rejected) != 1 {
			t.Errorf("status %+v", st)
		}
		select {
		case u := <-c.Updates:
			t.Errorf("unexpected update %+v", u)
		default:
		}
	})
}
