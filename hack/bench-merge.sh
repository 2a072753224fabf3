#!/usr/bin/env bash
# Measures podsrc's pod config merge next to the kubelet's own (v1.36.3) on
# the same workload and prints the ratios (speed-up: the kubelet's time over
# podsrc's, so above 1 is faster). "(no fp)" rows are podsrc without
# fingerprints, the comparison of every pod. See test/bench/merge; its
# ratios/ prints the table.
# BENCHTIME (default 200x) is go test's -benchtime.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"

cd "$HACK_DIR/../test/bench/merge"
benchtime=${BENCHTIME:-200x}
out=$(go test -run '^$' -bench . -benchmem -benchtime "$benchtime" -timeout 60m ./ 2>&1) ||
	die "the benchmarks of test/bench/merge failed:
$out"
# The ratios are computed in Go (test/bench/merge/ratios).
go run ./ratios <<<"$out"
