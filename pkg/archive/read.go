package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// DefaultMaxReadSize bounds what Read decompresses of an archive unless
// told otherwise: the manifest and every member, together.
const DefaultMaxReadSize = 1 << 30

// maxManifestSize bounds the manifest, which Read decodes before it knows
// anything else of the archive.
const maxManifestSize = 1 << 20

// maxTarOverhead bounds what Read decompresses beyond the members'
// bytes: the tar headers, their padding and the end of the archive. The
// tar reader reads any number of metadata headers (PAX, GNU long names)
// before an entry, so that without this bound one entry could make it
// decompress without end.
const maxTarOverhead = 1 << 20

// Archive is what an archive holds, checked against its manifest.
type Archive struct {
	Manifest v1alpha1.ArchiveManifest
	Version  v1alpha1.Version
	Sources  v1alpha1.SourceList
	Pods     v1alpha1.PodList
	// PodDetails are the agent's answers for each pod, with the pod
	// itself (v1alpha1.ArchivePodDetailsMember).
	PodDetails v1alpha1.PodList
	PLEG       v1alpha1.PLEGStatus
	// KubeletConfig is the agent's, nil when the archive has none.
	KubeletConfig *v1alpha1.KubeletConfig
	// Events are the window's event and gap messages, oldest first, in
	// sequence order.
	Events []v1alpha1.StreamMessage
	// Node is the Node object, nil when the archive has none.
	Node *corev1.Node
}

// Error is an error of an archive that does not read: the file and, when
// one is at fault, the member.
type Error struct {
	File, Member string
	Err          error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Member == "" {
		return fmt.Sprintf("archive %q: %v", e.File, e.Err)
	}
	return fmt.Sprintf("archive %q: member %q: %v", e.File, e.Member, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Read reads the archive that r holds, which file names in errors, and
// decompresses at most maxSize bytes of it (DefaultMaxReadSize when not
// positive). Every member must be one the manifest lists, of the size and
// SHA-256 it lists, and a regular file with a plain name, there once, and
// the node it names must have a node's name (a DNS-1123 subdomain);
// anything else fails with an *Error that names the file and the member,
// at the first entry at fault.
func Read(r io.Reader, file string, maxSize int64) (*Archive, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxReadSize
	}
	fail := func(member string, format string, args ...any) error {
		return &Error{File: file, Member: member, Err: fmt.Errorf(format, args...)}
	}
	gz, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return nil, fail("", "not a gzip-compressed archive of kubectl podsrc record: %w", err)
	}
	defer gz.Close()
	tr := tar.NewReader(&boundedReader{r: gz, left: maxSize + maxTarOverhead, bound: maxSize})
	left := maxSize
	data := map[string][]byte{}
	var manifest *v1alpha1.ArchiveManifest
	var listed map[string]v1alpha1.ArchiveMember
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if n == 0 && err != nil {
			return nil, fail("", "the gzip stream holds no tar archive (%v): not an archive of kubectl podsrc record, or one cut short in its first header", err)
		}
		if err != nil {
			return nil, fail("", "reading the tar entry after %d members: %w", n, truncated(err))
		}
		// An entry past the manifest and one of each member is unknown or
		// twice there: however many entries an archive has, Read stops at
		// the first of those.
		name := hdr.Name
		if err := checkName(name); err != nil {
			return nil, fail(name, "%w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fail(name, "not a regular file (tar type %q)", hdr.Typeflag)
		}
		bound := min(left, maxManifestSize)
		if manifest != nil {
			m, ok := listed[name]
			switch {
			case name == v1alpha1.ArchiveManifestMember || !slices.Contains(v1alpha1.ArchiveMembers, name):
				return nil, fail(name, "unknown member: an archive holds %s first, then %s", v1alpha1.ArchiveManifestMember, strings.Join(v1alpha1.ArchiveMembers, ", "))
			case !ok:
				return nil, fail(name, "not listed in the archive's manifest")
			case data[name] != nil:
				return nil, fail(name, "appears twice")
			case hdr.Size != m.Size:
				return nil, fail(name, "is %d bytes, the manifest says %d", hdr.Size, m.Size)
			}
			bound = left
		} else if name != v1alpha1.ArchiveManifestMember {
			return nil, fail(name, "the first member is not %s: not an archive of kubectl podsrc record", v1alpha1.ArchiveManifestMember)
		}
		if hdr.Size < 0 || hdr.Size > bound {
			return nil, fail(name, "is %d bytes, more than the %d bytes left of the bound on what an archive may hold (--max-bytes)", hdr.Size, bound)
		}
		// What arrives, not what the header claims: a header may claim
		// the whole bound of a file that holds a few bytes.
		b, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			return nil, fail(name, "reading it: %w", truncated(err))
		}
		if int64(len(b)) != hdr.Size {
			return nil, fail(name, "reading it: %w", truncated(io.ErrUnexpectedEOF))
		}
		left -= hdr.Size
		if manifest == nil {
			if manifest, listed, err = decodeManifest(b); err != nil {
				return nil, fail(name, "%w", err)
			}
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != listed[name].SHA256 {
			return nil, fail(name, "its SHA-256 is %s, the manifest says %s: the archive was changed or damaged", got, listed[name].SHA256)
		}
		data[name] = b
	}
	if manifest == nil {
		return nil, fail("", "empty: no %s", v1alpha1.ArchiveManifestMember)
	}
	for _, m := range manifest.Members {
		if data[m.Name] == nil {
			return nil, fail(m.Name, "listed in the manifest but missing: the archive is truncated")
		}
	}
	a := &Archive{Manifest: *manifest}
	if err := a.decode(data); err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			ae.File = file
		}
		return nil, err
	}
	return a, nil
}

