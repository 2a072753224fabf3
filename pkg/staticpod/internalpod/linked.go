package internalpod

import "runtime/debug"

// LinkedKubernetesVersion returns the version of k8s.io/kubernetes linked
// into the running binary, or fallback when the binary carries no module
// information (a decoder module passes the version its go.mod pins).
func LinkedKubernetesVersion(fallback string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fallback
	}
	for _, dep := range info.Deps {
		if dep.Path != "k8s.io/kubernetes" {
			continue
		}
		if dep.Replace != nil && dep.Replace.Version != "" {
			return dep.Replace.Version
		}
		if dep.Version != "" && dep.Version != "(devel)" {
			return dep.Version
		}
	}
	return fallback
}
