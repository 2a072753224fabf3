// Package krew writes, checks and installs podsrc's krew plugin manifest the
// way krew does, since krew itself cannot be used here: it validates a
// manifest by krew's rules and installs a plugin from local archives as krew
// would on one platform.
package krew

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// APIVersion and Kind of a krew plugin manifest.
const (
	APIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	Kind       = "Plugin"
)

// Plugin is a krew plugin manifest.
type Plugin struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              PluginSpec `json:"spec"`
}

// PluginSpec describes a plugin and where to get it.
type PluginSpec struct {
	Version          string     `json:"version"`
	Homepage         string     `json:"homepage,omitempty"`
	ShortDescription string     `json:"shortDescription"`
	Description      string     `json:"description,omitempty"`
	Caveats          string     `json:"caveats,omitempty"`
	Platforms        []Platform `json:"platforms"`
}

// Platform is the archive of one os/arch.
type Platform struct {
	Selector *metav1.LabelSelector `json:"selector"`
	URI      string                `json:"uri"`
	Sha256   string                `json:"sha256"`
	Bin      string                `json:"bin"`
	Files    []FileOperation       `json:"files,omitempty"`
}

// FileOperation copies files out of the extracted archive.
type FileOperation struct {
	From string `json:"from"`
	To   string `json:"to"`
}

var (
	safeName  = regexp.MustCompile(`^[\w-]+$`)
	sha256Hex = regexp.MustCompile(`^[a-f0-9]{64}$`)
	semver    = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
)

// Validate checks a manifest named name (its file name without .yaml) by
// krew's rules, and that no two platforms match the same os/arch of the
// given ones.
func Validate(name string, p Plugin, platforms [][2]string) error {
	switch {
	case p.APIVersion != APIVersion:
		return fmt.Errorf("apiVersion %q, want %q", p.APIVersion, APIVersion)
	case p.Kind != Kind:
		return fmt.Errorf("kind %q, want %q", p.Kind, Kind)
	case !safeName.MatchString(name):
		return fmt.Errorf("plugin name %q must match %s", name, safeName)
	case p.Name != name:
		return fmt.Errorf("metadata.name %q must match the file name %q", p.Name, name)
	case p.Spec.ShortDescription == "":
		return errors.New("spec.shortDescription is required")
	case strings.ContainsAny(p.Spec.ShortDescription, "\r\n"):
		return errors.New("spec.shortDescription must be one line")
	case len(p.Spec.Platforms) == 0:
		return errors.New("spec.platforms is empty")
	case !semver.MatchString(p.Spec.Version):
		return fmt.Errorf("spec.version %q is not a semantic version with a v prefix", p.Spec.Version)
	}
	for i, pl := range p.Spec.Platforms {
		if err := validatePlatform(pl); err != nil {
			return fmt.Errorf("platform %d: %w", i, err)
		}
	}
	for _, oa := range platforms {
		if n := len(Matching(p, oa[0], oa[1])); n > 1 {
			return fmt.Errorf("%d platforms match %s/%s; selectors must not overlap", n, oa[0], oa[1])
		}
	}
	return nil
}

func validatePlatform(p Platform) error {
	switch {
	case p.URI == "":
		return errors.New("uri is required")
	case !sha256Hex.MatchString(p.Sha256):
		return fmt.Errorf("sha256 %q must be 64 lowercase hex digits", p.Sha256)
	case p.Bin == "":
		return errors.New("bin is required")
	case p.Files != nil && len(p.Files) == 0:
		return errors.New("files must be left out or not empty")
	case p.Selector == nil || (len(p.Selector.MatchLabels) == 0 && len(p.Selector.MatchExpressions) == 0):
		return errors.New("selector is required")
	}
	for _, f := range p.Files {
		if f.From == "" || f.To == "" {
			return errors.New("files need from and to")
		}
	}
	for k := range p.Selector.MatchLabels {
		if k != "os" && k != "arch" {
			return fmt.Errorf("selector key %q: only os and arch are supported", k)
		}
	}
	for _, e := range p.Selector.MatchExpressions {
		if e.Key != "os" && e.Key != "arch" {
			return fmt.Errorf("selector key %q: only os and arch are supported", e.Key)
		}
	}
	return nil
}

// Matching returns the platforms whose selector matches os and arch, as krew
// matches them to pick what to install.
func Matching(p Plugin, os, arch string) []Platform {
	var out []Platform
	set := labels.Set{"os": os, "arch": arch}
	for _, pl := range p.Spec.Platforms {
		sel, err := metav1.LabelSelectorAsSelector(pl.Selector)
		if err == nil && sel.Matches(set) {
			out = append(out, pl)
		}
	}
	return out
}
