package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

var recordedAt = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// contents are node-1's, with events 1 to 10 but 5 to 6, a gap.
func contents() Contents {
	c := Contents{
		Version: v1alpha1.Version{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindVersion), AgentVersion: "v0.1.0", ReproducedKubeletVersion: "v1.36.3", NodeName: "node-1"},
		Sources: v1alpha1.SourceList{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindSourceList), NodeName: "node-1", Items: []v1alpha1.Source{{Name: "file", Target: "/etc/kubernetes/manifests", Seen: true}}},
		Pods:    v1alpha1.PodList{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPodList), NodeName: "node-1", Items: []v1alpha1.PodInfo{{Name: "etcd", Namespace: "kube-system", UID: "u1", Source: "file"}}},
		PodDetails: v1alpha1.PodList{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPodList), NodeName: "node-1", Items: []v1alpha1.PodInfo{{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPod),
			Name: "etcd", Namespace: "kube-system", UID: "u1", Source: "file", Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "etcd", Namespace: "kube-system", UID: "u1"}}}}},
		PLEG: v1alpha1.PLEGStatus{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPLEGStatus), NodeName: "node-1", Healthy: true},
		KubeletConfig: &v1alpha1.KubeletConfig{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindKubeletConfig), NodeName: "node-1",
			Config: &kubeletv1beta1.KubeletConfiguration{StaticPodPath: "/etc/kubernetes/manifests"}},
		Window:  v1alpha1.ArchiveEvents{Epoch: "e1", Since: 0, Until: 10},
		Node:    &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
		LeftOut: []v1alpha1.ArchiveOmission{{What: "the kubelet's configuration", Reason: "no agent serves it yet"}},
	}
	for seq := uint64(1); seq <= 10; seq++ {
		if seq == 5 {
			c.Events = append(c.Events, v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, Epoch: "e1", From: 5, To: 6})
		}
		if seq == 5 || seq == 6 {
			continue
		}
		at := metav1.NewMicroTime(recordedAt.Add(time.Duration(seq) * time.Second))
		c.Events = append(c.Events, v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Epoch: "e1", Time: at,
			Event: &v1alpha1.Event{Seq: seq, Time: at, Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", PodName: "etcd", Namespace: "kube-system"}})
	}
	return c
}