// ReadFile reads the archive at path (Read); an error opening it is the
// file system's, which names the path.
func ReadFile(path string, maxSize int64) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, maxSize)
}

// boundedReader reads from r until left bytes are read, then fails: an
// archive that decompresses to more than what bound and the tar
// overhead allow is not read to its end.
type boundedReader struct {
	r           io.Reader
	left, bound int64
}

// Read implements io.Reader.
func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("it decompresses to more than --max-bytes (%d bytes) and its tar headers allow: raise --max-bytes for an archive you trust", b.bound)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// truncated says that an archive ended early, for an unexpected EOF.
func truncated(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the archive ends early, truncated: %w", err)
	}
	return err
}

// checkName refuses a member name that is not a plain file name: a path,
// absolute or with .., or one with control characters.
func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\\") || path.Clean(name) != name || name == ".." || name == "." {
		return errors.New("not a plain file name: an archive's members are flat, none in a directory or outside it")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return errors.New("a name with control characters")
		}
	}
	return nil
}

// decodeManifest decodes and checks the manifest; it returns its members
// by name.
func decodeManifest(b []byte) (*v1alpha1.ArchiveManifest, map[string]v1alpha1.ArchiveMember, error) {
	m := &v1alpha1.ArchiveManifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, nil, fmt.Errorf("decoding it: %w", err)
	}
	if m.APIVersion != v1alpha1.GroupVersion || m.Kind != v1alpha1.KindArchiveManifest {
		return nil, nil, fmt.Errorf("is a %s %s, not a %s %s: made by another version of kubectl podsrc record?", m.APIVersion, m.Kind, v1alpha1.GroupVersion, v1alpha1.KindArchiveManifest)
	}
	listed := make(map[string]v1alpha1.ArchiveMember, len(m.Members))
	for _, mem := range m.Members {
		switch {
		case !slices.Contains(v1alpha1.ArchiveMembers, mem.Name):
			return nil, nil, fmt.Errorf("lists an unknown member %q", mem.Name)
		case listed[mem.Name].Name != "":
			return nil, nil, fmt.Errorf("lists member %q twice", mem.Name)
		case len(mem.SHA256) != sha256.Size*2:
			return nil, nil, fmt.Errorf("lists member %q with a SHA-256 that is not one: %q", mem.Name, mem.SHA256)
		}
		listed[mem.Name] = mem
	}
	if _, ok := listed[v1alpha1.ArchiveVersionMember]; !ok {
		return nil, nil, fmt.Errorf("lists no %s: the archive does not say which agent and node it recorded", v1alpha1.ArchiveVersionMember)
	}
	return m, listed, nil
}

