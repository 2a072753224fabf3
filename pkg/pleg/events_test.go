package pleg

import (
	"reflect"
	"testing"
)

func TestAppendTransition(t *testing.T) {
	tests := []struct {
		name     string
		from, to plegState
		want     []EventType
	}{
		{name: "unchanged", from: plegRunning, to: plegRunning},
		{name: "appears running", from: plegNonExistent, to: plegRunning, want: []EventType{ContainerStarted}},
		{name: "exits", from: plegRunning, to: plegExited, want: []EventType{ContainerDied}},
		{name: "goes unknown", from: plegRunning, to: plegUnknown, want: []EventType{ContainerChanged}},
		{name: "removed after exit", from: plegExited, to: plegNonExistent, want: []EventType{ContainerRemoved}},
		{name: "vanishes while running", from: plegRunning, to: plegNonExistent, want: []EventType{ContainerDied, ContainerRemoved}},
		{name: "vanishes while unknown", from: plegUnknown, to: plegNonExistent, want: []EventType{ContainerDied, ContainerRemoved}},
		{name: "appears exited", from: plegNonExistent, to: plegExited, want: []EventType{ContainerDied}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []EventType
			for _, c := range appendTransition(nil, tt.from, tt.to, &entry{id: "c1"}, false) {
				if c.id != "c1" {
					t.Errorf("event about %q", c.id)
				}
				got = append(got, c.typ)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEventTypeKubeletSends(t *testing.T) {
	for _, typ := range []EventType{ContainerStarted, ContainerDied, ContainerRemoved, PodSync, ContainerChanged} {
		if got, want := typ.KubeletSends(), typ != ContainerChanged; got != want {
			t.Errorf("%s.KubeletSends() = %v, want %v", typ, got, want)
		}
	}
}
