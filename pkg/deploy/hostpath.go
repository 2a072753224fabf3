package deploy

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/podsrc/podsrc/internal/shell"
)

// kubeletHostPaths are where kubelets and their runtimes keep static pods
// and CRI sockets: a layout's host paths must lie in one of them (or be one
// of exactHostPaths), unless the caller allows them, so that a node cannot
// have the agent mount any other part of its host by what its /configz
// says.
var kubeletHostPaths = []string{
	// kubeadm, kind, minikube, the managed distributions, Talos.
	"/etc/kubernetes",
	// Older setups' static pods; the kubelet's root directory.
	"/etc/kubelet.d",
	"/var/lib/kubelet",
	// containerd, CRI-O.
	"/run/containerd", "/var/run/containerd",
	"/run/crio", "/var/run/crio",
	// k3s and RKE2: their containerd, manifests and configuration.
	"/run/k3s", "/var/run/k3s",
	"/var/lib/rancher",
	"/etc/rancher",
	// k0s.
	"/run/k0s", "/var/run/k0s",
	"/var/lib/k0s",
	"/etc/k0s",
	// MicroK8s (its containerd socket is in common/run).
	"/var/snap/microk8s",
}

// exactHostPaths may be mounted themselves but not what is under them:
// the directories of sockets kept directly in /run (cri-dockerd,
// dockershim).
var exactHostPaths = []string{"/run", "/var/run"}

// hostPath is one host path a layout mounts, and what it is for messages.
type hostPath struct {
	path, what string
}

// hostPaths are the host paths the layout's DaemonSet mounts.
func (l Layout) hostPaths() []hostPath {
	var out []hostPath
	if l.StaticPodPath != "" {
		out = append(out, hostPath{l.StaticPodPath, "static pod path"})
	}
	if s := l.SocketPath(); s != "" {
		out = append(out, hostPath{path.Dir(s), "CRI socket's directory"})
	}
	return out
}

// hostPathAllowed reports whether p lies in one of allowed or the kubelet
// locations, or is one of exactHostPaths.
func hostPathAllowed(p string, allowed []string) bool {
	p = path.Clean(p)
	for _, e := range exactHostPaths {
		if p == e {
			return true
		}
	}
	for _, list := range [][]string{kubeletHostPaths, allowed} {
		for _, a := range list {
			a = path.Clean(a)
			if p == a || strings.HasPrefix(p, strings.TrimSuffix(a, "/")+"/") {
				return true
			}
		}
	}
	return false
}

// checkHostPaths refuses the host paths of nodes that lie outside the
// kubelet locations and allowed, one message per path naming its nodes and
// the flag that allows it; nil when there are none.
func checkHostPaths(nodes []NodeLayout, allowed []string) error {
	type refusal struct{ what, path string }
	byPath := map[refusal][]string{}
	var refused []refusal
	for _, n := range nodes {
		for _, hp := range n.Layout.hostPaths() {
			if hostPathAllowed(hp.path, allowed) {
				continue
			}
			r := refusal{hp.what, path.Clean(hp.path)}
			if byPath[r] == nil {
				refused = append(refused, r)
			}
			byPath[r] = append(byPath[r], n.Node)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	sort.Slice(refused, func(i, j int) bool { return refused[i].path < refused[j].path })
	msgs := make([]string, 0, len(refused))
	for _, r := range refused {
		nodes := byPath[r]
		msgs = append(msgs, fmt.Sprintf("the %s of %s %s is %s, which is not where kubelets keep theirs (%s, ...): if it is right, pass --allow-host-path=%s",
			r.what, plural(len(nodes), "node", "nodes"), nodeNames(nodes), r.path, strings.Join(kubeletHostPaths[:3], ", "), shell.Quote(r.path)))
	}
	return fmt.Errorf("refusing to mount host paths: %s", strings.Join(msgs, "; "))
}
