// Package deploy puts podsrc-agent on a cluster's nodes and takes it off
// again: it finds each node's layout (where the kubelet reads static pods,
// the static pod URL, the CRI socket) from the kubelet's /configz, or assumes
// a distribution's when /configz cannot be read, renders manifests/daemonset.yaml
// into one DaemonSet per layout, checks the caller may write every object,
// applies them server-side and waits for the agents.
//
// Nodes are matched to layouts by name: the DaemonSet of every layout but the
// most common one selects its nodes by metadata.name; the most common
// layout's DaemonSet, named podsrc-agent, runs on every other node, so a node
// added later gets that layout until deploy runs again. A tie for the most
// common is the caller's to settle (GroupNodes' defaultNode), never settled
// by what the nodes answer. Nodes are never
// labelled or otherwise written to.
//
// What a node's /configz says is not trusted: at most 1 MiB of it is read
// (ReadConfigz), the host paths it names are mounted only where kubelets
// keep theirs or where the caller allows (Overrides.AllowHostPaths), and a
// static pod URL with its headers goes into a Secret the agent reads, not
// into the DaemonSet's arguments.
package deploy
