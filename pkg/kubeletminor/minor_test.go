package kubeletminor

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		version string
		want    Minor
		err     string
	}{
		{version: "v1.33.13", want: V133},
		{version: "v1.34.0", want: V134},
		{version: "v1.35.4", want: V135},
		{version: "v1.36.3", want: V136},
		{version: "v1.37.2", want: V137},
		{version: " v1.34.2-eks-1 ", want: V134},
		{version: "v1.32.9", err: "podsrc reproduces kubelet v1.33 to v1.37 only"},
		{version: "v1.38.0", err: "podsrc reproduces kubelet v1.33 to v1.37 only"},
		{version: "v1.27.16", err: "kubelet v1.27.16: podsrc reproduces"},
		{version: "v2.34.0", err: "not a Kubernetes 1.x version"},
		{version: "", err: `kubelet version ""`},
		{version: "latest", err: `kubelet version "latest"`},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			got, err := Parse(tt.version)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse(%q) = %v, %v; want an error containing %q", tt.version, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %v, %v; want %v", tt.version, got, err, tt.want)
			}
		})
	}
}

func TestOfUnsupported(t *testing.T) {
	m, err := Of("v1.27.16")
	if err != nil || m != 27 || m.Supported() || m.String() != "v1.27" {
		t.Fatalf("Of(v1.27.16) = %v (supported %v), %v; want v1.27, unsupported", m, m.Supported(), err)
	}
}

func TestCheckSupported(t *testing.T) {
	for _, m := range Supported {
		if err := m.CheckSupported(); err != nil {
			t.Errorf("%v.CheckSupported() = %v", m, err)
		}
	}
	for _, m := range []Minor{0, 27, 32, 38} {
		if err := m.CheckSupported(); err == nil || !strings.Contains(err.Error(), "kubelet "+m.String()+": podsrc reproduces kubelet v1.33 to v1.37 only") {
			t.Errorf("%v.CheckSupported() = %v; want the reproduced minors", m, err)
		}
	}
}

func TestSkewAdvice(t *testing.T) {
	for version, want := range map[string]string{
		"v1.34.4": "run kubectl podsrc deploy",
		"v1.36.0": "run kubectl podsrc deploy",
		"v1.32.9": "podsrc reproduces kubelet v1.33 to v1.37 only",
		"v1.40.0": "podsrc reproduces kubelet v1.33 to v1.37 only",
		"unknown": "run kubectl podsrc deploy",
	} {
		if got := SkewAdvice(version); !strings.Contains(got, want) {
			t.Errorf("SkewAdvice(%q) = %q, want it to contain %q", version, got, want)
		}
	}
}
