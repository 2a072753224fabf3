#!/usr/bin/env bash
# bench-pleg.sh: podsrc's PLEG relist on a real containerd, next to the bare
# ListPodSandbox + ListContainers round trip it cannot avoid.
#
# It starts a standalone containerd of the test cluster (hack/cluster.sh
# containerd-up; the shared kubelet and its containerd are not touched),
# fills it through CRI with host-network pod sandboxes holding sleeping
# test-image containers, and runs test/bench/pleg, which prints:
#   - the bare round trip and a steady-state podsrc relist, measured
#     interleaved: mean, p50, p90, p99, and their ratio (goal <= 1.2x);
#   - the process CPU time per relist and per bare round trip;
#   - the CPU share of a core with the PLEG at a 1 s relist period.
# Every sandbox and container is removed and the containerd stopped at the
# end, also on failure or interruption.
#
# Usage: sudo hack/bench-pleg.sh [flags of test/bench/pleg]
#   e.g. -pods 100 -containers-per-pod 2 -iterations 2000 -period-run 30s
#        -cpuprofile /tmp/relist.pprof   (then: go tool pprof -top BINARY /tmp/relist.pprof)
# Environment: PODSRC_BENCH_NAME (containerd name, default pleg-bench),
# PODSRC_BENCH_TIMEOUT (seconds, default 1200), PODSRC_BENCH_BIN (where the
# program is built; default a temporary file, removed at the end).
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(dirname "$HACK_DIR")
NAME=${PODSRC_BENCH_NAME:-pleg-bench}
TIMEOUT=${PODSRC_BENCH_TIMEOUT:-1200}
# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"

require_root "network namespace, cgroups, containerd"

tmp=$(mktemp -d)
bin=${PODSRC_BENCH_BIN:-$tmp/bench-pleg}
cleanup() {
	local status=$?
	trap - EXIT INT TERM
	if [[ -n "${started:-}" ]]; then
		log "stopping containerd $NAME"
		timeout -k 10 300 "$HACK_DIR/cluster.sh" containerd-down "$NAME" >&2 || { log "containerd-down $NAME failed"; status=1; }
	fi
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building test/bench/pleg"
(cd "$ROOT_DIR" && go build -o "$bin" ./test/bench/pleg)

log "cluster up (reused when running)"
timeout -k 10 900 "$HACK_DIR/cluster.sh" up >/dev/null
started=1
env_out=$(timeout -k 10 300 "$HACK_DIR/cluster.sh" containerd-up "$NAME")
get() { sed -n "s/^$1=//p" <<<"$env_out" | tail -n 1; }
endpoint=$(get CRI_ENDPOINT)
cgroup_parent=$(get CGROUP_PARENT)
image=$(get TEST_IMAGE)
[[ -n "$endpoint" && -n "$cgroup_parent" && -n "$image" ]] || die "containerd-up printed no CRI_ENDPOINT, CGROUP_PARENT or TEST_IMAGE"
log "containerd $NAME at $endpoint ($(nproc) CPUs)"

# The program removes what it made on SIGTERM; -k bounds that.
timeout -k 360 "$TIMEOUT" "$bin" -endpoint "$endpoint" -cgroup-parent "$cgroup_parent" -image "$image" "$@"
