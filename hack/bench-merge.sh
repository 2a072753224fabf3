#!/usr/bin/env bash
# Measures podsrc's pod config merge next to the kubelet's own (v1.36.3) on
# the same workload and prints the ratios (speed-up: the kubelet's time over
# podsrc's, so above 1 is faster). "(no fp)" rows are podsrc without
# fingerprints, the comparison of every pod. See test/bench/merge.
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
echo "$out" | grep '^Benchmark'
echo
printf "%-36s %14s %14s %10s %14s %14s\n" workload "kubelet ns/op" "podsrc ns/op" speed-up "kubelet allocs" "podsrc allocs"
echo "$out" | awk '
  /^Benchmark/ {
    split($1, parts, "/"); bench = parts[1]; impl = parts[2]; sub(/^impl=/, "", impl)
    size = parts[3]; sub(/-[0-9]+$/, "", size)
    ns[bench "/" size "/" impl] = $3; allocs[bench "/" size "/" impl] = $7
    keys[bench "/" size] = 1
  }
  END {
    for (k in keys) {
      kb = ns[k "/kubelet"]
      if (kb == "") continue
      # podsrc with the API source'"'"'s fingerprints, and without any (a
      # full comparison of every pod, as the kubelet makes).
      split("podsrc podsrc-nofingerprints", impls, " ")
      for (i = 1; i <= 2; i++) {
        ps = ns[k "/" impls[i]]
        if (ps == "") continue
        name = k; if (i == 2) name = k " (no fp)"
        printf "%-36s %14d %14d %9.2fx %14d %14d\n", name, kb, ps, kb / ps, allocs[k "/kubelet"], allocs[k "/" impls[i]]
      }
    }
  }' | sort
