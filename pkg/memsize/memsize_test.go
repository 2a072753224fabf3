package memsize

import (
	"testing"
	"unsafe"
)

// TestOf: Of counts what a value points to, every string's bytes, a
// slice's array to its capacity and a map's entries, below a pointer.
func TestOf(t *testing.T) {
	type inner struct {
		S string
		N int64
	}
	type outer struct {
		P *inner
		L []string
		M map[string]string
		A any
	}
	word := int64(unsafe.Sizeof(""))
	tests := []struct {
		name string
		v    any
		want int64
	}{
		{"nil", nil, 0},
		{"a nil pointer", (*inner)(nil), 0},
		{"a struct", &inner{S: "abc"}, int64(unsafe.Sizeof(inner{})) + 3},
		{"a slice to its capacity", &[]string{"ab", "c"}, int64(unsafe.Sizeof([]string{})) + 2*word + 3},
		{"a slice's spare capacity", &outer{L: make([]string, 1, 4)}, int64(unsafe.Sizeof(outer{})) + 4*word},
		{"a map", &outer{M: map[string]string{"k": "vv"}}, int64(unsafe.Sizeof(outer{})) + 2*word + mapEntryOverhead + 3},
		{"below a pointer and an interface", &outer{P: &inner{S: "x"}, A: "yz"}, int64(unsafe.Sizeof(outer{})+unsafe.Sizeof(inner{})) + 1 + word + 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.v); got != tc.want {
				t.Errorf("Of = %d, want %d", got, tc.want)
			}
		})
	}
}
