package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// DefaultMaxSize bounds the members of an archive but its manifest,
// together, unless told otherwise (record's --max-size).
const DefaultMaxSize = 64 << 20

// Contents are what an archive holds, as the agent and the API server
// answered.
type Contents struct {
	Version v1alpha1.Version
	Sources v1alpha1.SourceList
	Pods    v1alpha1.PodList
	// PodDetails are the agent's answers for each pod of Pods that it
	// still had (v1alpha1.ArchivePodDetailsMember).
	PodDetails v1alpha1.PodList
	PLEG       v1alpha1.PLEGStatus
	// KubeletConfig is the agent's, nil when it had none to give (LeftOut
	// says why).
	KubeletConfig *v1alpha1.KubeletConfig
	// Events are the window's event and gap messages, oldest first;
	// Window says which window (its counts are Write's).
	Events []v1alpha1.StreamMessage
	Window v1alpha1.ArchiveEvents
	// Node is the Node object; nil when it could not be read (LeftOut
	// says why).
	Node *corev1.Node
	// LeftOut is what the recording could not read, and why.
	LeftOut []v1alpha1.ArchiveOmission
}

// WriteOptions say how an archive is written.
type WriteOptions struct {
	// MaxSize bounds the members' total size (DefaultMaxSize when not
	// positive): the oldest events go first, as a gap, then whole members
	// that do not fit beside that gap alone, after which the events have
	// the room those left; each said in the manifest's LeftOut.
	MaxSize int64
	// RecordedAt stamps the manifest and the members' modification
	// times.
	RecordedAt time.Time
	// RecorderVersion is the recording kubectl-podsrc's release.
	RecorderVersion string
}

// member is an encoded member.
type member struct {
	name string
	data []byte
}

// Write writes c to w as an archive and returns its manifest.
func Write(w io.Writer, c Contents, o WriteOptions) (*v1alpha1.ArchiveManifest, error) {
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	m := &v1alpha1.ArchiveManifest{
		TypeMeta:        v1alpha1.TypeMetaFor(v1alpha1.KindArchiveManifest),
		NodeName:        c.Version.NodeName,
		RecordedAt:      metav1.NewTime(o.RecordedAt.UTC().Truncate(time.Second)),
		RecorderVersion: o.RecorderVersion,
		AgentVersion:    c.Version.AgentVersion,
		KubeletVersion:  c.Version.ReproducedKubeletVersion,
		MaxSize:         o.MaxSize,
		Events:          c.Window,
		LeftOut:         c.LeftOut,
	}
	encoded, err := encodeMembers(c)
	if err != nil {
		return nil, err
	}
	// The fewest events, one gap for them all, first: whole members go
	// only when that does not fit.
	least, _ := fitEvents(c.Events, 0)
	if encoded[v1alpha1.ArchiveEventsMember], err = encodeEvents(least); err != nil {
		return nil, err
	}
	fitMembers(encoded, o.MaxSize, m)
	var events []v1alpha1.StreamMessage
	if _, ok := encoded[v1alpha1.ArchiveEventsMember]; ok {
		// The newest events that fit in what the members kept leave.
		var others int64
		for name, data := range encoded {
			if name != v1alpha1.ArchiveEventsMember {
				others += int64(len(data))
			}
		}
		var trimmed *v1alpha1.ArchiveOmission
		events, trimmed = fitEvents(c.Events, o.MaxSize-others)
		if trimmed != nil {
			m.LeftOut = append(m.LeftOut, *trimmed)
		}
		if encoded[v1alpha1.ArchiveEventsMember], err = encodeEvents(events); err != nil {
			return nil, err
		}
	}
	var members []member
	for _, name := range v1alpha1.ArchiveMembers {
		if data, ok := encoded[name]; ok {
			members = append(members, member{name, data})
		}
	}
	for _, e := range events {
		switch e.Type {
		case v1alpha1.MessageEvent:
			m.Events.Events++
		case v1alpha1.MessageGap:
			m.Events.Gaps++
		}
	}
	for _, mem := range members {
		sum := sha256.Sum256(mem.data)
		m.Members = append(m.Members, v1alpha1.ArchiveMember{Name: mem.name, Size: int64(len(mem.data)), SHA256: hex.EncodeToString(sum[:])})
	}
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the archive's manifest: %w", err)
	}
	members = append([]member{{v1alpha1.ArchiveManifestMember, append(manifest, '\n')}}, members...)
	if err := writeTarGz(w, members, m.RecordedAt.Time); err != nil {
		return nil, err
	}
	return m, nil
}

// encodeMembers encodes every member but the events, by name; the node's
// only when there is a Node.
func encodeMembers(c Contents) (map[string][]byte, error) {
	values := map[string]any{
		v1alpha1.ArchiveVersionMember:    c.Version,
		v1alpha1.ArchiveSourcesMember:    c.Sources,
		v1alpha1.ArchivePodsMember:       c.Pods,
		v1alpha1.ArchivePodDetailsMember: c.PodDetails,
		v1alpha1.ArchivePLEGMember:       c.PLEG,
	}
	if c.Node != nil {
		values[v1alpha1.ArchiveNodeMember] = c.Node
	}
	if c.KubeletConfig != nil {
		values[v1alpha1.ArchiveKubeletConfigMember] = c.KubeletConfig
	}
	out := make(map[string][]byte, len(values)+1)
	for name, v := range values {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encoding the archive's %s: %w", name, err)
		}
		out[name] = append(data, '\n')
	}
	return out, nil
}

