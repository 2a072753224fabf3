package pleg

import "fmt"

// Semantics selects the kubelet minor whose generic PLEG is reproduced where
// minors differ. pkg/kubeletsemantics says which a kubelet minor has.
//
// The generic PLEG of kubelet v1.33, v1.34 and v1.35 is one file (their
// generic.go differs only in a cache mutex). Against v1.36 and v1.37 (whose
// relists differ only in taking a context and a logger from it, and in
// PLEGOnDemandRelist, GA in v1.37, beta and on in v1.36) it differs in:
//   - PodSync: v1.36 sends a PodSync for a pod it reinspected successfully
//     without finding a change; v1.33 to v1.35 send nothing for it.
//   - Watch conditions (v1.33 to v1.35; the pod workers set them for
//     in-place resizes) became single-pod relist requests in v1.36. podsrc
//     runs no pod workers, so there are neither; both only make the
//     kubelet inspect a pod sooner or more often, which the relists of a
//     trace cannot express.
//   - Reinspection bookkeeping: v1.33 to v1.35 replace the set of pods to
//     reinspect after every relist with the pods whose inspection failed in
//     it; v1.36 removes a pod from the set when it reconciles the pod and
//     adds it back when the inspection fails. Every relist reconciles every
//     recorded pod, and a record is only dropped after a successful
//     inspection, so both sets hold the same pods after each relist and the
//     events cannot differ.
type Semantics int

const (
	// PodSyncAfterReinspection is the PLEG that yields a PodSync after a
	// reinspection that found no change (kubelets v1.36 on). It is the
	// default.
	PodSyncAfterReinspection Semantics = iota
	// NoPodSyncAfterReinspection is the PLEG that yields no PodSync after
	// a reinspection that found no change (kubelets v1.33 to v1.35).
	NoPodSyncAfterReinspection
)

// String returns the behaviour the semantics follow, in words.
func (s Semantics) String() string {
	switch s {
	case PodSyncAfterReinspection:
		return "podsync-after-reinspection"
	case NoPodSyncAfterReinspection:
		return "no-podsync-after-reinspection"
	}
	return fmt.Sprintf("Semantics(%d)", int(s))
}

// syncsAfterReinspection reports whether a reinspection that found no change
// yields a PodSync.
func (s Semantics) syncsAfterReinspection() bool { return s == PodSyncAfterReinspection }
