#!/usr/bin/env bash
# bench-latency.sh: how soon the agent's event stream, read through the API
# server's node proxy, carries what happened on the real test cluster's node
# (issue 16). It runs test/e2e's TestLatencyBench, which deploys the agent
# (this tree's image, or PODSRC_BENCH_IMAGE), then prints p50, p99 and max
# against the goals for:
#   - a container's exit (containerd's finishedAt) to its ContainerDied line,
#     goal p99 <= relist period + 50 ms, cut where containerd reported the
#     exit and where the relist that saw it started;
#   - a static manifest's rename into the kubelet's directory to its ADD
#     line, goal p99 <= 15 ms.
# Everything it makes (agent, namespace, pods, manifests) is removed at the
# end. It uses the shared cluster: run it under the cluster lock if others
# use it too.
#
# Usage: sudo hack/bench-latency.sh
# Environment: PODSRC_BENCH_EXITS (default 40), PODSRC_BENCH_WRITES (default
# 100), PODSRC_BENCH_IMAGE (an agent image the node's containerd has, e.g.
# one hack/image.sh built from another tree), PODSRC_BENCH_AGENT_ARGS (agent
# flags added to the deployed DaemonSet, e.g.
# --relist-on-runtime-events=false), PODSRC_BENCH_TIMEOUT (seconds, default
# 1200).
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(dirname "$HACK_DIR")
TIMEOUT=${PODSRC_BENCH_TIMEOUT:-1200}
# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"

require_root "the test cluster"
cd "$ROOT_DIR"
PODSRC_BENCH_LATENCY=1 timeout -k 60 "$TIMEOUT" \
	go test -count=1 -v -timeout "${TIMEOUT}s" -run '^TestLatencyBench$' ./test/e2e/
