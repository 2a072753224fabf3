package main

import (
	"strings"
	"testing"
)

// TestRun turns the benchmarks' lines into the speed-up table, sorted, with
// a row per podsrc implementation measured beside the kubelet, and refuses
// a benchmark name it cannot place.
func TestRun(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{
			name: "both podsrc rows, sorted",
			in: "goos: linux\n" +
				"BenchmarkSteadySet/impl=kubelet/pods=110-2 \t 200\t 500000 ns/op\t 1000 B/op\t 50 allocs/op\n" +
				"BenchmarkSteadySet/impl=podsrc-nofingerprints/pods=110-2 \t 200\t 250000.4 ns/op\t 100 B/op\t 7 allocs/op\n" +
				"BenchmarkSteadySet/impl=podsrc/pods=110-2 \t 200\t 100000 ns/op\t 100 B/op\t 5 allocs/op\n" +
				"BenchmarkFirstSet/impl=podsrc/pods=5000-2 \t 10\t 100 ns/op\t 1 B/op\t 1 allocs/op\n" +
				"PASS\n",
			want: "BenchmarkSteadySet/impl=kubelet/pods=110-2 \t 200\t 500000 ns/op\t 1000 B/op\t 50 allocs/op\n" +
				"BenchmarkSteadySet/impl=podsrc-nofingerprints/pods=110-2 \t 200\t 250000.4 ns/op\t 100 B/op\t 7 allocs/op\n" +
				"BenchmarkSteadySet/impl=podsrc/pods=110-2 \t 200\t 100000 ns/op\t 100 B/op\t 5 allocs/op\n" +
				"BenchmarkFirstSet/impl=podsrc/pods=5000-2 \t 10\t 100 ns/op\t 1 B/op\t 1 allocs/op\n" +
				"\n" +
				"workload                              kubelet ns/op   podsrc ns/op   speed-up kubelet allocs  podsrc allocs\n" +
				"BenchmarkSteadySet/pods=110                  500000         100000      5.00x             50              5\n" +
				"BenchmarkSteadySet/pods=110 (no fp)          500000         250000      2.00x             50              7\n",
		},
		{
			name: "a benchmark of another shape",
			in:   "BenchmarkOther-2 \t 10\t 100 ns/op\n",
			err:  `benchmark "BenchmarkOther-2": want Benchmark<Name>/impl=<impl>/pods=<n>`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := run(strings.NewReader(tt.in), &out)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Fatalf("printed:\n%s\nwant:\n%s", out.String(), tt.want)
			}
		})
	}
}
