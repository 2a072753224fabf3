package merge

import (
	"context"
	"fmt"
	"testing"

	"github.com/podsrc/podsrc/pkg/merge/mergebench"
)

// BenchmarkSteadySet merges one API source's full list again and again with
// 1% of the pods changed per step, with the resource versions as
// fingerprints (what the API source sends) and without (a full comparison).
func BenchmarkSteadySet(b *testing.B) {
	for _, n := range []int{110, 5000} {
		for _, fp := range []bool{true, false} {
			b.Run(fmt.Sprintf("pods=%d/fingerprints=%v", n, fp), func(b *testing.B) {
				benchSteady(b, n, fp)
			})
		}
	}
}

func benchSteady(b *testing.B, n int, withFingerprints bool) {
	ctx := context.Background()
	cfg := New(Options{Buffer: 8})
	w := mergebench.NewWorkload(n, 1)
	pods, fps := w.Current()
	if err := cfg.store.merge(ctx, "api", PodUpdate{Op: Set, Pods: pods, Fingerprints: fps}); err != nil {
		b.Fatal(err)
	}
	drain(cfg.Updates())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		w.Advance()
		pods, fps := w.Current()
		if !withFingerprints {
			fps = nil
		}
		b.StartTimer()
		if err := cfg.store.merge(ctx, "api", PodUpdate{Op: Set, Pods: pods, Fingerprints: fps}); err != nil {
			b.Fatal(err)
		}
		drain(cfg.Updates())
	}
}

// BenchmarkFirstSet merges a source's first full list into an empty storage.
func BenchmarkFirstSet(b *testing.B) {
	for _, n := range []int{110, 5000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			ctx := context.Background()
			w := mergebench.NewWorkload(n, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				cfg := New(Options{Buffer: 8})
				pods, fps := w.Current()
				b.StartTimer()
				if err := cfg.store.merge(ctx, "api", PodUpdate{Op: Set, Pods: pods, Fingerprints: fps}); err != nil {
					b.Fatal(err)
				}
				drain(cfg.Updates())
			}
		})
	}
}
