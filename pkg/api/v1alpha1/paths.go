package v1alpha1

// DefaultAgentPort is the port the agent serves on by default.
const DefaultAgentPort = 10270

// APIPrefix is the path prefix of the agent's versioned API.
const APIPrefix = "/api/" + VersionName

// EventsPath is the path of the agent's event stream.
const EventsPath = APIPrefix + "/events"

// PodsPath is the path of the agent's pod list; PodsPath/{uid} is one pod.
const PodsPath = APIPrefix + "/pods"
