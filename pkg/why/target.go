package why

import (
	"fmt"
	"path"
	"strings"
)

// Target is what a report is asked about: a manifest's path on the node,
// or a pod by name.
type Target struct {
	// Raw is the target as it was given.
	Raw string
	// Path is a manifest's path on the node (a target starting with /).
	Path string
	// Namespace and Name name a pod; Namespace is empty when the target
	// gave none and no -n was given.
	Namespace string
	Name      string
}

// ParseTarget reads TARGET: an absolute path is a manifest on the node,
// NAMESPACE/POD a pod, POD a pod of namespace (any namespace when empty).
func ParseTarget(raw, namespace string) (Target, error) {
	t := Target{Raw: raw}
	switch {
	case raw == "":
		return t, fmt.Errorf("TARGET is empty: want POD, NAMESPACE/POD or the manifest's absolute path on the node")
	case strings.HasPrefix(raw, "/"):
		t.Path = path.Clean(raw)
		return t, nil
	}
	parts := strings.Split(raw, "/")
	switch {
	case len(parts) == 1:
		t.Namespace, t.Name = namespace, raw
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		t.Namespace, t.Name = parts[0], parts[1]
	default:
		return t, fmt.Errorf("TARGET %q: want POD, NAMESPACE/POD or the manifest's absolute path on the node (starting with /)", raw)
	}
	return t, nil
}
