package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	utilio "k8s.io/utils/io"

	"github.com/podsrc/podsrc/pkg/staticpod"
)

// errPathMissing is the kubelet's complaint about a static pod path that
// does not exist; the source still sends an empty SET.
var errPathMissing = errors.New("path does not exist, ignoring")

// relist reads the whole static pod path and sends what the kubelet's
// listing sends. It returns the error the kubelet's listing returns.
func (s *FileSource) relist(ctx context.Context, logger klog.Logger) error {
	info, err := os.Stat(s.readPath)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("reading static pod path %s: %w", s.hostPath, err)
		}
		s.state.keepOnly(nil)
		// The kubelet sends an empty SET without touching its store.
		s.sendPods(ctx, []*v1.Pod{}, nil, nil, nil)
		return fmt.Errorf("static pod path %s: %w", s.hostPath, errPathMissing)
	}
	switch {
	case info.IsDir():
		pods, err := s.readDir(ctx, logger)
		if err != nil {
			// The kubelet sends nothing when it cannot list the directory.
			return err
		}
		if ctx.Err() != nil {
			// Stopping: a partial listing must not be sent.
			return nil
		}
		if len(pods) == 0 {
			// Here too the kubelet leaves its store as it was: pods of
			// files that vanished without a watch event stay in it and
			// come back with the next watch event.
			s.sendPods(ctx, []*v1.Pod{}, nil, nil, nil)
			return nil
		}
		s.state.replace(pods)
		s.sendStore(ctx)
		return nil
	case info.Mode().IsRegular():
		s.state.keepOnly(map[string]bool{s.hostPath: true})
		m, err := s.readManifest(s.readPath)
		if err != nil {
			// A single manifest that fails sends nothing at all.
			return err
		}
		s.state.replace([]filePod{m})
		s.sendStore(ctx)
		return nil
	default:
		s.state.keepOnly(nil)
		return fmt.Errorf("static pod path %s is %s, not a directory or regular file", s.hostPath, fileKind(info.Mode()))
	}
}

// readDir reads every entry of the static pod directory whose name does not
// start with a dot, in sorted order, without recursion. A file that fails
// contributes no pod and is recorded as rejected. It stops early when ctx
// ends.
func (s *FileSource) readDir(ctx context.Context, logger klog.Logger) ([]filePod, error) {
	// The kubelet globs "[^.]*"; a glob ignores I/O errors, so an unreadable
	// directory reads as an empty one. Only a path that is a bad pattern
	// fails, and then the kubelet sends nothing.
	entries, err := filepath.Glob(filepath.Join(s.readPath, "[^.]*"))
	if err != nil {
		return nil, fmt.Errorf("listing static pod path %s: %w", s.hostPath, err)
	}
	sort.Strings(entries)
	seen := make(map[string]bool, len(entries))
	pods := make([]filePod, 0, len(entries))
	for _, read := range entries {
		if ctx.Err() != nil {
			return nil, nil
		}
		host := s.hostPathOf(read)
		info, err := os.Stat(read)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// A dangling symlink, or gone since the listing.
				logger.Error(escapedErr(err), "Could not get metadata", "manifest", escaped(host))
				continue
			}
			// A symlink loop, say: the kubelet only logs it, podsrc
			// reports it with the file.
			err = fmt.Errorf("reading manifest %s: %w", host, err)
			logger.Error(escapedErr(err), "Could not get metadata", "manifest", escaped(host))
			seen[host] = true
			s.state.readFailed(host, err, s.now())
			continue
		}
		switch {
		case info.IsDir():
			logger.Error(nil, "Provided manifest path is a directory, not recursing into manifest path", "manifest", escaped(host))
		case info.Mode().IsRegular():
			m, err := s.readManifest(read)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					// Gone between the listing and the read: the kubelet
					// says nothing.
					continue
				}
				seen[host] = true
				logger.Error(escapedErr(err), "Could not process manifest file", "manifest", escaped(host))
				continue
			}
			seen[host] = true
			pods = append(pods, m)
		default:
			err := notRegular(host, info.Mode())
			logger.Error(escapedErr(err), "Manifest path is not a directory or file", "manifest", escaped(host))
			seen[host] = true
			s.state.readFailed(host, err, s.now())
		}
	}
	s.state.keepOnly(seen)
	return pods, nil
}

// readManifest reads and decodes one manifest at a read path, recording the
// outcome for the file's host path as the kubelet's mapping and podsrc's
// rejected list need it.
func (s *FileSource) readManifest(read string) (filePod, error) {
	host := s.hostPathOf(read)
	m, err := s.decodeManifest(read, host)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) {
			// Gone, or a directory seen through a watch event: not a
			// manifest to report.
			s.state.forget(host)
		} else {
			s.state.readFailed(host, err, s.now())
		}
		return filePod{}, err
	}
	s.state.readOK(m)
	return m, nil
}

// decodeManifest reads at most staticpod.MaxManifestBytes of a manifest and
// decodes it, unless its fingerprint is the one of the file's last good
// read: decoding is a function of what the fingerprint covers, so the pod
// of that read is the answer, without decoding or comparing it again.
func (s *FileSource) decodeManifest(read, host string) (filePod, error) {
	f, err := openManifest(read, host)
	if err != nil {
		return filePod{}, err
	}
	defer f.Close()
	data, err := utilio.ReadAtMost(f, staticpod.MaxManifestBytes)
	if err != nil {
		return filePod{}, fmt.Errorf("reading manifest %s: %w", host, err)
	}
	fingerprint := manifestFingerprint(host, s.nodeName, data)
	if last, ok := s.state.lastRead(host); ok && last.fingerprint == fingerprint {
		return last, nil
	}
	pod, warnings, err := s.decoder.DecodeFile(data, host, s.nodeName)
	if err != nil {
		if strings.Contains(err.Error(), host) {
			// The kubelet's message already names the file.
			return filePod{}, err
		}
		return filePod{}, fmt.Errorf("manifest %s: %w", host, err)
	}
	return filePod{path: host, pod: pod, fingerprint: fingerprint, warnings: warnings}, nil
}
