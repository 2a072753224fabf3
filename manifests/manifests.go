// Package manifests embeds daemonset.yaml, the one manifest of podsrc, so that
// kubectl podsrc deploy applies the file of the release it was built from.
package manifests

import _ "embed"

// DaemonSet is daemonset.yaml as committed: the namespace, the agent's
// ServiceAccount, roles and DaemonSet template, and the viewer roles.
//
//go:embed daemonset.yaml
var DaemonSet []byte
