package client

// The names below are those of manifests/daemonset.yaml; error messages and
// help texts quote them, so they live in one place.
const (
	// AgentNamespace is the namespace the agent DaemonSet runs in.
	AgentNamespace = "podsrc-system"
	// AgentLabelKey and AgentLabelValue select the agent's pods.
	AgentLabelKey   = "app.kubernetes.io/name"
	AgentLabelValue = "podsrc-agent"
	// AgentSelector is the label selector of the agent's pods.
	AgentSelector = AgentLabelKey + "=" + AgentLabelValue
	// PodProxyRole is the ClusterRole granting get pods/proxy (and list
	// pods) in AgentNamespace, bound there by a RoleBinding.
	PodProxyRole = "podsrc-viewer-pod-proxy"
	// NodeProxyRole is the ClusterRole granting get nodes/proxy.
	NodeProxyRole = "podsrc-viewer-node-proxy"
	// AgentImageRepository is where release images of the agent are
	// published; kubectl podsrc deploy runs the plugin's own version.
	AgentImageRepository = "ghcr.io/podsrc/podsrc-agent"
	// DeployCommand deploys and upgrades the agent and defines the roles
	// (from manifests/daemonset.yaml, built into the plugin).
	DeployCommand = "kubectl podsrc deploy"
)
