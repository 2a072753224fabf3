package client

import (
	"regexp"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// UnknownVersion stands for a version an agent gave that is no version.
const UnknownVersion = "unknown"

// maxVersionLen bounds a version shown: semver allows any length.
const maxVersionLen = 64

var (
	// apiVersionForm is the form of a Kubernetes API version (v1,
	// v1alpha1, v2beta3).
	apiVersionForm = regexp.MustCompile(`^v[1-9][0-9]*(?:(?:alpha|beta)[1-9][0-9]*)?$`)
	// goVersionForm is the form of a Go release (go1.26.8, go1.27rc1).
	goVersionForm = regexp.MustCompile(`^go[1-9][0-9]*(?:\.[0-9]+){0,2}(?:(?:rc|beta)[1-9][0-9]*)?$`)
	// commitForm is the version of a build from a tree with no tag, as
	// git describe --always --dirty gives it (the Makefile's VERSION).
	commitForm = regexp.MustCompile(`^[0-9a-f]{7,40}(?:-dirty)?$`)
)

// releaseVersion returns v, a release an agent gave (its own, its
// kubelet's), when it parses as semantic version (v1.36.3,
// v0.1.0-rc.1+abc) or is the commit of a build from an untagged tree
// (2ee3766, 2ee3766-dirty), else UnknownVersion: an agent's text goes into
// advice ("install kubectl-podsrc <version>") only when it is a version.
func releaseVersion(v string) string {
	if len(v) > maxVersionLen || strings.TrimSpace(v) != v {
		return UnknownVersion
	}
	if commitForm.MatchString(v) {
		return v
	}
	if _, err := utilversion.ParseSemantic(v); err != nil {
		return UnknownVersion
	}
	return v
}

// apiVersion returns v, an API version of podsrc.io an agent gave, when it
// has the form of one, else UnknownVersion.
func apiVersion(v string) string {
	if !apiVersionForm.MatchString(v) {
		return UnknownVersion
	}
	return v
}

// checkedVersion returns the agent's /version answer with each version it
// gives kept only when it is one (UnknownVersion otherwise); an empty
// version stays empty (not given).
func checkedVersion(v *v1alpha1.Version) *v1alpha1.Version {
	keep := func(s string, check func(string) string) string {
		if s == "" {
			return ""
		}
		return check(s)
	}
	v.AgentVersion = keep(v.AgentVersion, releaseVersion)
	v.ReproducedKubeletVersion = keep(v.ReproducedKubeletVersion, releaseVersion)
	v.NodeKubeletVersion = keep(v.NodeKubeletVersion, releaseVersion)
	v.ServedVersion = keep(v.ServedVersion, apiVersion)
	v.GoVersion = keep(v.GoVersion, func(s string) string {
		if !goVersionForm.MatchString(s) {
			return UnknownVersion
		}
		return s
	})
	return v
}
