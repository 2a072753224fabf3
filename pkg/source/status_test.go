package source

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestStatusBookKeepsOrigins(t *testing.T) {
	var b StatusBook
	if got := b.Snapshot().Pods; len(got) != 0 {
		t.Fatalf("an empty book has pods %v", got)
	}
	want := []PodRef{
		{Namespace: "ns", Name: "a", UID: "uid-a", Origin: "/m/a.yaml"},
		{Namespace: "ns", Name: "b", UID: "uid-b", Origin: "/m/b.yaml"},
	}
	b.Delivered(time.Unix(1, 0), want)
	got := b.Snapshot().Pods
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Snapshot().Pods = %v, want %v", got, want)
	}
	got[0].Origin = "changed"
	if b.Snapshot().Pods[0].Origin != "/m/a.yaml" {
		t.Fatal("the snapshot shares its pods with the book")
	}
}

func TestStatusBookClearsErrorOnSuccess(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	type step struct {
		at      int
		part    string
		err     string // empty: the part succeeded
		wantErr string
		wantAt  int
		cleared ClearedError
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"a success with nothing failing keeps nothing", []step{
			{at: 1, part: PartList},
		}},
		{"the failing part's success clears", []step{
			{at: 1, part: PartList, err: "connection refused", wantErr: "connection refused", wantAt: 1},
			{at: 2, part: PartList, cleared: ClearedError{Error: "connection refused", Time: at(1), ClearedTime: at(2)}},
		}},
		{"another part's success does not clear", []step{
			{at: 1, part: PartWatch, err: "too many open files", wantErr: "too many open files", wantAt: 1},
			{at: 2, part: PartList, wantErr: "too many open files", wantAt: 1},
		}},
		{"the other part's error comes back", []step{
			{at: 1, part: PartWatch, err: "watch failed", wantErr: "watch failed", wantAt: 1},
			{at: 2, part: PartList, err: "list failed", wantErr: "list failed", wantAt: 2},
			{at: 3, part: PartList, wantErr: "watch failed", wantAt: 1, cleared: ClearedError{Error: "list failed", Time: at(2), ClearedTime: at(3)}},
			{at: 4, part: PartWatch, cleared: ClearedError{Error: "watch failed", Time: at(1), ClearedTime: at(4)}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b StatusBook
			for i, s := range tc.steps {
				if s.err != "" {
					b.Failed(at(s.at), s.part, errors.New(s.err))
				} else {
					b.Succeeded(at(s.at), s.part)
				}
				st := b.Snapshot()
				var wantAt time.Time
				if s.wantAt != 0 {
					wantAt = at(s.wantAt)
				}
				if st.LastError != s.wantErr || !st.LastErrorTime.Equal(wantAt) {
					t.Errorf("step %d: last error %q at %v, want %q at %v", i, st.LastError, st.LastErrorTime, s.wantErr, wantAt)
				}
				if st.Cleared != s.cleared {
					t.Errorf("step %d: cleared %+v, want %+v", i, st.Cleared, s.cleared)
				}
			}
		})
	}
}
