package agent

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// FuzzParseSource checks the ?source= parser accepts exactly the kubelet's
// source names.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"", "file", "http", "api", "FILE", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSource(s)
		valid := s == "" || s == v1alpha1.SourceFile || s == v1alpha1.SourceHTTP || s == v1alpha1.SourceAPI
		if valid != (err == nil) || (err == nil && got != s) {
			t.Fatalf("parseSource(%q) = %q, %v", s, got, err)
		}
	})
}
