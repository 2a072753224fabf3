package redact

import "testing"

func TestMaskURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{in: "http://10.0.0.1/pods", want: "http://10.0.0.1/pods"},
		{in: "https://user:pw@host:8443/pods?token=abc&node=n1", want: "https://xxxxx@host:8443/pods?token=xxxxx&node=xxxxx"},
		{in: "https://tokenasuser@host/pods", want: "https://xxxxx@host/pods"},
		{in: "http://host/pods?abc123", want: "http://host/pods?xxxxx"},
		{in: "/healthz?key=abc", want: "/healthz?key=xxxxx"},
		{in: "/healthz", want: "/healthz"},
		{in: "http://host/%zz?token=abc", want: Masked},
		{in: "http:pods:secret@host/pods", want: "http:xxxxx"},
		{in: "http://host/pods#secret", want: "http://host/pods#xxxxx"},
		{in: "https://u:pw@host/pods?t=1#frag", want: "https://xxxxx@host/pods?t=xxxxx#xxxxx"},
	}
	for _, tt := range tests {
		if got := MaskURL(tt.in); got != tt.want {
			t.Errorf("MaskURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	text := `Get "http://u:xxxxx@h/p?token=abc": dial tcp: refused; env postgres://app:pw@db/x`
	want := `Get "http://xxxxx@h/p?token=xxxxx": dial tcp: refused; env postgres://xxxxx@db/x`
	if got := MaskURLs(text); got != want {
		t.Errorf("MaskURLs:\n got %s\nwant %s", got, want)
	}
}