// decode decodes the members data holds.
func (a *Archive) decode(data map[string][]byte) error {
	targets := map[string]any{
		v1alpha1.ArchiveVersionMember:    &a.Version,
		v1alpha1.ArchiveSourcesMember:    &a.Sources,
		v1alpha1.ArchivePodsMember:       &a.Pods,
		v1alpha1.ArchivePodDetailsMember: &a.PodDetails,
		v1alpha1.ArchivePLEGMember:       &a.PLEG,
	}
	for name, target := range targets {
		if b := data[name]; b != nil {
			if err := json.Unmarshal(b, target); err != nil {
				return &Error{Member: name, Err: fmt.Errorf("decoding it: %w", err)}
			}
		}
	}
	if b := data[v1alpha1.ArchiveKubeletConfigMember]; b != nil {
		a.KubeletConfig = &v1alpha1.KubeletConfig{}
		if err := json.Unmarshal(b, a.KubeletConfig); err != nil {
			return &Error{Member: v1alpha1.ArchiveKubeletConfigMember, Err: fmt.Errorf("decoding it: %w", err)}
		}
	}
	if b := data[v1alpha1.ArchiveNodeMember]; b != nil {
		a.Node = &corev1.Node{}
		if err := json.Unmarshal(b, a.Node); err != nil {
			return &Error{Member: v1alpha1.ArchiveNodeMember, Err: fmt.Errorf("decoding it: %w", err)}
		}
	}
	if a.Version.NodeName == "" || a.Version.NodeName != a.Manifest.NodeName {
		return &Error{Member: v1alpha1.ArchiveVersionMember, Err: fmt.Errorf("names node %q, the manifest %q", a.Version.NodeName, a.Manifest.NodeName)}
	}
	if errs := validation.IsDNS1123Subdomain(a.Manifest.NodeName); len(errs) > 0 {
		return &Error{Member: v1alpha1.ArchiveManifestMember, Err: fmt.Errorf("names node %q, which is not a node's name (%s)", a.Manifest.NodeName, strings.Join(errs, "; "))}
	}
	events, err := decodeEvents(data[v1alpha1.ArchiveEventsMember], a.Manifest.Events)
	if err != nil {
		return &Error{Member: v1alpha1.ArchiveEventsMember, Err: err}
	}
	a.Events = events
	return nil
}

// decodeEvents decodes the events member: event and gap messages of
// window's epoch, in sequence order within the window.
func decodeEvents(b []byte, window v1alpha1.ArchiveEvents) ([]v1alpha1.StreamMessage, error) {
	switch {
	case window.Since > window.Until:
		return nil, fmt.Errorf("the manifest's window starts after event %d, past its end %d", window.Since, window.Until)
	case window.Until == math.MaxUint64:
		// The event ring that serves the window numbers the event after
		// its end.
		return nil, fmt.Errorf("the manifest's window ends at event %d, which no agent numbers", window.Until)
	}
	var out []v1alpha1.StreamMessage
	last := window.Since
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m v1alpha1.StreamMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		from, to := messageSeqs(m)
		switch {
		case m.Type != v1alpha1.MessageEvent && m.Type != v1alpha1.MessageGap, m.Type == v1alpha1.MessageEvent && m.Event == nil:
			return nil, fmt.Errorf("line %d: a %q message, not an event or a gap", i+1, m.Type)
		case m.Epoch != window.Epoch:
			return nil, fmt.Errorf("line %d: epoch %q, the manifest's is %q", i+1, m.Epoch, window.Epoch)
		case from <= last || to < from || to > window.Until:
			return nil, fmt.Errorf("line %d: events %d to %d, out of order or outside the window %d to %d", i+1, from, to, window.Since+1, window.Until)
		}
		last = to
		out = append(out, m)
	}
	return out, nil
}