// encodeEvents encodes messages one a line.
func encodeEvents(messages []v1alpha1.StreamMessage) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range messages {
		if err := enc.Encode(&messages[i]); err != nil {
			return nil, fmt.Errorf("encoding the archive's %s: %w", v1alpha1.ArchiveEventsMember, err)
		}
	}
	return buf.Bytes(), nil
}

// fitEvents returns the newest of messages whose encoding fits in room,
// after a gap message for the events it dropped, and what it left out, if
// anything.
func fitEvents(messages []v1alpha1.StreamMessage, room int64) ([]v1alpha1.StreamMessage, *v1alpha1.ArchiveOmission) {
	sizes := make([]int64, len(messages))
	var total int64
	for i := range messages {
		data, err := json.Marshal(&messages[i])
		if err != nil {
			// encodeEvents reports it.
			return messages, nil
		}
		sizes[i] = int64(len(data)) + 1
		total += sizes[i]
	}
	if total <= room {
		return messages, nil
	}
	// Room for the gap message that replaces what is dropped.
	room -= 256
	first := len(messages)
	for total = 0; first > 0 && total+sizes[first-1] <= room; first-- {
		total += sizes[first-1]
	}
	var from, to uint64
	for _, e := range messages[:first] {
		lo, hi := messageSeqs(e)
		if from == 0 || (lo != 0 && lo < from) {
			from = lo
		}
		to = max(to, hi)
	}
	kept := messages[first:]
	if to == 0 {
		return kept, nil
	}
	gap, omission := Trimmed(messages[0].Epoch, from, to)
	return append([]v1alpha1.StreamMessage{gap}, kept...), &omission
}

// Trimmed returns the gap message that stands for events from to to of
// epoch, left out of an archive for its size bound, and what the manifest
// says of them.
func Trimmed(epoch string, from, to uint64) (v1alpha1.StreamMessage, v1alpha1.ArchiveOmission) {
	return v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, Epoch: epoch, From: from, To: to},
		v1alpha1.ArchiveOmission{What: fmt.Sprintf("events %d to %d", from, to),
			Reason: "the archive's size bound (record --max-size): the newest events were kept, the rest is a gap"}
}

// messageSeqs are the sequence numbers an event or gap message covers.
func messageSeqs(m v1alpha1.StreamMessage) (from, to uint64) {
	if m.Type == v1alpha1.MessageEvent && m.Event != nil {
		return m.Event.Seq, m.Event.Seq
	}
	return m.From, m.To
}

// dropOrder is the order in which members that do not fit in an
// archive's size bound are left out: the version, which names the node,
// never.
var dropOrder = []string{v1alpha1.ArchiveNodeMember, v1alpha1.ArchiveKubeletConfigMember, v1alpha1.ArchivePodDetailsMember, v1alpha1.ArchiveEventsMember,
	v1alpha1.ArchivePLEGMember, v1alpha1.ArchivePodsMember, v1alpha1.ArchiveSourcesMember}

// fitMembers leaves out of encoded, in dropOrder, the members that do not
// fit in maxSize, and says so in m; a member left out before the one
// whose leaving made the rest fit comes back where it fits.
func fitMembers(encoded map[string][]byte, maxSize int64, m *v1alpha1.ArchiveManifest) {
	size := func() int64 {
		var n int64
		for _, data := range encoded {
			n += int64(len(data))
		}
		return n
	}
	removed := map[string][]byte{}
	var order []string
	for _, name := range dropOrder {
		data, ok := encoded[name]
		if !ok || size() <= maxSize {
			continue
		}
		delete(encoded, name)
		removed[name] = data
		order = append(order, name)
	}
	for i := len(order) - 1; i >= 0; i-- {
		if data := removed[order[i]]; size()+int64(len(data)) <= maxSize {
			encoded[order[i]] = data
			delete(removed, order[i])
		}
	}
	for _, name := range order {
		if data, ok := removed[name]; ok {
			m.LeftOut = append(m.LeftOut, v1alpha1.ArchiveOmission{What: name,
				Reason: fmt.Sprintf("its %d bytes do not fit in the archive's size bound of %d bytes (record --max-size)", len(data), maxSize)})
		}
	}
}

// writeTarGz writes members as a gzip-compressed tar file of regular
// files stamped mtime.
func writeTarGz(w io.Writer, members []member, mtime time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: m.name, Mode: 0o644, Size: int64(len(m.data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("writing the archive's %s: %w", m.name, err)
		}
		if _, err := tw.Write(m.data); err != nil {
			return fmt.Errorf("writing the archive's %s: %w", m.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	return nil
}
