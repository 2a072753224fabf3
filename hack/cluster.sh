#!/usr/bin/env bash
# cluster.sh builds, starts and tears down podsrc's test cluster of one node:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and
# containerd, all inside one network namespace, on the machine it runs on;
# and a second node on demand, in a namespace of its own (lib/node2.sh).
# See hack/README.md. Run as root.
#
#   hack/cluster.sh build                    build binaries and images (cached)
#   hack/cluster.sh built                    exit 0 if build has nothing left to build
#   hack/cluster.sh up                       start, or reuse a healthy cluster
#   PODSRC_NODES=2 hack/cluster.sh up        the same, with the second node (node2-up)
#   hack/cluster.sh node2-up                 add the second node: another layout, kubelet
#                                            v1.34.4, its runtime under a private mount
#   hack/cluster.sh node2-down               stop the second node, delete its Node
#   hack/cluster.sh down                     stop everything, leave nothing behind
#   hack/cluster.sh status                   print the env file; exit 1 if not healthy
#   hack/cluster.sh env                      print the env file of a running cluster
#   hack/cluster.sh restart-kubelet          restart the kubelet, wait for Ready
#   hack/cluster.sh restart-kubelet VERSION  restart it as kubelet VERSION (v1.34.4; built on
#                                            first use), until the next restart-kubelet
#   PODSRC_KUBELET_FEATURE_GATES=A=false,B=true hack/cluster.sh restart-kubelet [VERSION]
#                                            the same, with those featureGates in the kubelet's
#                                            config file, until the next restart-kubelet
#   hack/cluster.sh restart-containerd       restart the kubelet's containerd
#   hack/cluster.sh restart-apiserver        restart kube-apiserver, wait for /readyz
#   hack/cluster.sh containerd-up NAME       start a standalone containerd
#   hack/cluster.sh containerd-restart NAME  restart it (containers keep running)
#   hack/cluster.sh containerd-down NAME     stop it and remove everything it made
#                                            (these three run hack/containerd.sh)
#   hack/cluster.sh check-clean              exit 1 if anything of a cluster is left
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"
# shellcheck source=hack/lib/cluster.sh
source "$HACK_DIR/lib/cluster.sh"
# shellcheck source=hack/lib/pki.sh
source "$HACK_DIR/lib/pki.sh"
# shellcheck source=hack/lib/components.sh
source "$HACK_DIR/lib/components.sh"
# shellcheck source=hack/lib/leaks.sh
source "$HACK_DIR/lib/leaks.sh"
# shellcheck source=hack/lib/node2.sh
source "$HACK_DIR/lib/node2.sh"

# ---------------------------------------------------------------------------
# Commands

COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet)

healthy() {
	[[ -f "$ENV_FILE" ]] || return 1
	local c
	for c in "${COMPONENTS[@]}"; do running "$c" || return 1; done
	api_ready && node_usable
}

write_env() {
	cat >"$ENV_FILE.tmp" <<EOF
KUBECONFIG=$KUBECONFIG_ADMIN
KUBECTL=$KUBECTL
API_SERVER=https://$NODE_IP:$API_PORT
NODE_NAME=$NODE_NAME
NODE_IP=$NODE_IP
CLIENT_IP=$CLIENT_IP
NETNS=$NETNS
NETNS_PATH=$NETNS_PATH
POD_SUBNET=$POD_SUBNET
POD_GATEWAY=$POD_GATEWAY
SERVICE_SUBNET=$SERVICE_SUBNET
STATIC_POD_DIR=$STATIC_POD_DIR
CRI_ENDPOINT=unix://$CRI_SOCKET
CONTAINERD_SOCKET=$CRI_SOCKET
CTR=$CTRD_BIN/ctr
KUBELET_CONFIG=$KUBELET_CONFIG
KUBELET_ROOT_DIR=$KUBELET_DIR
KUBELET_LOG=$KUBELET_LOG
POD_LOG_DIR=$POD_LOG_DIR
LOG_DIR=$LOG_DIR
PKI_DIR=$PKI
CA_FILE=$PKI/ca.crt
CGROUP_ROOT=/$CGROUP_ROOT
PAUSE_IMAGE=$PAUSE_IMAGE
TEST_IMAGE=$TEST_IMAGE
IMAGE_DIR=$IMG_DIR
K8S_VERSION=$K8S_VERSION
EOF
	if node2_running; then node2_env >>"$ENV_FILE.tmp"; fi
	mv "$ENV_FILE.tmp" "$ENV_FILE"
}

