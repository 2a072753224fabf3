package source

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// fileState is the file source's memory. store and fileKeys model the
// kubelet's own bookkeeping exactly, stale entries included, because what
// the kubelet sends depends on them; the files in store, valid and rejected
// are podsrc's reporting on top.
type fileState struct {
	// store models the kubelet's undelta store: pods by namespace/name,
	// each with the host path of the file it came from.
	store map[string]filePod
	// fileKeys models the kubelet's file-to-key mapping: set on every good
	// read, removed only by a delete event, never by a relist.
	fileKeys map[string]string
	// valid is the pod of every file whose last read gave one, with its
	// fingerprint, by host path: a file read again with the same
	// fingerprint is not decoded again.
	valid map[string]filePod
	// rejected are the files whose last read failed, by host path.
	rejected map[string]staticpod.RejectedFile
}

func newFileState() fileState {
	return fileState{
		store:    map[string]filePod{},
		fileKeys: map[string]string{},
		valid:    map[string]filePod{},
		rejected: map[string]staticpod.RejectedFile{},
	}
}

// podKey returns the kubelet's store key of a pod, namespace/name.
func podKey(pod *v1.Pod) string {
	key, err := cache.MetaNamespaceKeyFunc(pod)
	if err != nil {
		// Only happens for objects without metadata, which a pod is not.
		return pod.Namespace + "/" + pod.Name
	}
	return key
}

// list returns the store's pods sorted by key (the kubelet's order is map
// order, which means nothing), with their fingerprints, the host paths of
// their manifests and the decoder's warnings (nil when none has any).
func (f *fileState) list() (pods []*v1.Pod, fingerprints, paths []string, warnings [][]string) {
	keys := make([]string, 0, len(f.store))
	for k := range f.store {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pods = make([]*v1.Pod, 0, len(keys))
	fingerprints = make([]string, 0, len(keys))
	paths = make([]string, 0, len(keys))
	for _, k := range keys {
		p := f.store[k]
		pods = append(pods, p.pod)
		fingerprints = append(fingerprints, p.fingerprint)
		paths = append(paths, p.path)
		if len(p.warnings) > 0 && warnings == nil {
			warnings = make([][]string, len(keys))
		}
	}
	if warnings != nil {
		for i, k := range keys {
			warnings[i] = f.store[k].warnings
		}
	}
	return pods, fingerprints, paths, warnings
}

// originOf returns the file a stored pod came from.
func (f *fileState) originOf(pod *v1.Pod) string { return f.store[podKey(pod)].path }

// readOK records a good read of a file, as the kubelet's mapping does.
func (f *fileState) readOK(m filePod) {
	f.fileKeys[m.path] = podKey(m.pod)
	f.valid[m.path] = m
	delete(f.rejected, m.path)
}

// lastRead returns the pod of the file's last read, if it gave one.
func (f *fileState) lastRead(path string) (filePod, bool) {
	m, ok := f.valid[path]
	return m, ok
}

// readFailed records a file that contributes no pod.
func (f *fileState) readFailed(path string, err error, at time.Time) {
	delete(f.valid, path)
	r, ok := f.rejected[path]
	if !ok {
		r = staticpod.RejectedFile{Path: path, FirstSeen: at}
	}
	r.Error = err.Error()
	r.Unredacted = redact.Unredacted(err)
	r.LastSeen = at
	f.rejected[path] = r
}

// forget drops podsrc's reporting on a file that is gone.
func (f *fileState) forget(path string) {
	delete(f.valid, path)
	delete(f.rejected, path)
}

// replace models the store's Replace: the pods of a full listing, where a
// later file's pod replaces an earlier one with the same key.
func (f *fileState) replace(pods []filePod) {
	f.store = make(map[string]filePod, len(pods))
	for _, p := range pods {
		f.store[podKey(p.pod)] = p
	}
}

// add models the store's Add (insert or replace by key).
func (f *fileState) add(m filePod) {
	f.store[podKey(m.pod)] = m
}

// keepOnly drops reporting for files not in seen (after a full listing).
func (f *fileState) keepOnly(seen map[string]bool) {
	for p := range f.valid {
		if !seen[p] {
			delete(f.valid, p)
		}
	}
	for p := range f.rejected {
		if !seen[p] {
			delete(f.rejected, p)
		}
	}
}

// report returns the rejected files, the shadowed ones and the valid ones
// with warnings, sorted by path.
func (f *fileState) report() ([]staticpod.RejectedFile, []staticpod.ShadowedFile, []staticpod.WarnedFile) {
	rejected := make([]staticpod.RejectedFile, 0, len(f.rejected))
	for _, r := range f.rejected {
		rejected = append(rejected, r)
	}
	sort.Slice(rejected, func(i, j int) bool { return rejected[i].Path < rejected[j].Path })

	var shadowed []staticpod.ShadowedFile
	for path, m := range f.valid {
		key := podKey(m.pod)
		by, ok := f.store[key]
		if !ok || by.path == path {
			continue
		}
		shadowed = append(shadowed, staticpod.ShadowedFile{Pod: key, Path: path, By: by.path})
	}
	sort.Slice(shadowed, func(i, j int) bool { return shadowed[i].Path < shadowed[j].Path })

	var warned []staticpod.WarnedFile
	for path, m := range f.valid {
		if len(m.warnings) > 0 {
			warned = append(warned, staticpod.WarnedFile{Path: path, Pod: podKey(m.pod), Warnings: m.warnings})
		}
	}
	sort.Slice(warned, func(i, j int) bool { return warned[i].Path < warned[j].Path })
	return rejected, shadowed, warned
}

// filePod is a pod, the host path of its manifest, the manifest's
// fingerprint and the decoder's warnings about it.
type filePod struct {
	path        string
	pod         *v1.Pod
	fingerprint string
	warnings    []string
}
