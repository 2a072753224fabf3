// Command ratios reads the output of the merge benchmarks (go test -bench in
// test/bench/merge) on standard input and prints their result lines, then
// one row per workload and pod count: the kubelet's ns/op and podsrc's, the
// speed-up (the kubelet's time over podsrc's, so above 1 is faster) and both
// allocs/op. "(no fp)" rows are podsrc without fingerprints, the comparison
// of every pod. hack/bench-merge.sh runs it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The implementations the benchmarks measure (their impl= names).
const (
	implKubelet = "kubelet"
	implPodsrc  = "podsrc"
	implNoFP    = "podsrc-nofingerprints"
)

// result is one benchmark's figures.
type result struct {
	nsPerOp, allocsPerOp float64
}

// gomaxprocsSuffix is the -N that go test appends to a benchmark's name.
var gomaxprocsSuffix = regexp.MustCompile(`-[0-9]+$`)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	// results maps workload/pods to each implementation's result.
	results := map[string]map[string]result{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		fmt.Fprintln(out, line)
		workload, impl, r, err := parse(line)
		if err != nil {
			return err
		}
		if results[workload] == nil {
			results[workload] = map[string]result{}
		}
		results[workload][impl] = r
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the benchmarks' output: %w", err)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "%-36s %14s %14s %10s %14s %14s\n", "workload", "kubelet ns/op", "podsrc ns/op", "speed-up", "kubelet allocs", "podsrc allocs")
	var rows []string
	for workload, byImpl := range results {
		kb, ok := byImpl[implKubelet]
		if !ok {
			continue
		}
		for impl, name := range map[string]string{implPodsrc: workload, implNoFP: workload + " (no fp)"} {
			ps, ok := byImpl[impl]
			if !ok || ps.nsPerOp == 0 {
				continue
			}
			rows = append(rows, fmt.Sprintf("%-36s %14.0f %14.0f %9.2fx %14.0f %14.0f",
				name, kb.nsPerOp, ps.nsPerOp, kb.nsPerOp/ps.nsPerOp, kb.allocsPerOp, ps.allocsPerOp))
		}
	}
	slices.Sort(rows)
	for _, r := range rows {
		fmt.Fprintln(out, r)
	}
	return nil
}

// parse reads a result line such as
// "BenchmarkSteadySet/impl=kubelet/pods=110-2  200  1234 ns/op  56 B/op  7 allocs/op"
// into its workload ("BenchmarkSteadySet/pods=110"), implementation and figures.
func parse(line string) (workload, impl string, r result, err error) {
	fields := strings.Fields(line)
	parts := strings.Split(fields[0], "/")
	if len(parts) != 3 || !strings.HasPrefix(parts[1], "impl=") {
		return "", "", r, fmt.Errorf("benchmark %q: want Benchmark<Name>/impl=<impl>/pods=<n>", fields[0])
	}
	impl = strings.TrimPrefix(parts[1], "impl=")
	workload = parts[0] + "/" + gomaxprocsSuffix.ReplaceAllString(parts[2], "")
	// The figures come as value-unit pairs after the iteration count.
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return "", "", r, fmt.Errorf("benchmark %s: figure %q: %w", fields[0], fields[i], err)
		}
		switch fields[i+1] {
		case "ns/op":
			r.nsPerOp = v
		case "allocs/op":
			r.allocsPerOp = v
		}
	}
	return workload, impl, r, nil
}
