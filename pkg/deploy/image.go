package deploy

import (
	"fmt"
	"strings"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// ImageFor is the agent image for nodes of kubelet minor m: an agent build
// links one minor's static pod decoder, so each minor has its own tag, the
// base image's tag with "-kubelet1.N" appended (a base without a tag gets
// the tag "kubelet1.N"). A base pinned by digest names one build and is
// refused.
func ImageFor(base string, m kubeletminor.Minor) (string, error) {
	if strings.Contains(base, "@") {
		return "", fmt.Errorf("--image %q is pinned by digest, which names one agent build; give a tag: each kubelet minor's agent is that tag with -kubelet1.N appended", base)
	}
	suffix := fmt.Sprintf("kubelet1.%d", int(m))
	// A colon after the last slash starts the tag; one before it is a
	// registry's port.
	if i := strings.LastIndex(base, ":"); i > strings.LastIndex(base, "/") {
		return base + "-" + suffix, nil
	}
	return base + ":" + suffix, nil
}
