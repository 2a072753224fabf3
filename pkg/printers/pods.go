package printers

import (
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Pods prints the pods of nodes as their kubelet's sources and PLEG see
// them.
type Pods struct {
	Lists []v1alpha1.PodList
	// ManyNodes says the command covers several nodes: NODE is then a
	// default column, else only -o wide shows it.
	ManyNodes bool
}

// Items implements Printable: every node's PodInfos, with their kind and
// node.
func (p Pods) Items() []Item {
	var out []Item
	for _, l := range p.Lists {
		for _, pod := range l.Items {
			pod.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPod)
			pod.NodeName = l.NodeName
			out = append(out, Item{Wire: pod, Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID), Labels: pod.Labels, Node: l.NodeName})
		}
	}
	return out
}

// Tables implements Printable: the columns of PodColumns. Only a row whose
// STATUS says why it does not run is colored (red).
func (p Pods) Tables(items []Item, now time.Time) []*Table {
	cols := PodColumns(p.ManyNodes)
	t := cols.Table()
	for i := range items {
		r := podRow{Pod: items[i].Wire.(v1alpha1.PodInfo), Now: now}
		r.status = statusOf(r.Pod)
		var c Color
		if r.status.Failing {
			c = Red
		}
		t.Rows = append(t.Rows, Row{Cells: cols.Cells(r), Color: c, Item: &items[i]})
	}
	return []*Table{t}
}

// podRow is what a cell of the pods table reads: the pod, its status in
// kubectl's words and the time ages are computed against.
type podRow struct {
	Pod    v1alpha1.PodInfo
	Now    time.Time
	status podStatus
}

// PodColumns are the pods table's columns, as kubectl get pods shows them
// first (READY is ready of configured containers, STATUS in kubectl's
// words, AGE since the agent first saw the pod), then where the pod comes
// from and, when manyNodes, its node; the rest only with -o wide.
func PodColumns(manyNodes bool) Columns[podRow] {
	return Columns[podRow]{
		{Header: "Namespace", Path: ".metadata.namespace", Help: "The pod's namespace.", Cell: func(r podRow) any { return r.Pod.Namespace }},
		{Header: "Name", Path: ".metadata.name", Help: "The pod's name (a static pod's carries the node's name, as the kubelet names it).", Cell: func(r podRow) any { return r.Pod.Name }},
		{Header: "Ready", Help: "Running containers of those the pod configures, as kubectl get pods counts them; mirror for a mirror pod.", Cell: podReady},
		{Header: "Status", Help: "The pod's status in kubectl's words, from what the runtime runs and the kubelet's admission.", Cell: func(r podRow) any { return r.status.Status }},
		{Header: "Restarts", Help: "The restarts of the pod's containers, summed.", Cell: podRestarts},
		{Header: "Age", Path: ".firstSeen", Help: "Time since the agent first saw the pod.", Cell: func(r podRow) any { return seenAge(r.Now, r.Pod.FirstSeen) }},
		{Header: "Source", Path: ".source", Help: "The source that configures the pod (file, http, api); <runtime> for a pod only the runtime has.", Cell: podSource},
		{Header: "Node", Wide: !manyNodes, Path: ".nodeName", Help: "The pod's node; shown without -o wide when the command covers several nodes.", Cell: func(r podRow) any { return r.Pod.NodeName }},
		{Header: "Last Exit", Wide: true, Help: "The exit code of the container that exited last, with its name when the pod has several.", Cell: func(r podRow) any { return r.status.LastExit }},
		{Header: "UID", Wide: true, Path: ".metadata.uid", Help: "The pod's UID, as podsrc decodes it.", Cell: func(r podRow) any { return string(r.Pod.UID) }},
		{Header: "Static/Mirror", Wide: true, Help: "static for a static pod, mirror for a mirror pod, - for neither.", Cell: podKind},
		{Header: "Admission", Wide: true, Help: "The kubelet's admission verdict: admitted, rejected with its reason, skipped or unknown.", Cell: func(r podRow) any { return admissionCell(r.Pod.Admission) }},
		{Header: "Sandbox", Wide: true, Path: ".runtime.sandboxState", Help: "The state of the pod's sandbox in the runtime.", Cell: podSandbox},
		{Header: "IPs", Wide: true, Path: ".runtime.ips", Help: "The IPs of the pod's sandbox.", Cell: podIPs},
		{Header: "Config Hash", Wide: true, Help: "A static pod's kubernetes.io/config.hash, or the hash a mirror pod mirrors.", Cell: podHash},
		{Header: "Kubelet UID", Wide: true, Path: ".kubeletUID", Help: "The UID the kubelet runs a static pod under, compared with podsrc's.", Cell: podKubeletUID},
		{Header: "Images", Wide: true, Help: "The images of the containers the runtime has.", Cell: podImages},
		{Header: "Error", Wide: true, Help: "The first thing wrong with the pod: the runtime's error, a kubelet UID that differs, an admission rejection or unknown verdict.", Cell: podError},
	}
}

