#!/usr/bin/env bash
# bench-agent.sh: podsrc-agent's event streams and memory (issue 6).
#
# 1. test/bench/agent stream: an agent (pkg/agent with its real HTTP server
#    and stream code) in a child process on loopback; 100 HTTP subscribers
#    read /api/v1alpha1/events while the child publishes 10,000 events/s into
#    the agent's event ring for 30 s. Prints throughput, p50/p99/max delivery
#    latency (receive time minus the event's ring time), lagging streams and
#    the agent process's RSS and CPU. It runs twice, with the agent's journal
#    off and on (16 MiB bound, in a temporary directory), and prints the
#    journal's cost per event in agent CPU and RSS, and whether the journal
#    kept its size bound with no write error and nothing dropped unwritten.
# 2. test/bench/agent rss: the real podsrc-agent binary with a file source of
#    110 and of 5,000 valid static pods (no API source, no PLEG); prints its
#    RSS once it has every pod and has settled, against the 40 MiB goal at
#    110 pods, and saves heap profiles.
# 3. test/bench/agent hostile: the real podsrc-agent binary with 1,000 static
#    pods and its memory limit as GOMEMLIMIT (256 MiB), 10 well-behaved
#    streams and a /livez prober, then 1,000 hostile clients from 8 loopback
#    addresses (requests never read, slowloris headers, streams never read);
#    prints the agent's RSS, the /livez p50/p99 and the good streams' holes,
#    gaps, lagging and ends, against the goals (RSS under 256 MiB, p99 under
#    100 ms, nothing lost).
# 4. test/bench/agent fair: the real podsrc-agent binary with 1,000 static
#    pods and its probes on their own port, attacked in turn (10 s each) by
#    slow readers of /pods (8 every 2 s, 40 in all), 128 streams never
#    read, 544 idle keep-alive connections and 544 slowloris connections,
#    each from one loopback address and from 8; prints, for each, how many
#    of the kubelet's probes, well-behaved `sources` and `watch` tries got
#    through, and the agent's peak RSS.
#
# Everything listens on 127.0.0.1 only; every process started is stopped by
# PID with bounded waits, also on failure or interruption.
#
# Usage: hack/bench-agent.sh [stream|rss|hostile|fair|all]   (default all)
# Environment: STREAM_FLAGS (e.g. "-duration 10s -rate 5000 -subscribers 100
# -journal both -journal-max-bytes 16777216"),
# RSS_FLAGS (e.g. "-pods 110,5000 -settle 30s -check-frequency 20s"),
# HOSTILE_FLAGS (e.g. "-pods 1000 -clients 0,250,1000 -phase 20s -peers 8"),
# FAIR_FLAGS (e.g. "-pods 1000 -phase 10s -peers 8"; -probe-port=false for an
# agent without --probe-address, whose probes are on the API's port),
# PODSRC_BENCH_TIMEOUT (seconds per part, default 900), PODSRC_BENCH_OUT
# (where heap profiles and binaries are kept; default a temporary directory,
# removed at the end).
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(dirname "$HACK_DIR")
TIMEOUT=${PODSRC_BENCH_TIMEOUT:-900}
# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"
# shellcheck source=hack/lib/proc.sh
source "$HACK_DIR/lib/proc.sh"
what=${1:-all}

case "$what" in
stream | rss | hostile | fair | all) ;;
*) usage ;;
esac

tmp=$(mktemp -d)
out=${PODSRC_BENCH_OUT:-$tmp}
mkdir -p "$out"
child=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local status=$?
	trap - EXIT INT TERM
	# The program stops its agents on SIGTERM; then it is killed.
	stop_child "$child" 100
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run runs the benchmark program in the background, so that cleanup can
# stop it by PID, and waits for it.
run() {
	timeout -k 30 "$TIMEOUT" "$out/bench-agent" "$@" &
	child=$!
	local rc=0
	wait "$child" || rc=$?
	child=""
	return "$rc"
}

log "building test/bench/agent"
(cd "$ROOT_DIR" && go build -o "$out/bench-agent" ./test/bench/agent)

status=0
if [[ "$what" == stream || "$what" == all ]]; then
	log "stream benchmark (load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs)"
	# shellcheck disable=SC2086 # flags are split on purpose
	run stream ${STREAM_FLAGS:-} || status=1
fi
if [[ "$what" == rss || "$what" == hostile || "$what" == fair || "$what" == all ]]; then
	# The newest minor's module: the agent the Dockerfile ships.
	agent_module=$(cd "$ROOT_DIR" && printf '%s\n' cmd/podsrc-agent/kubelet1[0-9][0-9] | sort | tail -n1)
	log "building $agent_module as it is shipped"
	(cd "$ROOT_DIR/$agent_module" && go build -trimpath -tags grpcnotrace -ldflags "-s -w" -o "$out/podsrc-agent" .)
fi
if [[ "$what" == rss || "$what" == all ]]; then
	log "agent RSS (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
	# shellcheck disable=SC2086 # flags are split on purpose
	run rss -agent "$out/podsrc-agent" -profile-dir "$out" ${RSS_FLAGS:-} || status=1
	if [[ -n "${PODSRC_BENCH_OUT:-}" ]]; then
		log "heap profiles in $out (go tool pprof -sample_index=inuse_space -top $out/podsrc-agent $out/heap-<pods>.pprof)"
	fi
fi
if [[ "$what" == hostile || "$what" == all ]]; then
	log "hostile clients (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
	# shellcheck disable=SC2086 # flags are split on purpose
	run hostile -agent "$out/podsrc-agent" ${HOSTILE_FLAGS:-} || status=1
fi
if [[ "$what" == fair || "$what" == all ]]; then
	log "attackers against the fair shares (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
	# shellcheck disable=SC2086 # flags are split on purpose
	run fair -agent "$out/podsrc-agent" ${FAIR_FLAGS:-} || status=1
fi
exit "$status"
