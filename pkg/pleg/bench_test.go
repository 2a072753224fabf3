package pleg

import (
	"context"
	"fmt"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// benchNode builds a runtime with pods pods, each with a ready sandbox and
// two containers. Containers of every hundredth pod exit in the "changed"
// variant.
func benchNode(pods int, changed bool) ([]*runtimeapi.PodSandbox, []*runtimeapi.Container) {
	sandboxes := make([]*runtimeapi.PodSandbox, 0, pods)
	containers := make([]*runtimeapi.Container, 0, 2*pods)
	for i := range pods {
		uid := fmt.Sprintf("pod-%05d", i)
		sandboxes = append(sandboxes, sandboxObj("s-"+uid, uid, 0, int64(3*i+1), runtimeapi.PodSandboxState_SANDBOX_READY))
		for j := range 2 {
			st := runtimeapi.ContainerState_CONTAINER_RUNNING
			if changed && i%100 == 0 {
				st = runtimeapi.ContainerState_CONTAINER_EXITED
			}
			containers = append(containers, containerObj(fmt.Sprintf("c-%s-%d", uid, j), uid, int64(3*i+2+j), st))
		}
	}
	return sandboxes, containers
}

// BenchmarkRelistSteady is a whole relist of an unchanged node (the
// runtime's answers excluded, but the copies the fake returns included), for
// the node size of the performance goal (100 pods, 200 containers) and for
// 5,000 pods. cpu-ns/op is the process CPU time per relist, which is less
// disturbed than the wall time by other load on the machine.
func BenchmarkRelistSteady(b *testing.B) {
	for _, pods := range []int{100, 5000} {
		b.Run(fmt.Sprintf("pods=%d", pods), func(b *testing.B) {
			rt := newFakeRuntime()
			rt.set(benchNode(pods, false))
			g := New(rt, Options{ChannelCapacity: 4 * pods})
			ctx := context.Background()
			if err := g.Relist(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := processCPUTime()
			n := 0
			for b.Loop() {
				if err := g.Relist(ctx); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(processCPUTime()-cpu)/float64(n), "cpu-ns/op")
		})
	}
}

// BenchmarkRelist5000PodsChurn alternates between two states in which 50
// pods' containers run or exit: every relist computes 100 events and
// inspects 50 pods.
func BenchmarkRelist5000PodsChurn(b *testing.B) {
	rt := newFakeRuntime()
	sa, ca := benchNode(5000, false)
	sb, cb := benchNode(5000, true)
	rt.set(sa, ca)
	g := New(rt, Options{ChannelCapacity: 20000, Observer: &dropCount{}})
	ctx := context.Background()
	if err := g.Relist(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := processCPUTime()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			rt.set(sb, cb)
		} else {
			rt.set(sa, ca)
		}
		i++
		if err := g.Relist(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPUTime()-cpu)/float64(i), "cpu-ns/op")
	if n := g.opts.Observer.(*dropCount).n; n != 0 {
		b.Fatalf("%d events dropped", n)
	}
}

// BenchmarkComputeEvents5000Pods is the event computation alone, over 5,000
// pods of which 50 changed.
func BenchmarkComputeEvents5000Pods(b *testing.B) {
	for _, mode := range []struct {
		name     string
		scanUpTo int
	}{{"scan", 0}, {"maps", -1}} {
		b.Run(mode.name, func(b *testing.B) {
			recs := newPodRecords()
			recs.begin()
			s0, c0 := benchNode(5000, false)
			group(&recs, s0, c0)
			for _, r := range recs.byUID {
				recs.update(r)
			}
			recs.begin()
			s1, c1 := benchNode(5000, true)
			group(&recs, s1, c1)
			sc := eventScratch{scanUpTo: mode.scanUpTo}
			var buf []change
			b.ReportAllocs()
			cpu := processCPUTime()
			iters := 0
			for b.Loop() {
				iters++
				n := 0
				for _, r := range recs.byUID {
					buf = sc.computeEvents(buf[:0], &r.old, r.hasOld, &r.cur, recs.hasCurrent(r))
					n += len(buf)
				}
				if n != 100 {
					b.Fatalf("%d events, want 100", n)
				}
			}
			b.ReportMetric(float64(processCPUTime()-cpu)/float64(iters), "cpu-ns/op")
		})
	}
}

// dropCount is an Observer that counts the dropped events alone, so that
// the benchmark measures the relist rather than its observer.
type dropCount struct {
	noObserver
	n int
}

func (d *dropCount) EventComputed(ev ComputedEvent) {
	if ev.Outcome == OutcomeDropped {
		d.n++
	}
}
