// Command mkimage packs static programs into a single-layer container image
// archive, without a registry or a container engine. The archive is in the
// format `docker save` writes (manifest.json, config, layer tar), which
// `ctr images import` reads.
//
//	mkimage -bin ./agent -name podsrc.local/agent:v1 -o agent.tar
//	mkimage -bin ./srv -path /usr/bin/srv -add ./cfg.yaml:/etc/srv.yaml \
//	        -env MODE=test -name podsrc.local/srv:v1 -o srv.tar -- -flag value
//
// Arguments after the flags become the image's Cmd; the entrypoint is the
// program. Timestamps are fixed, so the same inputs give the same image ID.
package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// epoch is the fixed modification time of every file in the layer.
var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// file is one regular file to put in the layer.
type file struct {
	src  string
	dest string
	mode int64
}

func main() {
	bin := flag.String("bin", "", "program to pack (required); it becomes the entrypoint")
	dest := flag.String("path", "", "path of the program in the image (default /<base name of -bin>)")
	name := flag.String("name", "", "image reference, e.g. podsrc.local/agent:v1 (required)")
	out := flag.String("o", "", "archive to write (required)")
	var adds, envs listFlag
	flag.Var(&adds, "add", "extra file SRC:DEST, repeatable")
	flag.Var(&envs, "env", "environment variable KEY=VALUE, repeatable")
	flag.Parse()
	if *bin == "" || *name == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if *dest == "" {
		*dest = "/" + filepath.Base(*bin)
	}
	files := []file{{src: *bin, dest: *dest, mode: 0o755}}
	for _, a := range adds {
		src, d, ok := strings.Cut(a, ":")
		if !ok || !path.IsAbs(d) {
			fmt.Fprintf(os.Stderr, "mkimage: -add %q: want SRC:/absolute/dest\n", a)
			os.Exit(2)
		}
		files = append(files, file{src: src, dest: d, mode: 0o644})
	}
	env := append([]string{"PATH=/usr/local/bin:/usr/bin:/bin:/"}, envs...)
	if err := write(*out, *name, files, env, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
		os.Exit(1)
	}
}

// write builds the layer and the image archive and writes it to out.
func write(out, name string, files []file, env, cmd []string) error {
	layer, err := buildLayer(files)
	if err != nil {
		return fmt.Errorf("building layer: %w", err)
	}
	layerSum := sha256.Sum256(layer)
	layerHex := hex.EncodeToString(layerSum[:])

	config := map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"created":      epoch.Format(time.RFC3339),
		"config": map[string]any{
			"Entrypoint": []string{files[0].dest},
			"Cmd":        cmd,
			"Env":        env,
			"WorkingDir": "/",
		},
		"rootfs": map[string]any{
			"type":     "layers",
			"diff_ids": []string{"sha256:" + layerHex},
		},
		"history": []map[string]any{{
			"created":    epoch.Format(time.RFC3339),
			"created_by": "mkimage",
		}},
	}
	configJSON, err := json.Marshal(config)
	if err != nil {
		return fmt.Errorf("encoding image config: %w", err)
	}
	configSum := sha256.Sum256(configJSON)
	configName := hex.EncodeToString(configSum[:]) + ".json"
	layerName := layerHex + "/layer.tar"
	manifest, err := json.Marshal([]map[string]any{{
		"Config":   configName,
		"RepoTags": []string{name},
		"Layers":   []string{layerName},
	}})
	if err != nil {
		return fmt.Errorf("encoding manifest: %w", err)
	}

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		name string
		data []byte
	}{
		{configName, configJSON},
		{layerName, layer},
		{"manifest.json", manifest},
	}
	if err := addDir(tw, layerHex+"/"); err != nil {
		return err
	}
	for _, e := range entries {
		if err := addFile(tw, e.name, 0o644, e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("closing archive: %w", err)
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing archive: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("writing archive: %w", err)
	}
	return nil
}

// buildLayer returns an uncompressed layer tar holding files, their parent
// directories, and an empty /tmp.
func buildLayer(files []file) ([]byte, error) {
	dirs := map[string]bool{"tmp/": true}
	for _, f := range files {
		for d := path.Dir(strings.TrimPrefix(path.Clean(f.dest), "/")); d != "." && d != "/"; d = path.Dir(d) {
			dirs[d+"/"] = true
		}
	}
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range names {
		if err := addDir(tw, d); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		data, err := readFile(f.src)
		if err != nil {
			return nil, err
		}
		if err := addFile(tw, strings.TrimPrefix(path.Clean(f.dest), "/"), f.mode, data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing layer: %w", err)
	}
	return buf.Bytes(), nil
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return data, nil
}

func addDir(tw *tar.Writer, name string) error {
	mode := int64(0o755)
	if name == "tmp/" {
		mode = 0o1777
	}
	hdr := &tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, ModTime: epoch, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("adding %s: %w", name, err)
	}
	return nil
}

func addFile(tw *tar.Writer, name string, mode int64, data []byte) error {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("adding %s: %w", name, err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("adding %s: %w", name, err)
	}
	return nil
}
