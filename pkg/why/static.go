package why

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/podsrc/podsrc/internal/shell"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// file is the stage of a manifest's presence in the static pod path.
func (a *analysis) file() result {
	name, p, node := v1alpha1.StageFile, a.f.Subject.Path, a.f.Node
	src := findSource(a.f.Sources, v1alpha1.SourceFile)
	if src == nil {
		return failing(name, "the kubelet has no static pod path (no file source)",
			"set staticPodPath in the kubelet's configuration on node "+shell.Quote(node))
	}
	dir := path.Clean(src.Target)
	if p == "" {
		if a.f.Subject.Info != nil {
			return ok(name, "the pod comes from a manifest in "+dir, "the agent does not say which file: an agent of this release does")
		}
		return unknown(name, "no manifest path is known for the pod", "kubectl podsrc sources -o wide "+shell.Operands(node))
	}
	if p != dir && path.Dir(p) != dir {
		if strings.HasPrefix(p, dir+"/") {
			return failing(name, fmt.Sprintf("%s is in a subdirectory of the static pod path %s: the kubelet does not read subdirectories", p, dir),
				"move the manifest into "+shell.Quote(dir))
		}
		return failing(name, fmt.Sprintf("%s is not in the static pod path %s", p, dir), "move the manifest into "+shell.Quote(dir))
	}
	if strings.HasPrefix(path.Base(p), ".") {
		return failing(name, fmt.Sprintf("the kubelet ignores %s: its name starts with a dot", p), "rename it so that it does not start with a dot")
	}
	if r := rejectedFile(src, p); r != nil && !isDecodeError(r.Error) {
		return failing(name, r.Error, "ls -l "+shell.Operands(p)+" on node "+shell.Quote(node)+": a manifest must be a regular file (a symlink to one is fine)")
	}
	if rejectedFile(src, p) != nil || shadowedFile(src, p) != nil || a.f.Subject.Info != nil {
		return ok(name, p+" is present and a regular file")
	}
	return failing(name, fmt.Sprintf("the kubelet's file source has no file %s: it is absent, a directory or a dangling symlink", p),
		"ls -l "+shell.Operands(p)+" on node "+shell.Quote(node))
}

// isDecodeError tells a manifest's read or decode error from a file that
// is not a regular file or cannot be looked at.
func isDecodeError(msg string) bool {
	return !strings.Contains(msg, "not a regular file") && !strings.HasPrefix(msg, "reading manifest ")
}

// yamlLine finds the line a YAML or JSON decoder names in its error.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// decode is the stage of a manifest's decoding and validation.
func (a *analysis) decode() result {
	name := v1alpha1.StageDecode
	if r, stop := a.blocked(name, v1alpha1.StageFile); stop {
		return r
	}
	src := findSource(a.f.Sources, v1alpha1.SourceFile)
	p := a.f.Subject.Path
	r := rejectedFile(src, p)
	if r == nil {
		// The kubelet keeps a pod it warns about, and only logs the
		// warning: evidence, not a failure.
		var warnings []string
		if w := warnedFile(src, p); w != nil {
			warnings = w.Warnings
		}
		if a.f.Subject.Name == "" {
			return ok(name, "decoded and valid", warnings...)
		}
		return ok(name, "decoded and valid: pod "+a.podRef(), warnings...)
	}
	evidence := []string{"rejected since " + stamp(r.Since.Time)}
	if m := yamlLine.FindStringSubmatch(r.Error); m != nil {
		evidence = append(evidence, fmt.Sprintf("%s line %s", p, m[1]))
	}
	fix := "fix the manifest (kubectl podsrc sources -o wide " + shell.Operands(a.f.Node) + " lists every rejected file)"
	if strings.Contains(r.Error, "static pods may not reference") {
		fix = "a static pod cannot use API objects (PreventStaticPodAPIReferences): remove the reference from " + p
	}
	return failing(name, r.Error, fix, evidence...)
}

// shadow is the stage of a manifest whose pod another file may define too.
func (a *analysis) shadow() result {
	name := v1alpha1.StageShadow
	if r, stop := a.blocked(name, v1alpha1.StageFile, v1alpha1.StageDecode); stop {
		return r
	}
	src := findSource(a.f.Sources, v1alpha1.SourceFile)
	p := a.f.Subject.Path
	why := "the kubelet reads the static pod path in name order and keeps the pod of the last file that defines it"
	if sh := shadowedFile(src, p); sh != nil {
		return failing(name, fmt.Sprintf("shadowed by %s: both define pod %s, the kubelet runs the pod of %s", sh.By, sh.Pod, sh.By),
			"move "+shell.Quote(sh.By)+" out of "+shell.Quote(path.Dir(sh.By))+" (the kubelet reads every file there, backups too)", why)
	}
	var others []string
	if src != nil {
		for _, sh := range src.ShadowedFiles {
			if sh.By == p {
				others = append(others, sh.Path)
			}
		}
	}
	if len(others) > 0 {
		return ok(name, "the kubelet runs the pod of this file", fmt.Sprintf("it hides %s, which also defines pod %s", strings.Join(others, ", "), a.podRef()), why)
	}
	return ok(name, "no other manifest defines pod "+a.podRef())
}

// rejectedFile returns the rejected manifest at p, nil when p is not one.
func rejectedFile(src *v1alpha1.Source, p string) *v1alpha1.RejectedFile {
	if src == nil {
		return nil
	}
	return first(src.RejectedFiles, func(r *v1alpha1.RejectedFile) bool { return r.Path == p })
}

// warnedFile returns the manifest at p the decoder warns about, nil when p
// is not one.
func warnedFile(src *v1alpha1.Source, p string) *v1alpha1.WarnedFile {
	if src == nil {
		return nil
	}
	return first(src.WarnedFiles, func(w *v1alpha1.WarnedFile) bool { return w.Path == p })
}

// shadowedFile returns the shadowed manifest at p, nil when p is not one.
func shadowedFile(src *v1alpha1.Source, p string) *v1alpha1.ShadowedFile {
	if src == nil {
		return nil
	}
	return first(src.ShadowedFiles, func(sh *v1alpha1.ShadowedFile) bool { return sh.Path == p })
}

// first returns the first item that matches, nil when none does.
func first[T any](items []T, match func(*T) bool) *T {
	for i := range items {
		if match(&items[i]) {
			return &items[i]
		}
	}
	return nil
}
