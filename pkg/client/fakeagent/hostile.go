package fakeagent

import (
	"fmt"
	"reflect"
	"unicode"
	"unicode/utf8"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Payload is what a hostile agent puts in every string: terminal sequences
// that retitle the window, clear the screen, move the cursor, plant an
// OSC 8 link and color text (as 7-bit ESC sequences and as C1 controls), a
// carriage return and a line feed that forge a line, a tab, a bidi override,
// DEL and NUL.
const Payload = "\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b]8;;http://evil.invalid/\x1b\\click\x1b]8;;\x1b\\\u009b31m\u009d0;pwned\u009c\r\n\tforged line\u202e\x7f\x00"

// NewHostile returns a fake agent for node that puts Payload in every
// string it serves: every field of the sources, pods, PLEG and version
// (every slice and map given one element, every optional struct set), the
// keys of maps, and config and PLEG events on its stream, one of each kind
// with a valid kind and one with Payload as its kind. Only the apiVersion
// and kind of the answers stay valid, so that the client reads them.
func NewHostile(node string) *Agent {
	a := New(node)
	poison(reflect.ValueOf(&a.Sources).Elem())
	poison(reflect.ValueOf(&a.Pods).Elem())
	poison(reflect.ValueOf(&a.PLEG).Elem())
	poison(reflect.ValueOf(&a.Version).Elem())
	a.Sources.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindSourceList)
	a.Pods.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPodList)
	a.PLEG.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPLEGStatus)
	a.Version.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindVersion)
	for _, kind := range []string{v1alpha1.EventKindConfig, v1alpha1.EventKindPLEG, Payload} {
		var ev v1alpha1.Event
		poison(reflect.ValueOf(&ev).Elem())
		ev.Kind = kind
		a.Publish(ev)
	}
	return a
}

// poison sets every string reachable from v to Payload, giving nil slices
// and maps one element and nil pointers to podsrc's own types a value, so
// that every field is served. Types of other packages behind pointers (the
// full corev1.Pod, times) are left alone, and so is a pointer to a type
// that is already being filled above it (an Admission's preempted pods'
// own Admission).
func poison(v reflect.Value) { poisonBelow(v, map[reflect.Type]bool{}) }

// poisonBelow is poison, where filling lists the pointed-to types filled
// above v.
func poisonBelow(v reflect.Value, filling map[reflect.Type]bool) {
	poison := func(v reflect.Value) { poisonBelow(v, filling) }
	switch v.Kind() {
	case reflect.String:
		v.SetString(Payload)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				poison(f)
			}
		}
	case reflect.Pointer:
		elem := v.Type().Elem()
		if v.IsNil() {
			if elem.PkgPath() != reflect.TypeFor[v1alpha1.Event]().PkgPath() || filling[elem] {
				return
			}
			v.Set(reflect.New(elem))
		}
		filling[elem] = true
		poison(v.Elem())
		delete(filling, elem)
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := 0; i < v.Len(); i++ {
			poison(v.Index(i))
		}
	case reflect.Map:
		key := reflect.New(v.Type().Key()).Elem()
		val := reflect.New(v.Type().Elem()).Elem()
		poison(key)
		poison(val)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(key, val)
	}
}

// RawControls returns, for tests that check what reaches a terminal, each
// character of out a terminal would act on, with its offset: controls but
// the line feed (and the tab when tabs is set), DEL, C1 and bidi controls,
// and bytes that are not UTF-8.
func RawControls(out string, tabs bool) []string {
	var bad []string
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		if (r == utf8.RuneError && size == 1) || (r != '\n' && !(tabs && r == '\t') && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r))) {
			bad = append(bad, fmt.Sprintf("%q at %d", out[i:i+size], i))
		}
		i += size
	}
	return bad
}
