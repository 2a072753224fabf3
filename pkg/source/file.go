package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// DefaultFileCheckFrequency is the kubelet's default fileCheckFrequency, the
// period of the full relist of the static pod path.
const DefaultFileCheckFrequency = 20 * time.Second

// watchEventBuffer is how many watch events may wait for the relist loop
// before the watcher blocks, as in the kubelet.
const watchEventBuffer = 10

// FileOptions configures a FileSource.
type FileOptions struct {
	// Path is the static pod path (kubelet staticPodPath) as the kubelet sees
	// it on the host: a directory or a single file. It enters the pod UIDs.
	// Trailing slashes are dropped, as the kubelet does.
	Path string
	// HostRoot is where the host's file system is mounted in podsrc's view
	// ("" or "/" when podsrc runs on the host). Files are read at
	// HostRoot/Path but hashed and reported with Path. Absolute symlinks
	// under Path resolve in podsrc's view, not the host's.
	HostRoot string
	// NodeName is the kubelet's node name, as given (not lower-cased).
	NodeName string
	// Decoder decodes manifests; required.
	Decoder staticpod.Decoder
	// Period is the relist period (kubelet fileCheckFrequency); 0 means
	// DefaultFileCheckFrequency.
	Period time.Duration
	// Updates receives the SETs; required. The source blocks on it, as the
	// kubelet's does, until the receiver takes each update or Run's context
	// ends.
	Updates chan<- merge.PodUpdate
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// FileSource is the kubelet's file source: it relists the static pod path
// every period and follows fsnotify events in between, sending the full set
// of pods after each change it applies, with the kubelet's own bookkeeping
// (and therefore its quirks).
type FileSource struct {
	hostPath string
	readPath string
	nodeName string
	decoder  staticpod.Decoder
	period   time.Duration
	updates  chan<- merge.PodUpdate
	now      func() time.Time

	events chan watchEvent
	status StatusBook
	// watchReady is true while an fsnotify watch is in place.
	watchReady atomic.Bool

	// Owned by the Run goroutine.
	state fileState
}

// NewFile returns a file source for opts. It starts nothing; call Run.
func NewFile(opts FileOptions) (*FileSource, error) {
	if opts.Decoder == nil {
		return nil, errors.New("file source: no decoder")
	}
	if opts.Updates == nil {
		return nil, errors.New("file source: no updates channel")
	}
	hostPath := strings.TrimRight(opts.Path, string(os.PathSeparator))
	if hostPath == "" {
		return nil, fmt.Errorf("file source: static pod path %q is empty or the root", opts.Path)
	}
	if opts.NodeName == "" {
		return nil, errors.New("file source: no node name")
	}
	period := opts.Period
	if period <= 0 {
		period = DefaultFileCheckFrequency
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &FileSource{
		hostPath: hostPath,
		readPath: nodeenv.ReadPath(opts.HostRoot, hostPath),
		nodeName: opts.NodeName,
		decoder:  opts.Decoder,
		period:   period,
		updates:  opts.Updates,
		now:      now,
		events:   make(chan watchEvent, watchEventBuffer),
		state:    newFileState(),
	}
	s.status.st = Status{
		Source:         v1alpha1.SourceFile,
		Target:         hostPath,
		ReadPath:       s.readPath,
		KubeletVersion: opts.Decoder.KubeletVersion(),
	}
	return s, nil
}

// hostPathOf maps a path podsrc read (under readPath) back to the host path.
func (s *FileSource) hostPathOf(read string) string {
	if read == s.readPath {
		return s.hostPath
	}
	if rest, ok := strings.CutPrefix(read, s.readPath+string(os.PathSeparator)); ok {
		return filepath.Join(s.hostPath, rest)
	}
	return read
}

// Status returns a copy of the source's current status.
func (s *FileSource) Status() Status { return s.status.Snapshot() }

// Run lists the path at once, then relists it every period and applies the
// fsnotify events in between, until ctx ends.
func (s *FileSource) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("source", v1alpha1.SourceFile, "path", escaped(s.hostPath))
	logger.V(1).Info("Watching static pod path", "readPath", escaped(s.readPath))

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.watchLoop(ctx, logger)
	}()
	defer wg.Wait()

	ticker := time.NewTicker(s.period)
	defer ticker.Stop()
	s.relistAndRecord(ctx, logger)
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			s.relistAndRecord(ctx, logger)
		case ev := <-s.events:
			if err := s.applyEvent(ctx, logger, ev); err != nil {
				logger.Error(escapedErr(err), "Unable to process watch event")
				s.status.Failed(s.now(), PartList, err)
			}
			s.publishFiles()
		}
	}
}

// relistAndRecord runs one relist and records its outcome.
func (s *FileSource) relistAndRecord(ctx context.Context, logger klog.Logger) {
	if err := s.relist(ctx, logger); err != nil {
		logger.Error(escapedErr(err), "Unable to read static pod path")
		s.status.Failed(s.now(), PartList, err)
	} else {
		s.status.Succeeded(s.now(), PartList)
	}
	s.publishFiles()
	s.status.Checked(s.now())
}

// sendStore delivers the content of the kubelet's store as a SET.
func (s *FileSource) sendStore(ctx context.Context) {
	pods, fingerprints, paths, warnings := s.state.list()
	s.sendPods(ctx, pods, fingerprints, paths, warnings)
}

// sendPods delivers pods as a SET, with their fingerprints, the paths of
// their manifests and the decoder's warnings, and records it.
func (s *FileSource) sendPods(ctx context.Context, pods []*v1.Pod, fingerprints, paths []string, warnings [][]string) {
	// Rejections and shadows are published first, so that a reader that
	// received the SET sees the files behind it.
	s.publishFiles()
	if SendSet(ctx, s.updates, v1alpha1.SourceFile, pods, fingerprints, paths, warnings) {
		s.status.Delivered(s.now(), PodRefs(pods, s.state.originOf))
	}
}

// publishFiles copies the rejected, shadowed and warned files into the
// status.
func (s *FileSource) publishFiles() {
	rejected, shadowed, warned := s.state.report()
	s.status.Update(func(st *Status) {
		st.Rejected = rejected
		st.Shadowed = shadowed
		st.Warned = warned
	})
}
