package deploy

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Known is a distribution's usual node layout, assumed when a node's
// /configz cannot be read.
type Known struct {
	// Name says which distribution was assumed, in messages.
	Name   string
	Layout Layout
}

// The sockets of the runtimes the distributions use.
const (
	containerdSocket = "unix:///run/containerd/containerd.sock"
	k3sSocket        = "unix:///run/k3s/containerd/containerd.sock"
	crioSocket       = "unix:///var/run/crio/crio.sock"
	criDockerdSocket = "unix:///var/run/cri-dockerd.sock"
	// kubeadmStaticPods is where kubeadm, kind and minikube keep static
	// pods.
	kubeadmStaticPods = "/etc/kubernetes/manifests"
)

// minikubeLabel is a label minikube puts on its nodes.
const minikubeLabel = "minikube.k8s.io/name"

// DefaultLayout is the layout of a kubeadm node running containerd, which
// kind and minikube's containerd nodes share: manifests/daemonset.yaml as
// written.
func DefaultLayout() Layout {
	return Layout{
		StaticPodPath:      kubeadmStaticPods,
		FileCheckFrequency: defaultCheckFrequency,
		HTTPCheckFrequency: defaultCheckFrequency,
		RuntimeEndpoint:    containerdSocket,
	}
}

// AssumeLayout picks the layout of the distribution the node looks like,
// from its kubelet version (k3s and RKE2 build their own), its container
// runtime and its labels (minikube).
func AssumeLayout(node *corev1.Node) Known {
	info := node.Status.NodeInfo
	runtime, _, _ := strings.Cut(info.ContainerRuntimeVersion, "://")
	withFiles := func(name, socket string) Known {
		l := DefaultLayout()
		l.RuntimeEndpoint = socket
		return Known{Name: name, Layout: l}
	}
	switch {
	case strings.Contains(info.KubeletVersion, "+k3s"):
		return withFiles("k3s", k3sSocket).at("/var/lib/rancher/k3s/agent/pod-manifests")
	case strings.Contains(info.KubeletVersion, "+rke2"):
		return withFiles("RKE2", k3sSocket).at("/var/lib/rancher/rke2/agent/pod-manifests")
	case runtime == "cri-o":
		return withFiles("a CRI-O node (kubeadm paths)", crioSocket)
	case runtime == "docker":
		return withFiles("a cri-dockerd node (kubeadm paths)", criDockerdSocket)
	case node.Labels[minikubeLabel] != "":
		return withFiles("minikube with containerd", containerdSocket)
	default:
		return withFiles("kubeadm or kind with containerd", containerdSocket)
	}
}

// at returns k with another static pod path.
func (k Known) at(staticPodPath string) Known {
	k.Layout.StaticPodPath = staticPodPath
	return k
}
