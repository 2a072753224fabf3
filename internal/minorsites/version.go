package minorsites

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// release matches a released k8s.io/kubernetes version (no pre-release).
var release = regexp.MustCompile(`^v1\.(\d+)\.\d+$`)

// LatestPatch asks the go command (and so the module proxy it uses) for the
// newest released k8s.io/kubernetes version of minor m, such as v1.37.2
// for v1.37, and fails naming the versions there are when m has none.
func LatestPatch(ctx context.Context, root string, m kubeletminor.Minor) (string, error) {
	out, err := goCommand(ctx, root, "list", "-m", "-versions", "-json", kubernetesModule)
	if err != nil {
		return "", fmt.Errorf("listing the versions of %s: %w", kubernetesModule, err)
	}
	var info struct{ Versions []string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("listing the versions of %s: %w", kubernetesModule, err)
	}
	latest := ""
	var ofMinor []string
	for _, v := range info.Versions {
		if !strings.HasPrefix(v, fmt.Sprintf("%s.", m)) {
			continue
		}
		ofMinor = append(ofMinor, v)
		if release.MatchString(v) && (latest == "" || semver.Compare(v, latest) > 0) {
			latest = v
		}
	}
	if latest == "" {
		return "", fmt.Errorf("%s has no release of kubelet %s yet (versions of that minor: %q); give one with --version", kubernetesModule, m, ofMinor)
	}
	return latest, nil
}