cmd_build() {
	build_all
}

cmd_up() {
	require_cluster_root
	require_host
	build_all
	bin_paths
	lock
	if healthy; then
		log "reusing the running cluster"
	else
		cluster_start
	fi
	case ${PODSRC_NODES:-1} in
	1) if node2_running; then node2_remove; fi ;;
	2) node2_up ;;
	*) die "PODSRC_NODES=$PODSRC_NODES: the test cluster has one node or two" ;;
	esac
	write_env
	cat "$ENV_FILE"
}

# cluster_start starts the first node and the control plane, after removing
# what an earlier cluster left.
cluster_start() {
	if [[ -d "$RUN_DIR" || -d "$BASE_DIR" || -e "$NETNS_PATH" ]]; then
		log "cleaning up what is left of an earlier cluster"
		teardown
	fi
	local t0=$SECONDS
	mkdir -p "$BASE_DIR" "$RUN_DIR" "$PID_DIR"
	rm -rf "$LOG_DIR"
	mkdir -p "$LOG_DIR"
	setup_netns
	write_cni_config
	gen_pki
	write_kubeconfig "$KUBECONFIG_ADMIN" "https://$NODE_IP:$API_PORT" admin
	write_kubeconfig "$BASE_DIR/controller-manager.kubeconfig" "https://127.0.0.1:$API_PORT" controller-manager
	write_kubeconfig "$BASE_DIR/scheduler.kubeconfig" "https://127.0.0.1:$API_PORT" scheduler
	write_kubeconfig "$KUBELET_KUBECONFIG" "https://127.0.0.1:$API_PORT" "$KUBELET_CERT-client"
	write_kubelet_config
	create_cgroup "$CGROUP_ROOT"

	# The runtime's state directory, where its socket is, is a shared mount
	# as on a systemd host (the second node's is private, as on a host
	# without systemd). Made shared only here, before containerd runs: a
	# bind mount over a running containerd's state would hide its mounts.
	mkdir -p "$CRI_STATE_DIR"
	shared_mount "$CRI_STATE_DIR"
	start_containerd "$CONTAINERD_NAME" "$CONTAINERD_DIR" "$CRI_STATE_DIR" "$CRI_SOCKET"
	start_etcd
	wait_until "etcd" etcd "$LOG_DIR/etcd.log" in_netns curl -sf --max-time 2 http://127.0.0.1:2379/health
	start_apiserver
	wait_containerd "$CONTAINERD_NAME" "$CRI_SOCKET"
	wait_until "kube-apiserver /readyz" kube-apiserver "$LOG_DIR/kube-apiserver.log" api_ready
	start_controller_manager
	start_scheduler
	start_kubelet
	wait_until "kubelet /healthz" kubelet "$KUBELET_LOG" kubelet_healthy
	wait_node_usable
	log "cluster up in $((SECONDS - t0))s"
}

# node2_up starts the second node, or reuses it when it is Ready.
node2_up() {
	build_kubelet "$NODE2_KUBELET_VERSION" || die "building kubelet $NODE2_KUBELET_VERSION failed"
	if node2_running && (use_node2 && node_usable); then
		log "reusing the running second node"
		return 0
	fi
	# A Node left from an earlier second node would look Ready at once.
	node2_remove
	local t0=$SECONDS
	node2_start
	log "second node up in $((SECONDS - t0))s"
}

cmd_node2_up() {
	require_cluster_root
	bin_paths
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running: start it with hack/cluster.sh up"
	node2_up
	write_env
	cat "$ENV_FILE"
}

# cmd_node2_down stops the second node and deletes its Node, so that the
# cluster has one node again.
cmd_node2_down() {
	require_cluster_root
	bin_paths
	lock
	node2_remove
}

# node2_remove stops the second node and, with the API server up, deletes
# its Node and rewrites the env file without it.
node2_remove() {
	node2_teardown
	if [[ -f "$ENV_FILE" ]] && api_ready; then
		kubectl_ delete node "$(use_node2 && echo "$NODE_NAME")" --ignore-not-found >/dev/null ||
			die "deleting the second node's Node"
		write_env
	fi
	log "second node down"
}

