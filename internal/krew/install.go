package krew

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Install installs the plugin for os/arch the way krew does, with the
// archive taken from archives (a directory holding the file the platform's
// URI names) instead of downloading it: validate the manifest, check the
// sha256, extract, apply
// the file operations, and link bin into root/bin as kubectl-<name>. It
// returns the path of that link.
func Install(p Plugin, goos, goarch, archives, root string) (string, error) {
	// krew validates a manifest given with --manifest before installing.
	if err := Validate(p.Name, p, [][2]string{{goos, goarch}}); err != nil {
		return "", fmt.Errorf("plugin manifest validation error: %w", err)
	}
	matches := Matching(p, goos, goarch)
	if len(matches) != 1 {
		return "", fmt.Errorf("%d platforms of %s match %s/%s", len(matches), p.Name, goos, goarch)
	}
	pl := matches[0]
	archive := filepath.Join(archives, path.Base(pl.URI))
	data, err := os.ReadFile(archive)
	if err != nil {
		return "", fmt.Errorf("reading archive %s: %w", archive, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != pl.Sha256 {
		return "", fmt.Errorf("archive %s has sha256 %x, the manifest says %s", archive, sum, pl.Sha256)
	}
	dir := filepath.Join(root, "store", p.Name, p.Spec.Version)
	if err := extract(archive, data, dir); err != nil {
		return "", err
	}
	for _, f := range pl.Files {
		if err := os.Rename(filepath.Join(dir, f.From), filepath.Join(dir, f.To)); err != nil {
			return "", fmt.Errorf("files: %w", err)
		}
	}
	bin := filepath.Join(dir, filepath.FromSlash(pl.Bin))
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("bin %s is not in the archive: %w", pl.Bin, err)
	}
	link := filepath.Join(root, "bin", "kubectl-"+p.Name)
	if goos == "windows" {
		link += ".exe"
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return "", err
	}
	if err := os.Symlink(bin, link); err != nil {
		return "", fmt.Errorf("linking %s: %w", link, err)
	}
	return link, nil
}

// ArchiveFiles lists the regular files in a .tar.gz or .zip archive.
func ArchiveFiles(name string, data []byte) ([]string, error) {
	var out []string
	err := walkArchive(name, data, func(p string, _ os.FileMode, _ io.Reader) error {
		out = append(out, p)
		return nil
	})
	return out, err
}

// extract unpacks an archive into dir, refusing paths that leave it.
func extract(name string, data []byte, dir string) error {
	return walkArchive(name, data, func(p string, mode os.FileMode, r io.Reader) error {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(os.PathSeparator)) {
			return fmt.Errorf("archive %s: %s leaves the install directory", name, p)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm()|0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, r); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// walkArchive calls fn for each regular file of a .tar.gz or .zip archive.
func walkArchive(name string, data []byte, fn func(p string, mode os.FileMode, r io.Reader) error) error {
	switch {
	case strings.HasSuffix(name, ".tar.gz"):
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("archive %s: %w", name, err)
			}
			if h.Typeflag == tar.TypeReg {
				if err := fn(h.Name, os.FileMode(h.Mode), tr); err != nil {
					return err
				}
			}
		}
	case strings.HasSuffix(name, ".zip"):
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("archive %s: %w", name, err)
			}
			err = fn(f.Name, f.Mode(), rc)
			rc.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("archive %s: only .tar.gz and .zip are supported", name)
}
