package v1alpha1

// DefaultAgentPort is the port the agent serves on by default.
const DefaultAgentPort = 10270

// APIPrefix is the path prefix of the agent's versioned API.
const APIPrefix = "/api/" + VersionName

// The agent's paths: the versioned API under APIPrefix, then the
// unversioned ones.
const (
	// SourcesPath is the path of the agent's sources (a SourceList).
	SourcesPath = APIPrefix + "/sources"
	// PodsPath is the path of the agent's pod list; PodsPath/{uid} is one
	// pod (PodPath).
	PodsPath = APIPrefix + "/pods"
	// PLEGPath is the path of the agent's PLEG status (a PLEGStatus).
	PLEGPath = APIPrefix + "/pleg"
	// EventsPath is the path of the agent's event stream.
	EventsPath = APIPrefix + "/events"
	// KubeletConfigPath is the path of the kubelet configuration the agent
	// read (a KubeletConfig), masked.
	KubeletConfigPath = APIPrefix + "/kubeletconfig"
	// VersionPath is the path of the agent's Version.
	VersionPath = "/version"
	// MetricsPath is the path of the agent's Prometheus metrics.
	MetricsPath = "/metrics"
	// HealthzPath, LivezPath and ReadyzPath are the agent's probes.
	HealthzPath = "/healthz"
	LivezPath   = "/livez"
	ReadyzPath  = "/readyz"
)

// ProbePaths are the agent's health endpoints, which the kubelet probes.
var ProbePaths = []string{HealthzPath, LivezPath, ReadyzPath}

// PodPath is the path of the pod with the given UID, PodsPath/{uid}. A UID
// with characters a path may not hold is the caller's to escape.
func PodPath(uid string) string { return PodsPath + "/" + uid }
