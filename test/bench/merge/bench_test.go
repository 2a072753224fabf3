// Package merge measures podsrc's pod config merge side by side with the
// kubelet's own (k8s.io/kubernetes/pkg/kubelet/config at v1.36.3) on the
// same workload: one API source whose full pod list is sent again and again
// with 1% of the pods changed per step, and the first list into an empty
// storage. Both are driven through their source channels and read from their
// update channels, as the kubelet's sync loop reads them.
package merge

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/config"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/merge/mergebench"
)

// sizes are the pod counts measured: a full node and a very large one.
var sizes = []int{110, 5000}

// noSLI stands in for the kubelet's pod startup latency tracker.
type noSLI struct{}

func (noSLI) ObservedPodOnWatch(*v1.Pod, time.Time) {}

// pipeline is one implementation's source channel and update channel.
type pipeline struct {
	send func(pods []*v1.Pod, fps []string)
	// stop closes the source channel. The kubelet's mux reads a source's
	// channel until it is closed, whatever its context says, so a pipeline
	// left open keeps its storage, and a benchmark that starts one per
	// iteration keeps every one of them.
	stop func()
	// next returns the op and pods of the next update.
	next func() (string, []*v1.Pod)
}

// receive returns the number of pods in the next update.
func (p pipeline) receive() int {
	_, pods := p.next()
	return len(pods)
}

// kubeletOps names the kubelet's notification ops as podsrc does.
var kubeletOps = map[kubetypes.PodOperation]string{
	kubetypes.ADD: "ADD", kubetypes.DELETE: "DELETE", kubetypes.REMOVE: "REMOVE",
	kubetypes.UPDATE: "UPDATE", kubetypes.RECONCILE: "RECONCILE",
}

func kubelet(ctx context.Context) pipeline {
	cfg := kubeletconfig.NewPodConfig(record.NewFakeRecorder(1000), noSLI{})
	ch := cfg.Channel(ctx, kubetypes.ApiserverSource)
	return pipeline{
		send: func(pods []*v1.Pod, _ []string) { ch <- struct{ Pods []*v1.Pod }{Pods: pods} },
		stop: func() { close(ch) },
		next: func() (string, []*v1.Pod) {
			u := <-cfg.Updates()
			return kubeletOps[u.Op], u.Pods
		},
	}
}

func podsrc(ctx context.Context, fingerprints bool) pipeline {
	cfg := merge.New(merge.Options{})
	ch := cfg.Channel(ctx, "api")
	return pipeline{
		send: func(pods []*v1.Pod, fps []string) {
			if !fingerprints {
				fps = nil
			}
			ch <- merge.PodUpdate{Op: merge.Set, Pods: pods, Fingerprints: fps}
		},
		stop: func() { close(ch) },
		next: func() (string, []*v1.Pod) {
			u := <-cfg.Updates()
			return u.Op.String(), u.Pods
		},
	}
}

// implementations are what each benchmark compares.
var implementations = []struct {
	name string
	new  func(context.Context) pipeline
}{
	{"kubelet", kubelet},
	{"podsrc", func(ctx context.Context) pipeline { return podsrc(ctx, true) }},
	{"podsrc-nofingerprints", func(ctx context.Context) pipeline { return podsrc(ctx, false) }},
}

// BenchmarkSteadySet sends the full list with 1% of the pods changed (image,
// label or status only, each with a new resourceVersion) and waits until
// every changed pod was notified.
func BenchmarkSteadySet(b *testing.B) {
	for _, n := range sizes {
		for _, impl := range implementations {
			b.Run(fmt.Sprintf("impl=%s/pods=%d", impl.name, n), func(b *testing.B) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				p := impl.new(ctx)
				defer p.stop()
				w := mergebench.NewWorkload(n, 1)
				pods, fps := w.Current()
				p.send(pods, fps)
				if got := p.receive(); got != n {
					b.Fatalf("first list notified %d pods, want %d", got, n)
				}
				changed := max(1, n/100)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					w.Advance()
					pods, fps := w.Current()
					b.StartTimer()
					p.send(pods, fps)
					for got := 0; got < changed; {
						got += p.receive()
					}
				}
			})
		}
	}
}

// BenchmarkFirstSet sends a full list into an empty storage and waits for
// the ADD of every pod.
func BenchmarkFirstSet(b *testing.B) {
	for _, n := range sizes {
		for _, impl := range implementations[:2] {
			b.Run(fmt.Sprintf("impl=%s/pods=%d", impl.name, n), func(b *testing.B) {
				w := mergebench.NewWorkload(n, 1)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					ctx, cancel := context.WithCancel(context.Background())
					p := impl.new(ctx)
					pods, fps := w.Current()
					b.StartTimer()
					p.send(pods, fps)
					if got := p.receive(); got != n {
						b.Fatalf("notified %d pods, want %d", got, n)
					}
					b.StopTimer()
					p.stop()
					cancel()
					b.StartTimer()
				}
			})
		}
	}
}
