package agent

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/redact"
)

// inputs publishes what the agent takes in as events of kind input, for a
// replay of its recording (podsrc-agent replay): its settings, each
// update the merge takes and each Node the admit handlers are given.
type inputs struct {
	ring *eventring.Ring
	// exposed records pods in full (--expose-pod-specs); otherwise as
	// redact.InputPod clears them, with digests under key, which this
	// process alone holds and which also keys the fingerprints recorded.
	exposed bool
	key     []byte
	// last is, for each source, its last update recorded. Only took,
	// which the merge calls one update at a time, uses it.
	last map[string]recordedUpdate
}

// recordedUpdate is what the next update of a source is told apart by.
type recordedUpdate struct {
	// set says it was a SET.
	set bool
	// fingerprints are its pods' keyed fingerprints ("" for none): a pod
	// of the next update with one of them is recorded as a reference.
	fingerprints []string
	origins      []string
	warnings     [][]string
}

func newInputs(ring *eventring.Ring, exposed bool) *inputs {
	in := &inputs{ring: ring, exposed: exposed, last: map[string]recordedUpdate{}, key: make([]byte, 32)}
	_, _ = rand.Read(in.key) // never fails (crypto/rand)
	return in
}

// publish puts an input on the ring, stamped now.
func (in *inputs) publish(i *v1alpha1.Input) {
	in.ring.Publish(in.event(i))
}

func (in *inputs) event(i *v1alpha1.Input) v1alpha1.Event {
	return v1alpha1.Event{Kind: v1alpha1.EventKindInput, Time: metav1.NewMicroTime(time.Now()), Input: i}
}

// took records an update the merge takes (merge.Options.Took). A pod the
// source sent in its last recorded update with the same fingerprint is
// recorded as a reference to it (a nil pod, v1alpha1.InputUpdate): the
// source promises the pods are the same, so that an API source's SET of
// every pod of the node records only the pods that changed. A SET that
// is its source's last recorded SET again, pod for pod, with the same
// origins and warnings, is left out: the merge makes nothing of it (the
// file source sends one at each relist).
func (in *inputs) took(source string, u merge.PodUpdate) {
	cur := recordedUpdate{set: u.Op == merge.Set, fingerprints: make([]string, len(u.Pods)), origins: u.Origins, warnings: u.Warnings}
	for i := range u.Pods {
		if i < len(u.Fingerprints) && u.Fingerprints[i] != "" {
			cur.fingerprints[i] = in.keyed(u.Fingerprints[i])
		}
	}
	prev, ok := in.last[source]
	in.last[source] = cur
	if ok && prev.set && cur.set && !slices.Contains(cur.fingerprints, "") && slices.Equal(prev.fingerprints, cur.fingerprints) &&
		slices.Equal(prev.origins, cur.origins) && slices.EqualFunc(prev.warnings, cur.warnings, slices.Equal) {
		return
	}
	pods := make([]*v1.Pod, len(u.Pods))
	for i, p := range u.Pods {
		switch {
		case ok && cur.fingerprints[i] != "" && slices.Contains(prev.fingerprints, cur.fingerprints[i]):
			// A reference to the pod recorded before.
		case in.exposed:
			pods[i] = p
		default:
			pods[i] = redact.InputPod(p, in.key)
		}
	}
	in.publish(&v1alpha1.Input{
		Redacted: !in.exposed,
		Update: &v1alpha1.InputUpdate{Source: source, Op: u.Op.String(), Pods: pods, Fingerprints: cur.fingerprints,
			Origins: u.Origins, Warnings: u.Warnings},
	})
}

// keyed returns a source's fingerprint of a pod as an input records it:
// an HMAC under the process's key, which tells the same fingerprints
// apart and says nothing of what was hashed (a static pod's fingerprint
// is its manifest's SHA-256).
func (in *inputs) keyed(fingerprint string) string {
	mac := hmac.New(sha256.New, in.key)
	mac.Write([]byte(fingerprint))
	return hex.EncodeToString(mac.Sum(nil))
}

// node returns the input event of the Node the admit handlers are given
// (syncloop.Options.NodeInput): without its images and managed fields,
// which no handler reads; nil is the Node deleted.
func (in *inputs) node(n *v1.Node) v1alpha1.Event {
	if n == nil {
		return in.event(&v1alpha1.Input{NodeGone: true})
	}
	c := n.DeepCopy()
	c.ManagedFields, c.Status.Images = nil, nil
	return in.event(&v1alpha1.Input{Node: c})
}
