package agent

import (
	"crypto/rand"
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
	// process alone holds.
	exposed bool
	key     []byte
	// lastSet is each source's last SET recorded, as the fingerprints,
	// origins and warnings of its pods. Only took, which the merge calls
	// one update at a time, uses it.
	lastSet map[string]recordedSet
}

// recordedSet is what tells a SET from the one its source sent before.
type recordedSet struct {
	fingerprints, origins []string
	warnings              [][]string
}

func newInputs(ring *eventring.Ring, exposed bool) *inputs {
	in := &inputs{ring: ring, exposed: exposed, lastSet: map[string]recordedSet{}}
	if !exposed {
		in.key = make([]byte, 32)
		_, _ = rand.Read(in.key) // never fails (crypto/rand)
	}
	return in
}

// publish puts an input on the ring, stamped now.
func (in *inputs) publish(i *v1alpha1.Input) {
	in.ring.Publish(in.event(i))
}

func (in *inputs) event(i *v1alpha1.Input) v1alpha1.Event {
	return v1alpha1.Event{Kind: v1alpha1.EventKindInput, Time: metav1.NewMicroTime(time.Now()), Input: i}
}

// took records an update the merge takes (merge.Options.Took). A SET
// whose pods all carry the fingerprints, origins and warnings of the
// source's last recorded SET is left out: the source promises those pods
// are the same, so the merge makes nothing of it (the file source sends
// one at each relist).
func (in *inputs) took(source string, u merge.PodUpdate) {
	if u.Op != merge.Set {
		delete(in.lastSet, source)
	} else {
		cur := recordedSet{fingerprints: u.Fingerprints, origins: u.Origins, warnings: u.Warnings}
		prev, ok := in.lastSet[source]
		in.lastSet[source] = cur
		if ok && len(u.Fingerprints) == len(u.Pods) && !slices.Contains(u.Fingerprints, "") &&
			slices.Equal(prev.fingerprints, cur.fingerprints) && slices.Equal(prev.origins, cur.origins) &&
			slices.EqualFunc(prev.warnings, cur.warnings, slices.Equal) {
			return
		}
	}
	pods := make([]*v1.Pod, len(u.Pods))
	for i, p := range u.Pods {
		if in.exposed {
			pods[i] = p
		} else {
			pods[i] = redact.InputPod(p, in.key)
		}
	}
	in.publish(&v1alpha1.Input{
		Redacted: !in.exposed,
		Update:   &v1alpha1.InputUpdate{Source: source, Op: u.Op.String(), Pods: pods, Origins: u.Origins, Warnings: u.Warnings},
	})
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
