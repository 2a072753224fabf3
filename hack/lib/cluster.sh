#!/usr/bin/env bash
# cluster.sh: what hack/cluster.sh and hack/containerd.sh share: the test
# cluster's settings (directories, names, addresses, images, time limits), the
# paths of its binaries, its lock, and the libraries both use (build, proc,
# host, containerd). Sourced; expects HACK_DIR and common.sh.
# shellcheck disable=SC2034 # used by the scripts that source this

CACHE_DIR=${PODSRC_CACHE:-/var/cache/podsrc}
BASE_DIR=${PODSRC_CLUSTER_DIR:-/var/lib/podsrc-cluster}
RUN_DIR=$(cluster_run_dir)
LOG_DIR=${PODSRC_LOG_DIR:-/var/log/podsrc-cluster}
LOCK_FILE=${RUN_DIR}.lock
ENV_FILE=$(cluster_env_file)
PID_DIR=$RUN_DIR/pids

NODE_NAME=${PODSRC_NODE_NAME:-podsrc-node}
# Where the agent keeps its journals on a host (the DaemonSet's hostPath,
# journal.DefaultDir), a directory a node.
JOURNAL_ROOT=/var/lib/podsrc
NETNS=podsrc
NETNS_PATH=/run/netns/$NETNS
VETH_HOST=podsrc-h
VETH_NODE=podsrc-n
CLIENT_IP=10.251.0.1
NODE_IP=10.251.0.2
NODE_PREFIX=30
BRIDGE=podsrc0
POD_SUBNET=10.252.0.0/24
POD_GATEWAY=10.252.0.1
SERVICE_SUBNET=10.253.0.0/24
SERVICE_IP=10.253.0.1
# test/bench/scale's simulated nodes: addresses on its own interface in the
# namespace, an unreachable route in the root one while it runs.
SCALE_SUBNET=10.254.0.0/22
API_PORT=6443
CGROUP_ROOT=podsrc
CRI_CGROUP_ROOT=podsrc-cri

# The second node's kubelet (hack/lib/node2.sh): an older minor.
NODE2_KUBELET_VERSION=${PODSRC_NODE2_KUBELET:-v1.34.4}

PAUSE_IMAGE=podsrc.local/pause:v1
TEST_IMAGE=podsrc.local/testimg:v1

# Time limits, in seconds, for each wait.
WAIT_START=${PODSRC_WAIT_START:-60}
WAIT_STOP=${PODSRC_WAIT_STOP:-15}

PKI=$BASE_DIR/pki
STATIC_POD_DIR=$BASE_DIR/manifests
KUBELET_DIR=$BASE_DIR/kubelet
POD_LOG_DIR=$BASE_DIR/pod-logs
CNI_CONF_DIR=$BASE_DIR/cni/net.d
CNI_IPAM_DIR=$BASE_DIR/cni/ipam
KUBECONFIG_ADMIN=$BASE_DIR/admin.kubeconfig
KUBELET_CONFIG=$BASE_DIR/kubelet-config.yaml
KUBELET_LOG=$LOG_DIR/kubelet.log
KUBELET_KUBECONFIG=$BASE_DIR/kubelet.kubeconfig
# KUBELET_CERT names the kubelet's certificates in PKI: NAME-client, NAME-server.
KUBELET_CERT=kubelet
SYSCTL_DIR=$BASE_DIR/sysctl
CNI_NETWORK=podsrc
# The names spawn records the node's kubelet and containerd under.
KUBELET_NAME=kubelet
CONTAINERD_NAME=containerd
CONTAINERD_DIR=$BASE_DIR/containerd
CRI_STATE_DIR=$RUN_DIR/containerd
CRI_SOCKET=$CRI_STATE_DIR/containerd.sock

# require_cluster_root dies unless the script runs as root.
require_cluster_root() {
	require_root "it creates a network namespace, mounts and cgroups"
}

# lock takes the cluster lock, so concurrent callers run one at a time.
lock() {
	mkdir -p "$(dirname "$LOCK_FILE")"
	exec {lock_fd}>"$LOCK_FILE"
	flock -w 900 "$lock_fd" || die "timed out waiting for $LOCK_FILE"
}

bin_paths() {
	K8S_BIN=$(k8s_dir)
	ETCD_BIN=$(etcd_dir)
	CTRD_BIN=$(containerd_dir)
	IMG_DIR=$(images_dir)
	KUBECTL=$K8S_BIN/kubectl
	KUBELET_BIN=$K8S_BIN/kubelet
}

# shellcheck source=hack/lib/build.sh
source "$HACK_DIR/lib/build.sh"
# shellcheck source=hack/lib/proc.sh
source "$HACK_DIR/lib/proc.sh"
# shellcheck source=hack/lib/host.sh
source "$HACK_DIR/lib/host.sh"
# shellcheck source=hack/lib/containerd.sh
source "$HACK_DIR/lib/containerd.sh"
