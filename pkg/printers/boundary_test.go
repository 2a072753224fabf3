package printers

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestBoundaryRow shows an agent start over its journal as one row: a
// first start, and a restart with the time nothing was recorded.
func TestBoundaryRow(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 3, 12, 0, 0, time.UTC)
	tests := []struct {
		name     string
		boundary *v1alpha1.Boundary
		want     []string
	}{
		{name: "first start", boundary: &v1alpha1.Boundary{AgentVersion: "v0.9.0"}, want: []string{"started its journal", "version v0.9.0"}},
		{name: "restart", boundary: &v1alpha1.Boundary{PreviousStop: v1alpha1.StopUnclean,
			Down: &v1alpha1.TimeGap{Start: metav1.NewMicroTime(t0), End: metav1.NewMicroTime(t0.Add(95 * time.Second))}},
			want: []string{"restarted (its last stop was unclean)", "from 2026-03-01T03:12:00Z to 2026-03-01T03:13:35Z (1m35s)"}},
		{name: "damaged journal", boundary: &v1alpha1.Boundary{PreviousStop: v1alpha1.StopClean, Damage: "a write was cut short; moved to /var/lib/podsrc/journal.db.corrupt-x, kept 10 events"},
			want: []string{"restarted (its last stop was clean)", "journal damaged: a write was cut short"}},
		{name: "exposed events dropped", boundary: &v1alpha1.Boundary{PreviousStop: v1alpha1.StopClean, Discarded: "12 events recorded with --expose-pod-specs were dropped: this agent runs without it"},
			want: []string{"restarted (its last stop was clean)", "journal events not served: 12 events recorded with --expose-pod-specs were dropped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 42, Kind: v1alpha1.EventKindBoundary, Boundary: tt.boundary}}
			rows := watchRows("node-1", m, "03:15:00", false)
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1", len(rows))
			}
			r := rows[0]
			if r.Kind != v1alpha1.EventKindBoundary || r.Op != "START" || r.Seq != "42" {
				t.Fatalf("row %+v, want kind boundary, START and seq 42", r)
			}
			detail := r.Detail
			for _, w := range tt.want {
				if !strings.Contains(detail, w) {
					t.Errorf("detail %q lacks %q", detail, w)
				}
			}
		})
	}
}
