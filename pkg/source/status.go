package source

import (
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// PodRef names one pod a source currently provides.
type PodRef struct {
	Namespace string
	Name      string
	UID       string
	// Origin is the manifest file (host path) or URL the pod came from.
	Origin string
}

// Status is a snapshot of a source's state. Slices are copies owned by the
// caller.
type Status struct {
	// Source is the kubelet's name for the source: v1alpha1.SourceFile,
	// v1alpha1.SourceHTTP or v1alpha1.SourceAPI.
	Source string
	// Target is what the source watches: the static pod path as the kubelet
	// sees it on the host, or the URL.
	Target string
	// ReadPath is where podsrc actually reads the static pod path (differs
	// from Target under a host root). Empty for the URL source.
	ReadPath string
	// KubeletVersion is the kubelet version whose decoding podsrc follows;
	// pod UIDs are only right for a kubelet of that version.
	KubeletVersion string
	// NodeKubeletVersion is the version of the node's kubelet as its Node
	// object reports it (API server source only; empty until it is read).
	NodeKubeletVersion string
	// Seen reports whether the source has delivered its first SET.
	Seen bool
	// LastUpdate is when the last SET was delivered.
	LastUpdate time.Time
	// UpdatesSent counts the SETs delivered.
	UpdatesSent int
	// Pods are the pods of the last SET delivered, sorted by namespace and
	// name.
	Pods []PodRef
	// Checks counts the completed relists (file) or polls (URL).
	Checks int
	// LastCheck is when the last relist or poll completed.
	LastCheck time.Time
	// LastError is the newest error of the source as a whole (path
	// missing, watch failure, failed poll) that the part of the source it
	// came from has not yet recovered from; empty if there is none. It
	// never quotes a manifest's content.
	LastError string
	// LastErrorUnredacted is LastError with the content of the manifest it
	// is about (redact.Unredacted), for --expose-pod-specs only.
	LastErrorUnredacted string
	// LastErrorTime is when LastError happened.
	LastErrorTime time.Time
	// Cleared is the last error the source recovered from; zero if none.
	Cleared ClearedError
	// Rejected are the manifest files that currently contribute no pod
	// (file source only), sorted by path.
	Rejected []staticpod.RejectedFile
	// Shadowed are valid manifest files whose pod is replaced by the pod of
	// another file with the same namespace and name (file source only).
	Shadowed []staticpod.ShadowedFile
	// Warned are the manifest files whose pod the kubelet's decoder
	// accepts with warnings, sorted by path; for the URL source, its body
	// while that is a single pod with warnings (Path is the URL, masked).
	Warned []staticpod.WarnedFile
}

// ClearedError is an error a source recovered from.
type ClearedError struct {
	Error string
	// Time is when the error happened, ClearedTime when the part of the
	// source that failed next succeeded.
	Time, ClearedTime time.Time
}

// Parts of a source that fail and recover on their own, as StatusBook.Failed
// and StatusBook.Succeeded name them.
const (
	// PartList is the listing of the pods: the file source's relist, the URL
	// source's poll.
	PartList = "list"
	// PartWatch is the file source's watch of its path.
	PartWatch = "watch"
)

// failure is an error of one part of a source.
type failure struct {
	err        string
	unredacted string
	at         time.Time
}

// StatusBook guards a Status shared by a source's goroutines and readers.
type StatusBook struct {
	mu sync.Mutex
	st Status
	// failing holds, by part, the errors not recovered from.
	failing map[string]failure
}

// Snapshot returns a deep copy of the status.
func (b *StatusBook) Snapshot() Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.st
	out.Pods = append([]PodRef(nil), b.st.Pods...)
	out.Rejected = append([]staticpod.RejectedFile(nil), b.st.Rejected...)
	out.Shadowed = append([]staticpod.ShadowedFile(nil), b.st.Shadowed...)
	out.Warned = append([]staticpod.WarnedFile(nil), b.st.Warned...)
	return out
}

// Update runs fn with the lock held.
func (b *StatusBook) Update(fn func(st *Status)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(&b.st)
}

// Delivered records a SET that reached the channel.
func (b *StatusBook) Delivered(at time.Time, pods []PodRef) {
	b.Update(func(st *Status) {
		st.Seen = true
		st.UpdatesSent++
		st.LastUpdate = at
		st.Pods = pods
	})
}

// Failed records a source-level error of one part of the source (PartList,
// PartWatch, or a part of the source's own); it is the last error until that
// part succeeds.
func (b *StatusBook) Failed(at time.Time, part string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failing == nil {
		b.failing = map[string]failure{}
	}
	b.failing[part] = failure{err: err.Error(), unredacted: redact.Unredacted(err), at: at}
	b.st.LastError, b.st.LastErrorUnredacted, b.st.LastErrorTime = err.Error(), redact.Unredacted(err), at
}

// Succeeded records that a part of the source worked: its error, if any, is
// cleared and kept as Status.Cleared, and the last error becomes the newest
// error of the parts still failing, if any.
func (b *StatusBook) Succeeded(at time.Time, part string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.failing[part]
	if !ok {
		return
	}
	delete(b.failing, part)
	b.st.Cleared = ClearedError{Error: f.err, Time: f.at, ClearedTime: at}
	b.st.LastError, b.st.LastErrorUnredacted, b.st.LastErrorTime = "", "", time.Time{}
	for _, other := range b.failing {
		if other.at.After(b.st.LastErrorTime) {
			b.st.LastError, b.st.LastErrorUnredacted, b.st.LastErrorTime = other.err, other.unredacted, other.at
		}
	}
}

// Checked records a completed relist or poll.
func (b *StatusBook) Checked(at time.Time) {
	b.Update(func(st *Status) {
		st.Checks++
		st.LastCheck = at
	})
}

// PodRefs describes pods, using origin to name where each came from.
func PodRefs(pods []*v1.Pod, origin func(*v1.Pod) string) []PodRef {
	refs := make([]PodRef, 0, len(pods))
	for _, p := range pods {
		refs = append(refs, PodRef{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Origin: origin(p)})
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Namespace != refs[j].Namespace {
			return refs[i].Namespace < refs[j].Namespace
		}
		return refs[i].Name < refs[j].Name
	})
	return refs
}