// podReady is READY: the running containers of the configured ones, or
// statusMirror for a mirror pod, whose containers run under its static
// pod.
func podReady(r podRow) any {
	if r.Pod.Mirror {
		return statusMirror
	}
	return itoa(r.status.Ready) + "/" + itoa(r.status.Configured)
}

// podRestarts is the sum of the containers' restarts.
func podRestarts(r podRow) any {
	n := 0
	if rt := r.Pod.Runtime; rt != nil {
		for _, c := range rt.Containers {
			n += c.RestartCount
		}
	}
	return itoa(n)
}

// podSource is the source of the pod, <runtime> for a pod only the runtime
// has.
func podSource(r podRow) any {
	if r.Pod.Source == "" {
		return "<runtime>"
	}
	return r.Pod.Source
}

// podKind says whether the pod is static, a mirror pod, or neither.
func podKind(r podRow) any {
	switch {
	case r.Pod.Static:
		return "static"
	case r.Pod.Mirror:
		return "mirror"
	}
	return "-"
}

// podSandbox is the state of the pod's sandbox.
func podSandbox(r podRow) any {
	if rt := r.Pod.Runtime; rt != nil {
		return orNone(rt.SandboxState)
	}
	return none
}

// podIPs are the sandbox's IPs.
func podIPs(r podRow) any {
	if rt := r.Pod.Runtime; rt != nil {
		return joinOrNone(rt.IPs, ",")
	}
	return none
}

// podImages are the images of the containers the runtime has.
func podImages(r podRow) any {
	var imgs []string
	if rt := r.Pod.Runtime; rt != nil {
		for _, c := range rt.Containers {
			if c.Image != "" {
				imgs = append(imgs, c.Image)
			}
		}
	}
	return joinOrNone(imgs, ",")
}

// podHash is the pod's config hash, or its mirror's.
func podHash(r podRow) any {
	if r.Pod.ConfigHash != "" {
		return r.Pod.ConfigHash
	}
	return orNone(r.Pod.ConfigMirror)
}

// podKubeletUID is the UID the kubelet runs the pod under, compared with
// podsrc's.
func podKubeletUID(r podRow) any {
	switch p := r.Pod; {
	case p.KubeletUID == "":
		return none
	case p.KubeletUID == string(p.UID):
		return "same (" + p.KubeletUIDFrom + ")"
	default:
		return p.KubeletUID + " (" + p.KubeletUIDFrom + ", differs)"
	}
}

// podError is the first thing wrong with the pod: the runtime's error, a
// kubelet UID that differs from podsrc's (podsrc decodes the static pod
// otherwise than this kubelet), the admission's rejection, or why podsrc
// cannot tell the admission's verdict.
func podError(r podRow) any {
	p := r.Pod
	switch a := p.Admission; {
	case p.Runtime != nil && p.Runtime.Error != "":
		return p.Runtime.Error
	case p.KubeletUID != "" && p.KubeletUID != string(p.UID):
		return "the kubelet's UID differs from podsrc's"
	case a.Rejected():
		return "rejected by the kubelet's admission: " + a.Message
	case a != nil && a.Unknown != "":
		return "admission unknown: " + a.Unknown
	}
	return none
}

// admissionCell says in a word or two what the kubelet's admission made of
// a pod: admitted, rejected with its reason, skipped (a mirror pod, a pod
// already terminal) or unknown; none for a pod only the runtime has.
func admissionCell(a *v1alpha1.Admission) string {
	switch {
	case a == nil:
		return none
	case a.Rejected():
		return admissionWord(a) + ": " + a.Reason
	}
	return admissionWord(a)
}
