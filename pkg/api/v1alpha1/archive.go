package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// KindArchiveManifest is the kind of an archive's manifest.
const KindArchiveManifest = "ArchiveManifest"

// An archive (kubectl podsrc record) is a gzip-compressed tar file of
// regular files, ArchiveManifestMember first, then at most one of each
// other ArchiveMembers, flat: no directory, no link.
const (
	// ArchiveManifestMember is the ArchiveManifest.
	ArchiveManifestMember = "manifest.json"
	// ArchiveVersionMember is the agent's Version.
	ArchiveVersionMember = "version.json"
	// ArchiveSourcesMember is the agent's SourceList.
	ArchiveSourcesMember = "sources.json"
	// ArchivePodsMember is the agent's PodList, every pod.
	ArchivePodsMember = "pods.json"
	// ArchivePodDetailsMember is a PodList of the agent's answers for
	// each of those pods (PodPath): with the pod itself, redacted as the
	// agent serves it, as its source (a static pod's manifest or URL
	// body) or the API server defined it.
	ArchivePodDetailsMember = "poddetails.json"
	// ArchivePLEGMember is the agent's PLEGStatus.
	ArchivePLEGMember = "pleg.json"
	// ArchiveEventsMember holds the event stream of the window
	// (ArchiveEvents), one StreamMessage a line: events and gaps.
	ArchiveEventsMember = "events.ndjson"
	// ArchiveKubeletConfigMember is the agent's KubeletConfig: the
	// kubelet configuration it read, masked.
	ArchiveKubeletConfigMember = "kubeletconfig.json"
	// ArchiveNodeMember is the Node object as the API server had it
	// (k8s.io/api/core/v1.Node).
	ArchiveNodeMember = "node.json"
)

// ArchiveMembers are the members an archive may hold besides its
// manifest, in the order they are written.
var ArchiveMembers = []string{ArchiveVersionMember, ArchiveSourcesMember, ArchivePodsMember, ArchivePodDetailsMember, ArchivePLEGMember, ArchiveKubeletConfigMember, ArchiveEventsMember, ArchiveNodeMember}

// ArchiveManifest is an archive's table of contents: what it holds, with
// checksums, and what it left out and why.
type ArchiveManifest struct {
	metav1.TypeMeta `json:",inline"`
	// NodeName is the node recorded.
	NodeName string `json:"nodeName"`
	// RecordedAt is when the recording ended.
	RecordedAt metav1.Time `json:"recordedAt"`
	// RecorderVersion is the release of the kubectl-podsrc that recorded.
	RecorderVersion string `json:"recorderVersion"`
	// AgentVersion and KubeletVersion are the agent's release and the
	// kubelet version it reproduces (its minor's module).
	AgentVersion   string `json:"agentVersion"`
	KubeletVersion string `json:"kubeletVersion"`
	// MaxSize is the bound on the members' total size the recording kept
	// within.
	MaxSize int64 `json:"maxSize"`
	// Events says which of the agent's events the archive holds.
	Events ArchiveEvents `json:"events"`
	// Members are the archive's members but the manifest, in their order.
	Members []ArchiveMember `json:"members"`
	// LeftOut says what the archive does not hold, and why.
	LeftOut []ArchiveOmission `json:"leftOut,omitempty"`
}

// ArchiveEvents is the window of events an archive holds: what the
// agent's stream sent after Since up to Until, in the agent's Epoch.
type ArchiveEvents struct {
	// Epoch is the stream's (StreamMessage.Epoch).
	Epoch string `json:"epoch"`
	// Since is the sequence number the window starts after; Until its
	// last, the agent's last event when the recording started.
	Since uint64 `json:"since"`
	Until uint64 `json:"until"`
	// Events and Gaps count the member's event and gap messages.
	Events int `json:"events"`
	Gaps   int `json:"gaps"`
}

// ArchiveMember is one member of an archive.
type ArchiveMember struct {
	// Name is the member's name, one of ArchiveMembers.
	Name string `json:"name"`
	// Size is its length in bytes, SHA256 the hex SHA-256 of its content.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// ArchiveOmission is something an archive does not hold.
type ArchiveOmission struct {
	// What was left out: a member's name, or what no member holds.
	What string `json:"what"`
	// Reason says why.
	Reason string `json:"reason"`
}
