package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Watch retry timing, as in the kubelet: a failed watch is retried after a
// back-off that starts at watchRetryPeriod and doubles up to
// watchMaxRetryPeriod (starting over after 2*watchMaxRetryPeriod without a
// failure; see watchBackoff); a missing path is retried every
// watchRetryPeriod without back-off.
const (
	watchRetryPeriod    = 1 * time.Second
	watchMaxRetryPeriod = 20 * time.Second
)

// watchOp is what a watch event means for a manifest.
type watchOp int

const (
	watchAdd watchOp = iota
	watchModify
	watchDelete
)

// watchEvent is one fsnotify event translated for the relist loop.
type watchEvent struct {
	// read is the path podsrc saw the event on.
	read string
	op   watchOp
}

// retryableWatchError is a watch failure retried without back-off.
type retryableWatchError struct{ err error }

func (e *retryableWatchError) Error() string { return e.err.Error() }
func (e *retryableWatchError) Unwrap() error { return e.err }

// watchLoop keeps an fsnotify watch on the static pod path until ctx ends,
// retrying failures with the kubelet's back-off.
func (s *FileSource) watchLoop(ctx context.Context, logger klog.Logger) {
	backoff := newWatchBackoff()
	for {
		err := s.watchOnce(ctx, logger)
		if ctx.Err() != nil {
			return
		}
		wait := watchRetryPeriod
		if err != nil {
			logger.Error(escapedErr(err), "Unable to watch static pod path")
			s.status.Failed(s.now(), PartWatch, err)
			var retryable *retryableWatchError
			if !errors.As(err, &retryable) {
				wait = backoff.failed(time.Now())
			}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// watchOnce watches the path until the watch fails or ctx ends. Like the
// kubelet, it keeps waiting on a watch whose directory was removed or
// replaced (the relist catches up); only watcher errors end it.
func (s *FileSource) watchOnce(ctx context.Context, logger klog.Logger) error {
	if _, err := os.Stat(s.readPath); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watching static pod path %s: %w", s.hostPath, err)
		}
		// The kubelet's watcher, too, sends an empty SET for a missing path.
		if SendSet(ctx, s.updates, v1alpha1.SourceFile, []*v1.Pod{}, nil, nil, nil) {
			s.status.Delivered(s.now(), []PodRef{})
		}
		return &retryableWatchError{fmt.Errorf("static pod path %s: %w", s.hostPath, errPathMissing)}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("creating watcher for static pod path %s: %w", s.hostPath, err)
	}
	defer w.Close()
	if err := w.Add(s.readPath); err != nil {
		return fmt.Errorf("watching static pod path %s: %w", s.hostPath, err)
	}
	s.watchReady.Store(true)
	defer s.watchReady.Store(false)
	s.status.Succeeded(s.now(), PartWatch)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return fmt.Errorf("watcher of static pod path %s closed", s.hostPath)
			}
			s.forward(ctx, logger, ev)
		case err, ok := <-w.Errors:
			if !ok {
				return fmt.Errorf("watcher of static pod path %s closed", s.hostPath)
			}
			return fmt.Errorf("watching static pod path %s: %w", s.hostPath, err)
		}
	}
}

// forward translates an fsnotify event the way the kubelet does and hands
// it to the relist loop. Names starting with a dot are ignored; an event
// carrying several operations counts as the first of create, write, chmod,
// remove, rename.
func (s *FileSource) forward(ctx context.Context, logger klog.Logger, ev fsnotify.Event) {
	if strings.HasPrefix(filepath.Base(ev.Name), ".") {
		logger.V(4).Info("Ignoring event on dotfile", "event", escaped(ev.Name))
		return
	}
	var op watchOp
	switch {
	case ev.Has(fsnotify.Create):
		op = watchAdd
	case ev.Has(fsnotify.Write), ev.Has(fsnotify.Chmod):
		op = watchModify
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		op = watchDelete
	default:
		return
	}
	select {
	case s.events <- watchEvent{read: ev.Name, op: op}:
	case <-ctx.Done():
	}
}

// applyEvent is the kubelet's handling of one watch event: a created or
// written file is read and its pod added (replacing any pod with the same
// key; a failed read changes nothing, so the file's previous pod stays); a
// removed or renamed file drops the pod its last good read gave, even when
// that pod now comes from another file.
func (s *FileSource) applyEvent(ctx context.Context, logger klog.Logger, ev watchEvent) error {
	host := s.hostPathOf(ev.read)
	switch ev.op {
	case watchAdd, watchModify:
		logger.V(4).Info("Reading manifest after watch event", "manifest", escaped(host))
		m, err := s.readManifest(ev.read)
		if err != nil {
			return fmt.Errorf("processing watch event: %w", err)
		}
		s.state.add(m)
		s.sendStore(ctx)
	case watchDelete:
		s.state.forget(host)
		key, ok := s.state.fileKeys[host]
		if !ok {
			return nil
		}
		if _, stored := s.state.store[key]; !stored {
			return fmt.Errorf("processing removal of %s: the pod with key %s doesn't exist in cache", host, key)
		}
		delete(s.state.store, key)
		delete(s.state.fileKeys, host)
		s.sendStore(ctx)
	}
	return nil
}