# teardown stops every component and removes everything the cluster made,
# except the logs and the build cache.
teardown() {
	bin_paths
	local name
	node2_teardown
	stop kubelet
	# Standalone containerds first, then the kubelet's.
	for name in "$PID_DIR"/containerd-*.pid; do
		[[ -e "$name" ]] || continue
		name=$(basename "$name" .pid)
		containerd_teardown "${name#containerd-}"
	done
	stop_runtime "$CONTAINERD_NAME" "$CRI_SOCKET" "$CGROUP_ROOT"
	for name in kube-scheduler kube-controller-manager kube-apiserver etcd; do
		stop "$name"
	done
	teardown_netns
	unmount_under "$KUBELET_DIR" "$BASE_DIR" "$RUN_DIR"
	remove_cgroups "$CGROUP_ROOT" "$CRI_CGROUP_ROOT"
	# Links the kubelet made to the logs of its containers.
	local l
	for l in /var/log/containers/*.log; do
		[[ -L "$l" ]] || continue
		[[ "$(readlink "$l")" == "$POD_LOG_DIR"/* ]] && rm -f "$l"
	done
	# Results cached by the CNI library for this cluster's network.
	rm -f /var/lib/cni/results/podsrc-* /var/lib/cni/results/cni-loopback-*
	# containerd's fixed directories under /run (shim sockets, runc state),
	# if now empty.
	if [[ -d /run/containerd ]]; then find /run/containerd -depth -type d -empty -delete 2>/dev/null || true; fi
	# The journals the agents on the cluster's nodes kept (the DaemonSet's
	# hostPath, a directory a node).
	rm -rf "${JOURNAL_ROOT:?}/$NODE_NAME" "$JOURNAL_ROOT/${PODSRC_NODE2_NAME:-podsrc-node-2}"
	rmdir "$JOURNAL_ROOT" 2>/dev/null || true
	rm -rf "$RUN_DIR" "$BASE_DIR"
}

cmd_down() {
	require_cluster_root
	lock
	teardown
	log "cluster down"
}

cmd_status() {
	bin_paths
	if healthy; then
		cat "$ENV_FILE"
		return 0
	fi
	local c
	for c in "${COMPONENTS[@]}"; do
		if running "$c"; then log "$c: running (pid $(pid_of "$c"))"; else log "$c: not running"; fi
	done
	die "cluster is not healthy"
}

cmd_env() {
	[[ -f "$ENV_FILE" ]] || die "no cluster running ($ENV_FILE missing)"
	cat "$ENV_FILE"
}

# cmd_restart_kubelet [VERSION] restarts the kubelet, as the cluster's own
# or, given a version with a tools module (hack/tools/kubelet1NN), as that
# kubelet; the next restart without a version goes back.
cmd_restart_kubelet() {
	require_cluster_root
	bin_paths
	if (($# == 1)) && [[ $1 != "$K8S_VERSION" ]]; then
		kubelet_module "$1" >/dev/null || die "no kubelet $1 to run: hack/tools has no kubelet module for it"
		build_kubelet "$1" || die "building kubelet $1 failed"
		KUBELET_BIN=$(kubelet_dir "$1")/kubelet
	fi
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running"
	stop kubelet
	write_kubelet_config
	start_kubelet
	wait_until "kubelet /healthz" kubelet "$KUBELET_LOG" kubelet_healthy
	wait_node_usable
	log "kubelet restarted ($KUBELET_BIN)"
}

cmd_restart_containerd() {
	require_cluster_root
	bin_paths
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running"
	stop containerd
	start_containerd "$CONTAINERD_NAME" "$CONTAINERD_DIR" "$CRI_STATE_DIR" "$CRI_SOCKET"
	wait_containerd "$CONTAINERD_NAME" "$CRI_SOCKET"
	log "containerd restarted"
}

cmd_restart_apiserver() {
	require_cluster_root
	bin_paths
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running"
	stop kube-apiserver
	start_apiserver
	wait_until "kube-apiserver /readyz" kube-apiserver "$LOG_DIR/kube-apiserver.log" api_ready
	log "kube-apiserver restarted"
}

main() {
	local cmd=${1:-}
	shift || true
	case "$cmd" in
	build) cmd_build ;;
	built) all_built ;;
	up) cmd_up ;;
	down) cmd_down ;;
	node2-up) cmd_node2_up ;;
	node2-down) cmd_node2_down ;;
	status) cmd_status ;;
	env) cmd_env ;;
	restart-kubelet) (($# <= 1)) || usage && cmd_restart_kubelet "$@" ;;
	restart-containerd) cmd_restart_containerd ;;
	restart-apiserver) cmd_restart_apiserver ;;
	containerd-up | containerd-restart | containerd-down) exec "$HACK_DIR/containerd.sh" "${cmd#containerd-}" "$@" ;;
	check-clean) check_clean ;;
	*) usage ;;
	esac
}

main "$@"
