package serve

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

func TestSeqOfAMark(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	events := eventring.New(10, func() time.Time { return now })
	for _, age := range []time.Duration{3 * time.Hour, 2 * time.Hour, time.Hour, time.Minute} {
		events.Publish(v1alpha1.Event{Time: metav1.NewMicroTime(now.Add(-age))})
	}
	for _, tt := range []struct {
		mark v1alpha1.Mark
		want uint64
	}{
		{*v1alpha1.SeqMark(2), 2},
		{*v1alpha1.AgeMark(0), 4},
		{*v1alpha1.AgeMark(90 * time.Minute), 2},
		{*v1alpha1.AgeMark(time.Hour), 2},
		{*v1alpha1.AgeMark(10 * time.Hour), 0},
	} {
		if got := seqOf(events, tt.mark, now); got != tt.want {
			t.Errorf("seqOf(%s) = %d, want %d", tt.mark, got, tt.want)
		}
	}
}
