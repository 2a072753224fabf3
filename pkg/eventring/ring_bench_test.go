package eventring

import (
	"fmt"
	"sync"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// readBatch is how many events a reader takes at once, as the agent's
// streams do.
const readBatch = 256

// BenchmarkRingPublish publishes config events while readers follow the ring
// as streams do; ns/op is the cost of one published event.
func BenchmarkRingPublish(b *testing.B) {
	for _, readers := range []int{0, 10, 100} {
		b.Run(fmt.Sprintf("readers=%d", readers), func(b *testing.B) {
			r := New(DefaultCapacity, nil)
			done := make(chan struct{})
			var wg sync.WaitGroup
			for range readers {
				wg.Go(func() {
					var cursor uint64
					var batch Batch
					for {
						r.Read(&batch, cursor, readBatch)
						if n := len(batch.Events); n > 0 {
							cursor = batch.Events[n-1].Seq
							continue
						}
						select {
						case <-batch.Wake:
						case <-done:
							return
						}
					}
				})
			}
			e := v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "UPDATE", Source: "api",
				Pods: []v1alpha1.PodRef{{Name: "web-5d8f7c9b6-abcde", Namespace: "default", UID: "00000000-0000-4000-8000-000000000001"}}}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				r.Publish(e)
			}
			b.StopTimer()
			close(done)
			wg.Wait()
		})
	}
}
