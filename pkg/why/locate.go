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

// Locator finds what targets name among what the agent of one node
// holds. It indexes the agent's pods and manifests once, so that why --all
// locates each of a node's pods without scanning all of them.
type Locator struct {
	node string
	// byName holds the configured pods of each name, in the agent's order.
	byName map[string][]*v1alpha1.PodInfo
	// byOrigin holds the first configured pod of each manifest path.
	byOrigin map[string]*v1alpha1.PodInfo
	// shadowed holds the pod, as NAMESPACE/NAME, a shadowed manifest would
	// define, by path.
	shadowed map[string]string
	// rejected holds the first rejected manifest of each file name
	// without its extension.
	rejected map[string]string
	// urlFailing says a static pod URL fails now or has not been read.
	urlFailing bool
}

// NewLocator indexes the sources and pods the agent of node holds.
func NewLocator(node string, sources *v1alpha1.SourceList, pods []v1alpha1.PodInfo) *Locator {
	l := &Locator{node: node, byName: map[string][]*v1alpha1.PodInfo{}, byOrigin: map[string]*v1alpha1.PodInfo{},
		shadowed: map[string]string{}, rejected: map[string]string{}}
	for i := range pods {
		p := &pods[i]
		if p.Source == "" {
			continue
		}
		l.byName[p.Name] = append(l.byName[p.Name], p)
		if _, ok := l.byOrigin[p.Origin]; !ok && p.Source == v1alpha1.SourceFile {
			l.byOrigin[p.Origin] = p
		}
	}
	if src := findSource(sources, v1alpha1.SourceFile); src != nil {
		for _, sh := range src.ShadowedFiles {
			l.shadowed[sh.Path] = sh.Pod
		}
		for _, r := range src.RejectedFiles {
			base := path.Base(r.Path)
			if stem := strings.TrimSuffix(base, path.Ext(base)); l.rejected[stem] == "" {
				l.rejected[stem] = r.Path
			}
		}
	}
	if src := findSource(sources, v1alpha1.SourceHTTP); src != nil {
		l.urlFailing = failingNow(src) || !src.Seen
	}
	return l
}

// Locate finds what t names. A path is a manifest (whether it decoded or
// not); a name is looked for among the configured pods, also with the
// node's name appended as the kubelet names static pods, then among the
// rejected manifests by file name; a name found nowhere is taken as a pod
// of the static pod URL when that fails now, else of the API server (in
// namespace default when none was given). A name several namespaces have
// is an error.
func (l *Locator) Locate(t Target) (Subject, error) {
	if t.Path != "" {
		return l.locatePath(t.Path), nil
	}
	var found []*v1alpha1.PodInfo
	for _, name := range []string{t.Name, t.Name + "-" + strings.ToLower(l.node)} {
		for _, p := range l.byName[name] {
			if t.Namespace == "" || p.Namespace == t.Namespace {
				found = append(found, p)
			}
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
		return Subject{}, fmt.Errorf("%q names several pods on node %s: %s; say NAMESPACE/POD", t.Raw, l.node, strings.Join(names, ", "))
	}
	if chosen != nil {
		return subjectOf(chosen), nil
	}
	if p, ok := l.rejected[t.Name]; ok {
		return Subject{Source: v1alpha1.SourceFile, Path: p}, nil
	}
	ns := t.Namespace
	if ns == "" {
		ns = "default"
	}
	// A static pod URL that fails now may be why the pod is nowhere.
	if l.urlFailing {
		return Subject{Source: v1alpha1.SourceHTTP, Namespace: ns, Name: t.Name}, nil
	}
	return Subject{Source: v1alpha1.SourceAPI, Namespace: ns, Name: t.Name}, nil
}

// locatePath finds the manifest at p: the pod it defines when that is in
// the merged configuration, otherwise only its path (and, for a shadowed
// file, the pod it would define).
func (l *Locator) locatePath(p string) Subject {
	if pod, ok := l.byOrigin[p]; ok {
		return subjectOf(pod)
	}
	s := Subject{Source: v1alpha1.SourceFile, Path: p}
	if pod, ok := l.shadowed[p]; ok {
		s.Namespace, s.Name, _ = strings.Cut(pod, "/")
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
