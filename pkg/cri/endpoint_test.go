package cri

import "testing"

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		name     string
		endpoint string
		want     string
		wantErr  bool
	}{
		{name: "unix URL", endpoint: "unix:///run/containerd/containerd.sock", want: "/run/containerd/containerd.sock"},
		{name: "plain path", endpoint: "/run/crio/crio.sock", want: "/run/crio/crio.sock"},
		{name: "path is cleaned", endpoint: "/run//containerd/../containerd/containerd.sock", want: "/run/containerd/containerd.sock"},
		{name: "empty", endpoint: "", wantErr: true},
		{name: "tcp", endpoint: "tcp://127.0.0.1:1234", wantErr: true},
		{name: "unix with host", endpoint: "unix://run/containerd.sock", wantErr: true},
		{name: "unix without path", endpoint: "unix://", wantErr: true},
		{name: "relative path", endpoint: "run/containerd.sock", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEndpoint(tt.endpoint)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseEndpoint(%q) error %v, want error %v", tt.endpoint, err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("ParseEndpoint(%q) = %q, want %q", tt.endpoint, got, tt.want)
			}
		})
	}
}
