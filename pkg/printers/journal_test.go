package printers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestJournalState(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	oldest := metav1.NewTime(now.Add(-3 * time.Hour))
	tests := []struct {
		name    string
		journal *v1alpha1.JournalStatus
		want    string
	}{
		{name: "an agent that does not say", want: "<none>"},
		{name: "off", journal: &v1alpha1.JournalStatus{State: v1alpha1.JournalOff}, want: "off"},
		{name: "failed", journal: &v1alpha1.JournalStatus{State: v1alpha1.JournalFailed, Error: "mkdir /var/lib/podsrc/n: permission denied\x1b[2J"},
			want: `failed: mkdir /var/lib/podsrc/n: permission denied\x1b[2J`},
		{name: "empty", journal: &v1alpha1.JournalStatus{State: v1alpha1.JournalOn, MaxBytes: 64 << 20}, want: "on: 0 events, 0.0MiB of 64.0MiB"},
		{name: "bounded", journal: &v1alpha1.JournalStatus{State: v1alpha1.JournalOn, Events: 5, Bytes: 3 << 19, MaxBytes: 64 << 20, Oldest: &oldest,
			Dropped: map[string]uint64{"size": 10, "age": 2, "backlog": 1}, WriteErrors: 3},
			want: "on: 5 events, 1.5MiB of 64.0MiB, oldest 3h ago, dropped 2 (age), 1 (backlog), 10 (size), 3 failed writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := journalState(now, tt.journal); got != tt.want {
				t.Errorf("journalState = %q, want %q", got, tt.want)
			}
		})
	}
}
