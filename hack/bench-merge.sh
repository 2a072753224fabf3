#!/usr/bin/env bash
# Measures podsrc's pod config merge next to the kubelet's own (v1.36.3) on
# the same workload and prints the ratios. See test/bench/merge.
set -euo pipefail
cd "$(dirname "$0")/../test/bench/merge"
benchtime=${BENCHTIME:-200x}
out=$(go test -run '^$' -bench . -benchmem -benchtime "$benchtime" -timeout 60m ./)
echo "$out" | grep '^Benchmark'
echo
printf "%-28s %14s %14s %10s %14s %14s\n" workload "kubelet ns/op" "podsrc ns/op" speed-up "kubelet allocs" "podsrc allocs"
echo "$out" | awk '
  /^Benchmark/ {
    split($1, parts, "/"); bench = parts[1]; impl = parts[2]; sub(/^impl=/, "", impl)
    size = parts[3]; sub(/-[0-9]+$/, "", size)
    ns[bench "/" size "/" impl] = $3; allocs[bench "/" size "/" impl] = $7
    keys[bench "/" size] = 1
  }
  END {
    for (k in keys) {
      kb = ns[k "/kubelet"]; ps = ns[k "/podsrc"]
      if (kb == "" || ps == "") continue
      printf "%-28s %14d %14d %9.1fx %14d %14d\n", k, kb, ps, kb / ps, allocs[k "/kubelet"], allocs[k "/podsrc"]
    }
  }' | sort
