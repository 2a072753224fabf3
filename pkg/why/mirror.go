package why

import (
	"fmt"
	"strings"
	"time"

	"github.com/podsrc/podsrc/internal/shell"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// configMirrorAnnotation is the annotation by which a mirror pod names the
// hash of its static pod.
const configMirrorAnnotation = "kubernetes.io/config.mirror"

// mirrorPod is what is known of the pod that has the static pod's
// namespace and name in the API server.
type mirrorPod struct {
	uid          types.UID
	isMirror     bool
	configMirror string
	deleting     bool
	// from says where the facts come from.
	from string
}

// mirror is the stage of a static pod's mirror pod.
func (a *analysis) mirror() result {
	name, node, ref := v1alpha1.StageMirror, a.f.Node, a.podRef()
	if r, stop := a.blocked(name, v1alpha1.StageConfig); stop {
		return r
	}
	if r, stop := a.rejected(name); stop {
		return r
	}
	info := a.f.Subject.Info
	if apierrors.IsNotFound(a.f.NodeObject.Err) {
		return failing(name, "node "+node+" is not registered in the API server: the kubelet makes no mirror pods until it is",
			"kubectl get node "+shell.Operands(node)+"; then the kubelet's log on the node (journalctl -u kubelet | grep -i regist)")
	}
	evidence := a.recreations()
	loop := len(evidence) > 0
	m, why := a.mirrorPod()
	if m == nil {
		evidence = append(evidence, a.nodeWarnings()...)
	}
	ns := a.f.Subject.Namespace
	switch {
	case m == nil && apierrors.IsNotFound(a.f.Namespace.Err):
		return failing(name, "namespace "+ns+" does not exist: the API server refuses the mirror pod",
			"kubectl create namespace "+shell.Operands(ns)+" (or put the static pod in a namespace that exists)", evidence...)
	case m == nil && why != "":
		return unknown(name, "cannot get pod "+ref+" from the API server: "+why,
			apiPodFix(a.f.APIPod, ns), evidence...)
	case m == nil:
		if refs := a.apiReferences(); len(refs) > 0 {
			// The ServiceAccount admission plugin refuses secrets and
			// service accounts for every user, NodeRestriction the rest
			// for a node.
			return failing(name, "no mirror pod: the API server's admission (ServiceAccount, NodeRestriction) refuses mirror pods that reference "+strings.Join(refs, ", "),
				"a static pod cannot use API objects: remove the references to "+strings.Join(refs, ", ")+" from "+orText(info.Origin, "its manifest"), evidence...)
		}
		if loop {
			return failing(name, "no mirror pod now, and the kubelet keeps recreating it", "kubectl podsrc watch --kind config --source api "+shell.Operands(node), evidence...)
		}
		if age, fresh := a.staticAge(); fresh {
			return unknown(name, fmt.Sprintf("no mirror pod %s yet: the kubelet first saw the static pod %s ago", ref, age),
				a.pendingFix(), evidence...)
		}
		return failing(name, "no mirror pod "+ref+" in the API server",
			"the kubelet's log on node "+shell.Quote(node)+": journalctl -u kubelet | grep -i 'mirror pod'", evidence...)
	case !m.isMirror:
		return failing(name, fmt.Sprintf("pod %s in the API server (uid %s) is not a mirror pod: the kubelet cannot create the mirror", ref, m.uid),
			"kubectl delete pod -n "+shell.Quote(a.f.Subject.Namespace)+" "+shell.Operands(a.f.Subject.Name)+" (the kubelet then creates the mirror)", evidence...)
	case m.configMirror != info.ConfigHash:
		evidence = append([]string{"config.mirror " + m.configMirror, "config.hash " + info.ConfigHash, "from " + m.from}, evidence...)
		if age, fresh := a.staticAge(); fresh && !loop {
			return unknown(name, fmt.Sprintf("the mirror pod mirrors another version of the static pod, which the kubelet first saw %s ago: it replaces the mirror at its next sync", age),
				a.pendingFix(), evidence...)
		}
		return failing(name, "the mirror pod mirrors another version of the static pod: the kubelet deletes and recreates it",
			"kubectl podsrc watch --kind config --source api "+shell.Operands(node)+" (a DELETE/REMOVE/ADD run is the loop)", evidence...)
	case m.deleting:
		return failing(name, "the mirror pod is being deleted", "kubectl get pod -n "+shell.Quote(a.f.Subject.Namespace)+" -o yaml "+shell.Operands(a.f.Subject.Name)+" (finalizers)", evidence...)
	}
	return ok(name, fmt.Sprintf("mirror pod uid %s mirrors config.hash %s", m.uid, info.ConfigHash), append([]string{"from " + m.from}, evidence...)...)
}

// mirrorGrace is how long after the kubelet first saw a static pod its
// missing or outdated mirror pod is pending rather than failing. The kubelet
// makes the mirror pod when it syncs the pod: at once when the pod is added,
// but only once an older pod of the same name has stopped (its grace
// period, 30s by default), and again at every later sync: on the pod's
// runtime events, and every syncFrequency (1m by default, jittered) else.
const mirrorGrace = time.Minute

// staticAge returns how long ago the kubelet first saw the static pod (its
// kubernetes.io/config.seen, by the node's clock), rounded to the second,
// and whether that is within mirrorGrace; false when it is not known.
func (a *analysis) staticAge() (time.Duration, bool) {
	seen, err := time.Parse(time.RFC3339Nano, a.f.Subject.Info.FirstSeen)
	if err != nil {
		return 0, false
	}
	age := max(a.f.Now.Sub(seen), 0).Round(time.Second)
	return age, age < mirrorGrace
}

// pendingFix is the suggestion for a mirror pod the kubelet has not made
// yet.
func (a *analysis) pendingFix() string {
	return "wait for the kubelet's next sync of the pod (within a minute): kubectl get pod -n " +
		shell.Quote(a.f.Subject.Namespace) + " -w " + shell.Operands(a.f.Subject.Name) + ", then ask again"
}

// mirrorPod returns the pod of the static pod's namespace and name, from
// the API server or else from the agent's API source; nil with the reason
// when it cannot be known, nil with no reason when there is none.
func (a *analysis) mirrorPod() (*mirrorPod, string) {
	l := a.f.APIPod
	if l.Known() && l.Value != nil {
		p := l.Value
		cm, isMirror := p.Annotations[configMirrorAnnotation]
		return &mirrorPod{uid: p.UID, isMirror: isMirror, configMirror: cm, deleting: p.DeletionTimestamp != nil, from: "the API server"}, ""
	}
	for _, p := range a.f.Pods {
		if p.Source == v1alpha1.SourceAPI && p.Namespace == a.f.Subject.Namespace && p.Name == a.f.Subject.Name {
			return &mirrorPod{uid: p.UID, isMirror: p.Mirror, configMirror: p.ConfigMirror, from: "the agent's API source"}, ""
		}
	}
	if apierrors.IsNotFound(l.Err) {
		return nil, ""
	}
	if src := findSource(a.f.Sources, v1alpha1.SourceAPI); src != nil && src.Seen && src.LastError == "" {
		// The API source lists every pod bound to the node, mirrors too.
		return nil, ""
	}
	return nil, l.Why()
}

// recreations describes the API source's ADDs of the pod's namespace and
// name, when there were several: the kubelet recreating its mirror.
func (a *analysis) recreations() []string {
	var adds, removes int
	var first string
	for _, ev := range a.configOps() {
		if ev.Source != v1alpha1.SourceAPI {
			continue
		}
		switch ev.Op {
		case v1alpha1.OpAdd:
			adds++
			if first == "" {
				first = stamp(ev.Time.Time)
			}
		case v1alpha1.OpRemove, v1alpha1.OpDelete:
			removes++
		}
	}
	if adds < 2 || removes == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the API source added the mirror pod %d times and removed it %d times since %s", adds, removes, first)}
}

// apiReferences returns the kinds of API objects the static pod refers to.
func (a *analysis) apiReferences() []string {
	if d := a.f.Detail.Value; d != nil && len(d.APIReferences) > 0 {
		return d.APIReferences
	}
	return a.f.Subject.Info.APIReferences
}

// orText returns s, or alt when s is empty.
func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
