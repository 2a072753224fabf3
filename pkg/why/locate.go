package why

import (
	"fmt"
	"path"
	"strings"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Subject is the pod a target names on a node, as far as the agent knows
// it: which pipeline it goes through and its configured pod, if any.
type Subject struct {
	// Source is the pipeline to walk: file, http or api.
	Source string
	// Namespace and Name are the pod's, when known.
	Namespace string
	Name      string
	// Path is the manifest's path on the node (file).
	Path string
	// Info is the pod in the kubelet's merged configuration; nil when it
	// is not there.
	Info *v1alpha1.PodInfo
}

// Locate finds what t names among what the agent of node holds. A path is
// a manifest (whether it decoded or not); a name is looked for among the
// configured pods, also with the node's name appended as the kubelet names
// static pods, then among the rejected manifests by file name; a name
// found nowhere is taken as a pod of the static pod URL when that fails
// now, else of the API server (in namespace default when none was given).
// A name several namespaces have is an error.
func Locate(t Target, node string, sources *v1alpha1.SourceList, pods []v1alpha1.PodInfo) (Subject, error) {
	if t.Path != "" {
		return locatePath(t.Path, sources, pods), nil
	}
	var found []*v1alpha1.PodInfo
	for _, name := range []string{t.Name, t.Name + "-" + strings.ToLower(node)} {
		for i := range pods {
			p := &pods[i]
			if p.Source == "" || p.Name != name || (t.Namespace != "" && p.Namespace != t.Namespace) {
				continue
			}
			found = append(found, p)
		}
		if len(found) > 0 {
			break
		}
	}
	// A static pod and its mirror share namespace and name: the mirror is
	// a stage of the static pod's pipeline.
	var chosen *v1alpha1.PodInfo
	var names []string
	for _, p := range found {
		key := p.Namespace + "/" + p.Name
		switch {
		case chosen == nil:
			chosen = p
			names = append(names, key)
		case chosen.Namespace+"/"+chosen.Name != key:
			names = append(names, key)
		case p.Static && !chosen.Static:
			chosen = p
		}
	}
	if len(names) > 1 {
		return Subject{}, fmt.Errorf("%q names several pods on node %s: %s; say NAMESPACE/POD", t.Raw, node, strings.Join(names, ", "))
	}
	if chosen != nil {
		return subjectOf(chosen), nil
	}
	if src := findSource(sources, v1alpha1.SourceFile); src != nil {
		for _, r := range src.RejectedFiles {
			base := path.Base(r.Path)
			if strings.TrimSuffix(base, path.Ext(base)) == t.Name {
				return Subject{Source: v1alpha1.SourceFile, Path: r.Path}, nil
			}
		}
	}
	ns := t.Namespace
	if ns == "" {
		ns = "default"
	}
	// A static pod URL that fails now may be why the pod is nowhere.
	if src := findSource(sources, v1alpha1.SourceHTTP); src != nil && (failingNow(src) || !src.Seen) {
		return Subject{Source: v1alpha1.SourceHTTP, Namespace: ns, Name: t.Name}, nil
	}
	return Subject{Source: v1alpha1.SourceAPI, Namespace: ns, Name: t.Name}, nil
}

// locatePath finds the manifest at p: the pod it defines when that is in
// the merged configuration, otherwise only its path (and, for a shadowed
// file, the pod it would define).
func locatePath(p string, sources *v1alpha1.SourceList, pods []v1alpha1.PodInfo) Subject {
	for i := range pods {
		if pods[i].Source == v1alpha1.SourceFile && pods[i].Origin == p {
			return subjectOf(&pods[i])
		}
	}
	s := Subject{Source: v1alpha1.SourceFile, Path: p}
	if src := findSource(sources, v1alpha1.SourceFile); src != nil {
		for _, sh := range src.ShadowedFiles {
			if sh.Path == p {
				s.Namespace, s.Name, _ = strings.Cut(sh.Pod, "/")
			}
		}
	}
	return s
}

// subjectOf is the subject of a configured pod.
func subjectOf(p *v1alpha1.PodInfo) Subject {
	s := Subject{Source: p.Source, Namespace: p.Namespace, Name: p.Name, Info: p}
	if p.Source == v1alpha1.SourceFile {
		s.Path = p.Origin
	}
	return s
}

// findSource returns the source of that name, nil when the kubelet has
// none.
func findSource(l *v1alpha1.SourceList, name string) *v1alpha1.Source {
	if l == nil {
		return nil
	}
	return first(l.Items, func(s *v1alpha1.Source) bool { return s.Name == name })
}
