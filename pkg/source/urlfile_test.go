package source

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestURLFiles checks that the static pod URL and its headers can come from
// files (a mounted Secret) rather than flags, and that errors quote
// nothing the files hold.
func TestURLFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o400); err != nil {
			t.Fatal(err)
		}
		return p
	}
	url := write("url", "https://user:s3cret@10.0.0.9/pods?token=t0ken\n")
	headers := write("headers", "Authorization: Bearer s3cret\n\nX-A: 1\nX-A: 2\n")
	bad := write("bad", "X-A: 1\nBearer-s3cret\n")
	big := write("big", strings.Repeat("x", maxURLFile+1))
	// A FIFO that nobody writes to: opening or reading it must not block.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantURL    string
		wantHeader http.Header
		wantErr    string
	}{
		{name: "both files", args: []string{"--static-pod-url-file=" + url, "--static-pod-url-header-file=" + headers},
			wantURL: "https://user:s3cret@10.0.0.9/pods?token=t0ken", wantHeader: http.Header{"Authorization": {"Bearer s3cret"}, "X-A": {"1", "2"}}},
		{name: "a bad line is not quoted", args: []string{"--static-pod-url-header-file=" + bad}, wantErr: "--static-pod-url-header-file, occurrence 2 of 2: want 'Name: value'"},
		{name: "too large", args: []string{"--static-pod-url-file=" + big}, wantErr: "larger than 64 KiB"},
		{name: "missing", args: []string{"--static-pod-url-file=" + filepath.Join(dir, "none")}, wantErr: "--static-pod-url-file: reading manifest"},
		{name: "a FIFO", args: []string{"--static-pod-url-header-file=" + fifo}, wantErr: "not a regular file"},
		{name: "file and flag", args: []string{"--static-pod-url-file=" + url, "--static-pod-url=http://x"}, wantErr: "--static-pod-url-file and --static-pod-url: give one of them"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ok := resolveArgs(t, tc.args, nil, tc.wantErr)
			if !ok {
				return
			}
			if cfg.StaticPodURL != tc.wantURL || !cmp.Equal(cfg.StaticPodURLHeader, tc.wantHeader) {
				t.Errorf("URL %q, headers %v; want %q, %v", cfg.StaticPodURL, cfg.StaticPodURLHeader, tc.wantURL, tc.wantHeader)
			}
		})
	}
}
