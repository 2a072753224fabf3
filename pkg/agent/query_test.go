package agent

import (
	"testing"

	api "github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// FuzzParseSource checks the ?source= parser accepts exactly the kubelet's
// source names.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"", "file", "http", "api", "FILE", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSource(s)
		valid := s == "" || s == api.SourceFile || s == api.SourceHTTP || s == api.SourceAPI
		if valid != (err == nil) || (err == nil && got != s) {
			t.Fatalf("parseSource(%q) = %q, %v", s, got, err)
		}
	})
}
