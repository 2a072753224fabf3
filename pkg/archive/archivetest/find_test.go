package archivetest

import (
	"archive/tar"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFind: a secret shows wherever it is in the archive, as it is or
// encoded, in a member or in a tar header, and nothing shows when no
// secret is there.
func TestFind(t *testing.T) {
	const (
		plain   = "plain-c0ffee-secret"
		inB64   = "b64-c0ffee-secret"
		inHex   = "hex-c0ffee-secret"
		inPAX   = "pax-c0ffee-secret"
		missing = "absent-c0ffee-secret"
	)
	members := []struct {
		name string
		pax  map[string]string
		data string
	}{
		{name: "manifest.json", data: `{"kind":"ArchiveManifest"}`},
		{name: "pods.json", data: `{"env":"` + plain + `"}`},
		// Off a 3-byte boundary: the needle of a later byte finds it.
		{name: "events.ndjson", data: `{"raw":"` + base64.StdEncoding.EncodeToString([]byte("x"+inB64+"y")) + `"}`},
		{name: "new-member.json", data: `{"digest":"` + hex.EncodeToString([]byte(inHex)) + `"}`},
		{name: "node.json", pax: map[string]string{"comment": inPAX}, data: `{}`},
	}
	path := filepath.Join(t.TempDir(), "a.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: m.name, Mode: 0o644, Size: int64(len(m.data)), PAXRecords: m.pax, Format: tar.FormatPAX}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, gz, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}

	found, err := Find(path, []string{plain, inB64, inHex, inPAX, missing})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"plain-c0ffee-secret" (as it is) in member pods.json`,
		`"b64-c0ffee-secret" (base64-encoded from byte 2) in member events.ndjson`,
		`"hex-c0ffee-secret" (hex-encoded) in member new-member.json`,
		`"pax-c0ffee-secret" (as it is) in the tar headers`,
	}
	if !slices.Equal(found, want) {
		t.Errorf("Find = %q\nwant %q", found, want)
	}
	if found, err := Find(path, []string{missing}); err != nil || len(found) != 0 {
		t.Errorf("Find of a secret the archive does not hold = %q, %v; want none", found, err)
	}
	if _, err := Find(filepath.Join(t.TempDir(), "none.tar.gz"), []string{plain}); err == nil {
		t.Error("Find of a missing file: no error")
	}
}
