// Package archivetest reads an archive of kubectl podsrc record byte for
// byte, for the tests that check that no planted secret reaches one.
package archivetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// maxSize bounds what Find decompresses of an archive.
const maxSize = 1 << 30

// Find returns where each of secrets shows in the archive at path, one
// line each (the secret, how it was encoded, and the member that holds it
// or "the tar headers"); none when no secret shows anywhere. It searches
// every byte the archive decompresses to, the manifest, every member and
// the tar headers alike, for each secret as it is, base64-encoded (standard
// or URL alphabet, at any alignment) and hex-encoded; whatever members the
// archive holds, known to this package or not. A secret should be of
// letters, digits and dashes, which JSON does not escape, and of at least
// 8 bytes, so that its base64 needles are long enough to mean it.
func Find(path string, secrets []string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(gz, maxSize))
	if err != nil {
		return nil, fmt.Errorf("archive %s: decompressing it: %w", path, err)
	}
	members := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("archive %s: reading its tar entries: %w", path, err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("archive %s: member %q: %w", path, hdr.Name, err)
		}
		members[hdr.Name] = b
	}
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names)
	var found []string
	for _, s := range secrets {
		for _, n := range needles(s) {
			if !bytes.Contains(data, n.bytes) {
				continue
			}
			where := "the tar headers"
			for _, name := range names {
				if bytes.Contains(members[name], n.bytes) {
					where = "member " + name
					break
				}
			}
			found = append(found, fmt.Sprintf("%q (%s) in %s", s, n.how, where))
		}
	}
	return found, nil
}

// needle is a secret's bytes as they would show in an archive.
type needle struct {
	how   string
	bytes []byte
}

// needles returns secret as it is, hex-encoded, and base64-encoded at
// each of the three alignments it may start at: the whole 3-byte groups
// of secret[k:], which encode alike wherever they stand after a group
// boundary.
func needles(secret string) []needle {
	out := []needle{{"as it is", []byte(secret)}, {"hex-encoded", []byte(hex.EncodeToString([]byte(secret)))}}
	for k := range 3 {
		rest := []byte(secret[min(k, len(secret)):])
		rest = rest[:len(rest)/3*3]
		if len(rest) == 0 {
			continue
		}
		std, url := base64.StdEncoding.EncodeToString(rest), base64.URLEncoding.EncodeToString(rest)
		out = append(out, needle{fmt.Sprintf("base64-encoded from byte %d", k), []byte(std)})
		if url != std {
			out = append(out, needle{fmt.Sprintf("base64url-encoded from byte %d", k), []byte(url)})
		}
	}
	return out
}
