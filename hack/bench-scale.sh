#!/usr/bin/env bash
# bench-scale.sh: kubectl podsrc over a simulated cluster of many nodes
# through the test cluster's real API server (issue 16).
#
# test/bench/scale creates N Node objects (podsrc-scale-NNN, labelled
# podsrc.test/scale=<run>, tainted so nothing runs there) whose InternalIPs
# sit on a veth in the cluster's network namespace, guarded by an
# unreachable route in the root namespace, each served by a real pkg/agent
# with synthetic pods and events; then it times the plugin's sources and pods
# over every node, follows every node with watch, and prints the table. It
# removes the nodes, the interface and the route at the end.
#
# Needs root and the test cluster (hack/cluster.sh up).
#
# Usage: hack/bench-scale.sh [flags of test/bench/scale]   (default -nodes 500)
#   e.g. hack/bench-scale.sh -nodes 500 -pods 10 -runs 3 -probes 50
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(dirname "$HACK_DIR")

# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"
# shellcheck source=hack/lib/proc.sh
source "$HACK_DIR/lib/proc.sh"

tmp=$(mktemp -d)
child=""
cleanup() {
	local status=$?
	trap - EXIT INT TERM
	# The program removes its nodes, interface and route on SIGTERM.
	stop_child "$child" 600
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building kubectl-podsrc and test/bench/scale"
(cd "$ROOT_DIR" && go build -o "$tmp/kubectl-podsrc" ./cmd/kubectl-podsrc && go build -o "$tmp/bench-scale" ./test/bench/scale)
log "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
"$tmp/bench-scale" -plugin "$tmp/kubectl-podsrc" "$@" &
child=$!
wait "$child"
