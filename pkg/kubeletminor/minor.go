// Package kubeletminor names the kubelet minor versions podsrc reproduces and
// turns a kubelet's version string into one of them.
package kubeletminor

import (
	"fmt"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// Minor is a Kubernetes 1.x minor version, such as 34 for kubelet v1.34.0.
type Minor int

// The kubelet minors podsrc reproduces: the API server's minor and the three
// before it that the version skew policy allows a kubelet to run.
const (
	V133 Minor = 33
	V134 Minor = 34
	V135 Minor = 35
	V136 Minor = 36
	V137 Minor = 37
)

// Supported lists the minors podsrc reproduces, oldest first.
var Supported = []Minor{V133, V134, V135, V136, V137}

// String returns the minor as a version, such as "v1.34".
func (m Minor) String() string { return fmt.Sprintf("v1.%d", int(m)) }

// Of returns the minor of a kubelet version such as "v1.34.0" or
// "v1.34.2-eks-1", whether podsrc reproduces it or not.
func Of(version string) (Minor, error) {
	v, err := utilversion.ParseGeneric(strings.TrimSpace(version))
	if err != nil {
		return 0, fmt.Errorf("kubelet version %q: %w", version, err)
	}
	if v.Major() != 1 {
		return 0, fmt.Errorf("kubelet version %q is not a Kubernetes 1.x version", version)
	}
	return Minor(v.Minor()), nil
}

// Parse returns the minor of a kubelet version podsrc reproduces, and an
// error naming the supported minors for any other.
func Parse(version string) (Minor, error) {
	m, err := Of(version)
	if err != nil {
		return 0, err
	}
	if !m.Supported() {
		return 0, fmt.Errorf("kubelet %s: %s", strings.TrimSpace(version), reproducedOnly())
	}
	return m, nil
}

// Supported reports whether podsrc reproduces this minor.
func (m Minor) Supported() bool {
	for _, s := range Supported {
		if m == s {
			return true
		}
	}
	return false
}

// CheckSupported returns nil for a minor podsrc reproduces, and an error
// naming the minors it does for any other.
func (m Minor) CheckSupported() error {
	if m.Supported() {
		return nil
	}
	return fmt.Errorf("kubelet %s: %s", m, reproducedOnly())
}

// reproducedOnly names the range of minors podsrc reproduces.
func reproducedOnly() string {
	return fmt.Sprintf("podsrc reproduces kubelet %s to %s only", Supported[0], Supported[len(Supported)-1])
}

// SkewAdvice says what to do about an agent that reproduces another minor
// than the node's kubelet, of version kubelet: deploy again, which gives
// each node the agent of its minor, or, for a minor podsrc does not
// reproduce, that it does not.
func SkewAdvice(kubelet string) string {
	if m, err := Of(kubelet); err == nil && !m.Supported() {
		return reproducedOnly()
	}
	return "run kubectl podsrc deploy, which gives each node the agent of its kubelet's minor"
}