// write returns the archive of c.
func write(t *testing.T, c Contents, maxSize int64) ([]byte, *v1alpha1.ArchiveManifest) {
	t.Helper()
	var buf bytes.Buffer
	m, err := Write(&buf, c, WriteOptions{MaxSize: maxSize, RecordedAt: recordedAt, RecorderVersion: "v0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), m
}

func TestWriteRead(t *testing.T) {
	c := contents()
	data, m := write(t, c, 0)
	a, err := Read(bytes.NewReader(data), "a.tar.gz", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*m, a.Manifest); diff != "" {
		t.Errorf("manifest (-written +read):\n%s", diff)
	}
	if m.Events.Events != 8 || m.Events.Gaps != 1 || len(m.Members) != len(v1alpha1.ArchiveMembers) {
		t.Errorf("manifest counts %+v, %d members; want 8 events, 1 gap, every member", m.Events, len(m.Members))
	}
	got := Contents{Version: a.Version, Sources: a.Sources, Pods: a.Pods, PodDetails: a.PodDetails, PLEG: a.PLEG, KubeletConfig: a.KubeletConfig, Events: a.Events, Window: c.Window, Node: a.Node, LeftOut: c.LeftOut}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("contents (-written +read):\n%s", diff)
	}
}

// TestWriteBound: what does not fit in the size bound is the oldest
// events, as one gap, which the manifest names.
func TestWriteBound(t *testing.T) {
	c := contents()
	full, _ := write(t, c, 0)
	a, err := Read(bytes.NewReader(full), "a.tar.gz", 0)
	if err != nil {
		t.Fatal(err)
	}
	var others int64
	for _, mem := range a.Manifest.Members {
		if mem.Name != v1alpha1.ArchiveEventsMember {
			others += mem.Size
		}
	}
	// Room for a gap and about three events.
	data, m := write(t, c, others+256+3*250)
	a, err = Read(bytes.NewReader(data), "a.tar.gz", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Events) < 2 || a.Events[0].Type != v1alpha1.MessageGap || a.Events[0].From != 1 || a.Events[len(a.Events)-1].Event.Seq != 10 {
		t.Fatalf("events %+v; want a gap from 1, then the newest up to 10", a.Events)
	}
	if len(m.LeftOut) != 2 || !strings.Contains(m.LeftOut[1].What, fmt.Sprintf("events 1 to %d", a.Events[0].To)) || !strings.Contains(m.LeftOut[1].Reason, "--max-size") {
		t.Errorf("left out %+v; want the events, with the bound", m.LeftOut)
	}
	var size int64
	for _, mem := range m.Members {
		size += mem.Size
	}
	if size > m.MaxSize {
		t.Errorf("members hold %d bytes, over the bound %d", size, m.MaxSize)
	}
}

// TestWriteBoundMembers: a member too big for the bound is left out
// whole, and only it: the events and the members that fit stay.
func TestWriteBoundMembers(t *testing.T) {
	_, m := write(t, contents(), 0)
	var fits int64
	for _, mem := range m.Members {
		fits += mem.Size
	}
	c := contents()
	c.PodDetails.Items[0].Pod.Annotations = map[string]string{"big": strings.Repeat("x", 200<<10)}
	data, m := write(t, c, fits+1024)
	a, err := Read(bytes.NewReader(data), "a.tar.gz", 0)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, l := range m.LeftOut[1:] {
		left = append(left, l.What)
	}
	if diff := cmp.Diff([]string{v1alpha1.ArchivePodDetailsMember}, left); diff != "" {
		t.Errorf("left out (-want +got):\n%s", diff)
	}
	if a.Node == nil || a.KubeletConfig == nil || len(a.Events) != len(c.Events) {
		t.Errorf("node %v, kubelet configuration %v, %d event and gap messages; want them all as recorded, %d messages", a.Node, a.KubeletConfig, len(a.Events), len(c.Events))
	}
}

// entry is a tar entry of a hostile archive.
type entry struct {
	name     string
	typeflag byte
	data     []byte
}

// tarGz makes a gzip-compressed tar file of entries.
func tarGz(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		tf := e.typeflag
		if tf == 0 {
			tf = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: tf, Mode: 0o644, Size: int64(len(e.data))}
		if tf != tar.TypeReg {
			hdr.Size, hdr.Linkname = 0, "/etc/passwd"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if tf == tar.TypeReg {
			if _, err := tw.Write(e.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// members returns the entries of a valid archive, manifest first.
func members(t *testing.T) []entry {
	t.Helper()
	data, _ := write(t, contents(), 0)
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []entry
	for {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		var b bytes.Buffer
		if _, err := b.ReadFrom(tr); err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{name: hdr.Name, data: b.Bytes()})
	}
	return out
}

// withManifest returns entries with a manifest that lists the others as
// they are, changed by change.
func withManifest(t *testing.T, entries []entry, change func(*v1alpha1.ArchiveManifest)) []entry {
	t.Helper()
	m := v1alpha1.ArchiveManifest{}
	if err := json.Unmarshal(members(t)[0].data, &m); err != nil {
		t.Fatal(err)
	}
	m.Members = nil
	for _, e := range entries {
		sum := sha256.Sum256(e.data)
		m.Members = append(m.Members, v1alpha1.ArchiveMember{Name: e.name, Size: int64(len(e.data)), SHA256: hex.EncodeToString(sum[:])})
	}
	if change != nil {
		change(&m)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return append([]entry{{name: v1alpha1.ArchiveManifestMember, data: data}}, entries...)
}

// TestReadHostile: an archive that is damaged, changed or made to harm
// fails with an error that names the file and the member at fault.
func TestReadHostile(t *testing.T) {
	valid, _ := write(t, contents(), 0)
	ms := members(t)
	// others are the members but the manifest; with, every member and
	// more.
	others := func() []entry { return append([]entry(nil), ms[1:]...) }
	with := func(more ...entry) []entry { return append(append([]entry(nil), ms...), more...) }
	changed := func(i int, change func(entry) entry) []entry {
		es := append([]entry(nil), ms...)
		es[i] = change(es[i])
		return es
	}
	many := []entry{ms[0]}
	for i := range 100000 {
		many = append(many, entry{name: fmt.Sprintf("m%d", i), data: []byte("x")})
	}
	badNode := contents()
	badNode.Version.NodeName = "Node\x1b]0;pwned\a"
	badNodeData, _ := write(t, badNode, 0)
	tests := []struct {
		name    string
		data    []byte
		maxSize int64
		// member is the member the error names, * for any.
		member string
		want   string
	}{
		{name: "not gzip", data: []byte("PK\x03\x04 a zip"), want: "not a gzip-compressed archive"},
		{name: "empty file", data: nil, want: "not a gzip-compressed archive"},
		{name: "truncated gzip", data: valid[:len(valid)/2], member: "*", want: "truncated"},
		{name: "gzip of garbage", data: gzipOf(t, bytes.Repeat([]byte("garbage!"), 200)), want: "the gzip stream holds no tar archive"},
		{name: "gzip of a short text", data: gzipOf(t, []byte("hello")), want: "the gzip stream holds no tar archive"},
		{name: "no member", data: tarGz(t, nil), want: "empty: no manifest.json"},
		{name: "manifest not first", data: tarGz(t, append(others(), ms[0])), member: v1alpha1.ArchiveVersionMember, want: "the first member is not manifest.json"},
		{name: "manifest not JSON", data: tarGz(t, changed(0, func(e entry) entry { e.data = []byte("{"); return e })), member: v1alpha1.ArchiveManifestMember, want: "decoding it"},
		{name: "manifest of another kind", data: tarGz(t, withManifest(t, others(), func(m *v1alpha1.ArchiveManifest) { m.Kind = "Secret" })), member: v1alpha1.ArchiveManifestMember, want: "not a podsrc.io/v1alpha1 ArchiveManifest"},
		{name: "manifest lists an unknown member", data: tarGz(t, withManifest(t, append(others(), entry{name: "evil.sh", data: []byte("rm -rf /")}), nil)), member: v1alpha1.ArchiveManifestMember, want: `unknown member "evil.sh"`},
		{name: "unknown member", data: tarGz(t, with(entry{name: "evil.sh", data: []byte("rm -rf /")})), member: "evil.sh", want: "unknown member"},
		{name: "member not in the manifest", data: tarGz(t, append(withManifest(t, others()[:3], nil), others()[3:]...)), member: ms[4].name, want: "not listed in the archive's manifest"},
		{name: "member missing", data: tarGz(t, ms[:len(ms)-1]), member: v1alpha1.ArchiveNodeMember, want: "listed in the manifest but missing: the archive is truncated"},
		{name: "member twice", data: tarGz(t, with(ms[1])), member: ms[1].name, want: "appears twice"},
		{name: "checksum mismatch", data: tarGz(t, changed(2, func(e entry) entry {
			e.data = bytes.Replace(e.data, []byte("manifests"), []byte("manifestz"), 1)
			return e
		})), member: v1alpha1.ArchiveSourcesMember, want: "its SHA-256 is"},
		{name: "size mismatch", data: tarGz(t, changed(2, func(e entry) entry { e.data = append(e.data, ' '); return e })), member: v1alpha1.ArchiveSourcesMember, want: "the manifest says"},
		{name: "path traversal", data: tarGz(t, with(entry{name: "../../etc/cron.d/x", data: []byte("x")})), member: "../../etc/cron.d/x", want: "not a plain file name"},
		{name: "absolute path", data: tarGz(t, with(entry{name: "/etc/passwd", data: []byte("x")})), member: "/etc/passwd", want: "not a plain file name"},
		{name: "in a directory", data: tarGz(t, with(entry{name: "dir/version.json", data: []byte("x")})), member: "dir/version.json", want: "not a plain file name"},
		{name: "symbolic link", data: tarGz(t, []entry{ms[0], {name: v1alpha1.ArchiveVersionMember, typeflag: tar.TypeSymlink}}), member: v1alpha1.ArchiveVersionMember, want: "not a regular file"},
		{name: "control characters in a name", data: tarGz(t, with(entry{name: "x\x1b]0;pwned\a", data: []byte("x")})), member: "x\x1b]0;pwned\a", want: "control characters"},
		{name: "manifest over the bound", data: valid, maxSize: 600, member: v1alpha1.ArchiveManifestMember, want: "more than the"},
		{name: "a huge member of zeros", data: tarGz(t, withManifest(t, []entry{{name: v1alpha1.ArchiveVersionMember, data: make([]byte, 4<<20)}}, nil)), maxSize: 1 << 20, member: v1alpha1.ArchiveVersionMember, want: "more than the"},
		{name: "100000 members", data: tarGz(t, many), member: "m0", want: "unknown member"},
		// An event ring serving it would wrap past the window's end.
		{name: "window to the last sequence number", data: tarGz(t, withManifest(t, others(), func(m *v1alpha1.ArchiveManifest) { m.Events.Until = math.MaxUint64 })),
			member: v1alpha1.ArchiveEventsMember, want: "which no agent numbers"},
		{name: "a node's name that is not one", data: badNodeData, member: v1alpha1.ArchiveManifestMember, want: `names node "Node\x1b]0;pwned\a", which is not a node's name`},
		{name: "events out of order", data: tarGz(t, withManifest(t, func() []entry {
			es := others()
			for i := range es {
				if es[i].name == v1alpha1.ArchiveEventsMember {
					lines := bytes.SplitAfter(es[i].data, []byte("\n"))
					lines[0], lines[1] = lines[1], lines[0]
					es[i].data = bytes.Join(lines, nil)
				}
			}
			return es
		}(), nil)), member: v1alpha1.ArchiveEventsMember, want: "out of order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.data), "colleague.tar.gz", tc.maxSize)
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if ae.File != "colleague.tar.gz" || (ae.Member != tc.member && tc.member != "*") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q (member %q), want one of archive colleague.tar.gz, member %q, with %q", err, ae.Member, tc.member, tc.want)
			}
			if strings.ContainsAny(err.Error(), "\x1b\a") {
				t.Errorf("error %q holds raw control characters", err)
			}
		})
	}
}

// gzipOf compresses b.
func gzipOf(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	if _, err := gz.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHistory: the recorded events are read in order, their holes and
// what was before the window as gaps.
func TestHistory(t *testing.T) {
	data, _ := write(t, contents(), 0)
	a, err := Read(bytes.NewReader(data), "a.tar.gz", 0)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHistory(a)
	if err != nil {
		t.Fatal(err)
	}
	type read struct {
		missedFrom, missedTo uint64
		seqs                 []uint64
	}
	tests := []struct {
		after uint64
		max   int
		want  read
	}{
		{after: 0, max: 100, want: read{seqs: []uint64{1, 2, 3, 4}}},
		{after: 2, max: 1, want: read{seqs: []uint64{3}}},
		{after: 4, max: 100, want: read{missedFrom: 5, missedTo: 6, seqs: []uint64{7, 8, 9, 10}}},
		{after: 10, max: 100, want: read{}},
	}
	for _, tc := range tests {
		var b eventring.Batch
		if err := h.Read(&b, tc.after, tc.max); err != nil {
			t.Fatal(err)
		}
		got := read{missedFrom: b.MissedFrom, missedTo: b.MissedTo}
		for _, e := range b.Events {
			got.seqs = append(got.seqs, e.Seq)
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(read{})); diff != "" {
			t.Errorf("Read after %d (-want +got):\n%s", tc.after, diff)
		}
	}
	if seq, err := h.SeqAt(recordedAt.Add(7 * time.Second)); err != nil || seq != 6 {
		t.Errorf("SeqAt(event 7's time) = %d, %v; want 6", seq, err)
	}
}

// TestReadHoldsWhatArrives: a member's header that claims more bytes than
// the archive holds fails as truncated, having taken no more memory than
// what arrived, not what the header claimed: a tiny hostile file may not
// make the plugin allocate its read bound.
func TestReadHoldsWhatArrives(t *testing.T) {
	const claimed = 512 << 20
	version := members(t)[1]
	ms := withManifest(t, []entry{version}, func(m *v1alpha1.ArchiveManifest) { m.Members[0].Size = claimed })
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: ms[0].name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(ms[0].data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(ms[0].data); err != nil {
		t.Fatal(err)
	}
	// The member's header, and nothing of what it claims.
	if err := tw.WriteHeader(&tar.Header{Name: version.name, Typeflag: tar.TypeReg, Mode: 0o644, Size: claimed}); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(buf.Bytes()), "colleague.tar.gz", 0)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), version.name) {
		t.Errorf("error %v, want member %s truncated", err, version.name)
	}
	if took := after.TotalAlloc - before.TotalAlloc; took > claimed/8 {
		t.Errorf("reading a %d-byte archive allocated %d bytes, as much as its header claims", buf.Len(), took)
	}
}

// TestReadBoundsMetadata: tar metadata headers, which the tar reader reads
// as many as there are before an entry, count towards the bound: an
// archive of nothing but PAX headers fails at the bound rather than being
// decompressed to its end.
func TestReadBoundsMetadata(t *testing.T) {
	const maxSize = 1 << 20
	var raw bytes.Buffer
	for range 64 {
		raw.Write(paxHeader(t, 512<<10))
	}
	data := gzipOf(t, raw.Bytes())
	r := &countingReader{r: bytes.NewReader(data)}
	_, err := Read(r, "colleague.tar.gz", maxSize)
	var ae *Error
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Errorf("error %v, want an *Error of an archive past the bound", err)
	}
	if r.n > int64(len(data))/2 {
		t.Errorf("read %d of the archive's %d bytes, %d decompressed, for a bound of %d", r.n, len(data), raw.Len(), maxSize)
	}
}

// paxHeader returns a tar PAX extended header entry with one record of
// about size bytes, padded to the tar block size.
func paxHeader(t *testing.T, size int) []byte {
	t.Helper()
	value := strings.Repeat("x", size)
	record := fmt.Sprintf(" comment=%s\n", value)
	n := len(record)
	for len(fmt.Sprint(n+len(fmt.Sprint(n)))) != len(fmt.Sprint(n)) {
		n++
	}
	record = fmt.Sprint(n+len(fmt.Sprint(n))) + record
	hdr := make([]byte, 512)
	copy(hdr, "PaxHeader")
	copy(hdr[100:], "0000644\x00")
	copy(hdr[108:], "0000000\x00")
	copy(hdr[116:], "0000000\x00")
	copy(hdr[124:], fmt.Sprintf("%011o\x00", len(record)))
	copy(hdr[136:], "00000000000\x00")
	hdr[156] = tar.TypeXHeader
	copy(hdr[257:], "ustar\x0000")
	copy(hdr[148:156], "        ")
	sum := 0
	for _, c := range hdr {
		sum += int(c)
	}
	copy(hdr[148:], fmt.Sprintf("%06o\x00 ", sum))
	body := []byte(record)
	if pad := len(body) % 512; pad != 0 {
		body = append(body, make([]byte, 512-pad)...)
	}
	return append(hdr, body...)
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
