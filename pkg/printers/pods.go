package printers

import (
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pods prints the pods of nodes as their kubelet's sources and PLEG see
// them.
type Pods struct {
	Lists []v1alpha1.PodList
}

// Items implements Printable: every node's PodInfos, with their kind and
// node.
func (p Pods) Items() []Item {
	var out []Item
	for _, l := range p.Lists {
		for _, pod := range l.Items {
			pod.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPod)
			pod.NodeName = l.NodeName
			out = append(out, Item{Wire: pod, Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID), Labels: pod.Labels})
		}
	}
	return out
}

// Tables implements Printable: what a person needs first (CONTAINERS ready
// of configured, STATUS in kubectl's words, the last exit, restarts), then
// where the pod comes from. Only a row whose STATUS says why it does not
// run is colored (red).
func (p Pods) Tables(items []Item, now time.Time) []*Table {
	name := col("Name", false)
	name.Format = "name"
	t := &Table{Columns: []metav1.TableColumnDefinition{
		col("Node", false), col("Namespace", false), name, col("Containers", false), col("Status", false), col("Last Exit", false),
		col("Restarts", false), col("Source", false), col("UID", false), col("Static/Mirror", false), col("Admission", false),
		col("Sandbox", false), col("First Seen", false),
		col("IPs", true), col("Config Hash", true), col("Kubelet UID", true), col("Images", true), col("Error", true),
	}}
	for i := range items {
		pod := items[i].Wire.(v1alpha1.PodInfo)
		kind := "-"
		switch {
		case pod.Static:
			kind = "static"
		case pod.Mirror:
			kind = "mirror"
		}
		sandbox, restarts, ips, images, errMsg := none, 0, none, none, none
		if rt := pod.Runtime; rt != nil {
			sandbox = orNone(rt.SandboxState)
			var imgs []string
			for _, ctr := range rt.Containers {
				restarts += ctr.RestartCount
				if ctr.Image != "" {
					imgs = append(imgs, ctr.Image)
				}
			}
			ips = joinOrNone(rt.IPs, ",")
			images = joinOrNone(imgs, ",")
			if rt.Error != "" {
				errMsg = rt.Error
			}
		}
		hash := pod.ConfigHash
		if hash == "" {
			hash = pod.ConfigMirror
		}
		kubeletUID := none
		switch {
		case pod.KubeletUID == "":
		case pod.KubeletUID == string(pod.UID):
			kubeletUID = "same (" + pod.KubeletUIDFrom + ")"
		default:
			// The kubelet runs this static pod under another UID: podsrc
			// decodes it otherwise than this kubelet.
			kubeletUID = pod.KubeletUID + " (" + pod.KubeletUIDFrom + ", differs)"
			if errMsg == none {
				errMsg = "the kubelet's UID differs from podsrc's"
			}
		}
		if a := pod.Admission; a.Rejected() && errMsg == none {
			errMsg = "rejected by the kubelet's admission: " + a.Message
		}
		src := pod.Source
		if src == "" {
			src = "<runtime>"
		}
		st := statusOf(pod)
		containers := statusMirror
		if !pod.Mirror {
			containers = itoa(st.Ready) + "/" + itoa(st.Configured)
		}
		var c Color
		if st.Failing {
			c = Red
		}
		t.Rows = append(t.Rows, Row{Cells: []any{
			pod.NodeName, pod.Namespace, pod.Name, containers, st.Status, st.LastExit, itoa(restarts),
			src, string(pod.UID), kind, admissionCell(pod.Admission), sandbox, seenAge(now, pod.FirstSeen),
			ips, orNone(hash), kubeletUID, images, errMsg,
		}, Color: c, Item: &items[i]})
	}
	return []*Table{t}
}

// admissionCell says in a word or two what the kubelet's admission made of
// a pod: admitted, rejected with its reason, skipped (a mirror pod, a pod
// already terminal) or unknown; none for a pod only the runtime has.
func admissionCell(a *v1alpha1.Admission) string {
	switch {
	case a == nil:
		return none
	case a.Unknown != "":
		return "unknown"
	case a.Skipped != "":
		return "skipped"
	case a.Admitted:
		return "admitted"
	}
	return "rejected: " + a.Reason
}
