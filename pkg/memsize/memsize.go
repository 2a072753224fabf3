// Package memsize measures what a value holds of the memory, so that the
// kubectl plugin can bound what it holds of what agents sent by bytes
// held rather than bytes received.
package memsize

import "reflect"

// mapEntryOverhead is what a map holds per entry beyond its key and value:
// its control byte and the slack of a table at its load factor, rounded
// up.
const mapEntryOverhead = 8

// Of returns the bytes v (a pointer) holds: what it points to and, below
// it, every string's bytes, slice's backing array (to its capacity), map's
// entries and pointer's target. For a decoded answer it is what the answer
// takes of the heap, up to the allocator's rounding (within a tenth, as
// measured for pod lists); decoded JSON shares nothing, so that nothing is
// counted twice. A value that shares memory is counted once per reference.
func Of(v any) int64 {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	return below(rv)
}

// below returns the bytes v refers to, beyond v's own.
func below(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return int64(v.Type().Elem().Size()) + below(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return int64(v.Elem().Type().Size()) + below(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := range v.Len() {
			n += below(v.Index(i))
		}
		return n
	case reflect.Array:
		var n int64
		for i := range v.Len() {
			n += below(v.Index(i))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		t := v.Type()
		n := int64(v.Len()) * (int64(t.Key().Size()+t.Elem().Size()) + mapEntryOverhead)
		for it := v.MapRange(); it.Next(); {
			n += below(it.Key()) + below(it.Value())
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			n += below(v.Field(i))
		}
		return n
	}
	return 0
}
