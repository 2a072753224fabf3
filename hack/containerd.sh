#!/usr/bin/env bash
# containerd.sh starts, restarts and stops standalone containerds of the test
# cluster, for tests that drive CRI themselves (test/cluster's
# StandaloneContainerd, hack/bench-pleg.sh): each runs in the cluster's
# network namespace with its own root, state, socket and cgroup parent, and
# the local images imported; the kubelet does not know it. The cluster must
# be up; `hack/cluster.sh down` stops any left. See hack/README.md. Run as
# root.
#
#   hack/containerd.sh up NAME       start one (or reuse a running one), print its env
#   hack/containerd.sh restart NAME  restart it (containers keep running)
#   hack/containerd.sh down NAME     stop it and remove everything it made
#
# hack/cluster.sh containerd-up|containerd-restart|containerd-down NAME run these.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"
# shellcheck source=hack/lib/cluster.sh
source "$HACK_DIR/lib/cluster.sh"

cmd_up() {
	require_cluster_root
	check_name "$1"
	bin_paths
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running: run 'hack/cluster.sh up' first"
	standalone_paths "$1"
	if ! running "$SA_NAME"; then
		create_cgroup "$CRI_CGROUP_ROOT"
		start_containerd "$SA_NAME" "$SA_DIR" "$SA_STATE" "$SA_SOCK"
		wait_containerd "$SA_NAME" "$SA_SOCK"
	fi
	print_standalone_env "$1"
}

cmd_restart() {
	require_cluster_root
	check_name "$1"
	bin_paths
	lock
	standalone_paths "$1"
	[[ -d "$SA_DIR" ]] || die "no containerd named $1"
	stop "$SA_NAME"
	start_containerd "$SA_NAME" "$SA_DIR" "$SA_STATE" "$SA_SOCK"
	wait_containerd "$SA_NAME" "$SA_SOCK"
	print_standalone_env "$1"
}

cmd_down() {
	require_cluster_root
	check_name "$1"
	bin_paths
	lock
	containerd_teardown "$1"
}

main() {
	(($# == 2)) || usage
	case "$1" in
	up) cmd_up "$2" ;;
	restart) cmd_restart "$2" ;;
	down) cmd_down "$2" ;;
	*) usage ;;
	esac
}

main "$@"
