package source

import (
	"testing"
	"time"
)

func TestStatusBookOrigin(t *testing.T) {
	var b StatusBook
	if _, ok := b.Origin("a"); ok {
		t.Fatal("an empty book has an origin")
	}
	b.Delivered(time.Unix(1, 0), []PodRef{
		{Namespace: "ns", Name: "a", UID: "uid-a", Origin: "/m/a.yaml"},
		{Namespace: "ns", Name: "b", UID: "uid-b", Origin: "/m/b.yaml"},
	})
	tests := []struct {
		uid, want string
		ok        bool
	}{
		{uid: "uid-a", want: "/m/a.yaml", ok: true},
		{uid: "uid-b", want: "/m/b.yaml", ok: true},
		{uid: "uid-c"},
	}
	for _, tc := range tests {
		if got, ok := b.Origin(tc.uid); got != tc.want || ok != tc.ok {
			t.Errorf("Origin(%q) = %q, %v; want %q, %v", tc.uid, got, ok, tc.want, tc.ok)
		}
	}
}
