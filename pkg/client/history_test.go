package client

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

func TestHistory(t *testing.T) {
	tests := []struct {
		name      string
		published int
		capacity  int
		want      []uint64
		missed    bool
	}{
		{name: "no events", published: 0, capacity: 10},
		{name: "every event", published: 3, capacity: 10, want: []uint64{1, 2, 3}},
		{name: "the events the agent still holds, after a gap", published: 5, capacity: 2, want: []uint64{4, 5}, missed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fa := fakeagent.New("node-1")
			fa.Capacity = tc.capacity
			for i := 0; i < tc.published; i++ {
				fa.Publish(configEvent("ADD", "p"))
			}
			a := startAgent(t, fa)
			evs, missed, err := a.History(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, ev := range evs {
				got = append(got, ev.Seq)
			}
			if !slices.Equal(got, tc.want) || missed != tc.missed {
				t.Fatalf("history %v, missed %v; want %v, %v", got, missed, tc.want, tc.missed)
			}
		})
	}
}

func TestHistoryOfAnAgentThatIsNotOne(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Served = "v9"
	_, _, err := startAgent(t, fa).History(context.Background())
	if err == nil || !strings.Contains(err.Error(), "upgrade") {
		t.Fatalf("error %v, want the skew named", err)
	}
}
