package journal

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// BenchmarkPublish publishes PLEG-sized events on a ring, with the journal
// as its sink and without: the difference is the journal's cost per event
// on the publishing side; the writer's (commit and fsync, batched) runs
// beside it and is awaited at the end.
func BenchmarkPublish(b *testing.B) {
	ev := v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", PodName: "web-7f9c6d5b4-abcde", Namespace: "default",
		PodUID: "0f7e6b1a-1c2d-4e5f-8a9b-0c1d2e3f4a5b", Data: "9f8e7d6c5b4a39281706f5e4d3c2b1a0", ContainerName: "nginx", Handler: v1alpha1.SyncHandlerPodAdditions}
	for _, journaled := range []bool{false, true} {
		name := "memory"
		if journaled {
			name = "journal"
		}
		b.Run(name, func(b *testing.B) {
			ring := eventring.New(eventring.DefaultCapacity, nil)
			var j *Journal
			if journaled {
				var err error
				if j, err = Open(context.Background(), Options{Dir: b.TempDir()}); err != nil {
					b.Fatal(err)
				}
				ring.SetSink(j)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); j.Run(ctx) }()
				defer func() { cancel(); <-done; _ = j.Close() }()
			}
			b.ResetTimer()
			var last uint64
			for range b.N {
				e := ev
				e.Time = metav1.NewMicroTime(time.Now())
				last = ring.Publish(e)
			}
			if j != nil {
				err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
					return j.LastSeq() >= last || j.Stats().Dropped[BoundBacklog] > 0, nil
				})
				if err != nil {
					b.Fatalf("the writer did not catch up: %v", err)
				}
				b.ReportMetric(float64(j.Stats().Dropped[BoundBacklog]), "dropped")
				b.ReportMetric(float64(j.Stats().Bytes)/float64(b.N), "bytes/event")
			}
		})
	}
}
