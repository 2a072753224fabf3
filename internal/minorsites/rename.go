package minorsites

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// rename is the new minor's registration as a copy of the newest one's:
// from is the newest minor and fromVersion the k8s.io/kubernetes version
// its module links (v1.36.3), to and toVersion the new minor's.
type rename struct {
	from, to               kubeletminor.Minor
	fromVersion, toVersion string
}

// digits is the new minor as a site's items spell it (38 for v1.38).
func (r rename) digits() string { return strconv.Itoa(int(r.to)) }

// minorToken is a mention of a minor in code or prose: a module directory
// (kubelet136), an image tag (kubelet1.36), a constant (V136), a version
// (v1.36) or a version with its patch (v1.36.3, or the staging modules'
// v0.36.3).
var minorToken = regexp.MustCompile(`\b(kubelet1\.?|V1|v1\.|v0\.)(\d\d)((?:\.\d+)?)\b`)

// apply renames every mention of the newest minor in text to the new one.
// A version with a patch is renamed only when it is the newest module's
// k8s.io/kubernetes version (or its staging version): v1.36.12 may be any
// other module's.
func (r rename) apply(text string) string {
	from := strconv.Itoa(int(r.from))
	return minorToken.ReplaceAllStringFunc(text, func(tok string) string {
		m := minorToken.FindStringSubmatch(tok)
		prefix, minor, patch := m[1], m[2], m[3]
		switch {
		case minor != from:
			return tok
		case patch == "":
			return prefix + r.digits()
		case tok == r.fromVersion:
			return r.toVersion
		case tok == stagingVersion(r.fromVersion):
			return stagingVersion(r.toVersion)
		default:
			return tok
		}
	})
}

// stagingVersion is the version of the staging modules (k8s.io/api,
// k8s.io/client-go, …) published with k8s.io/kubernetes version v:
// v0.36.3 for v1.36.3.
func stagingVersion(v string) string {
	return "v0." + strings.TrimPrefix(v, "v1.")
}

// constLine is the new minor's constant in pkg/kubeletminor.
func constLine(_ string, r rename) string {
	return fmt.Sprintf("\tV1%d Minor = %d", int(r.to), int(r.to))
}
