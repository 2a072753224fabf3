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
	endpoints := []struct{ in, want string }{
		{in: "", want: ""},
		{in: "localhost:4317", want: "localhost:4317"},
		{in: "10.0.0.1:4317", want: "10.0.0.1:4317"},
		{in: "[fd00::1]:4317", want: "[fd00::1]:4317"},
		{in: "user:pw@collector:4317", want: "xxxxx@collector:4317"},
		{in: "collector:4317?token=abc", want: "collector:4317?token=xxxxx"},
		{in: "https://user:pw@collector:4318/v1/traces", want: "https://xxxxx@collector:4318/v1/traces"},
		{in: "unix:///run/containerd/containerd.sock", want: "unix:///run/containerd/containerd.sock"},
		{in: "/run/containerd/containerd.sock", want: "/run/containerd/containerd.sock"},
		{in: "collector:4317/%zz", want: Masked},
	}
	for _, tt := range endpoints {
		if got := MaskEndpoint(tt.in); got != tt.want {
			t.Errorf("MaskEndpoint(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	text := `Get "http://u:xxxxx@h/p?token=abc": dial tcp: refused; env postgres://app:pw@db/x`
	want := `Get "http://xxxxx@h/p?token=xxxxx": dial tcp: refused; env postgres://xxxxx@db/x`
	if got := MaskURLs(text); got != want {
		t.Errorf("MaskURLs:\n got %s\nwant %s", got, want)
	}
}
