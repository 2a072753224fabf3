package pleg

import "k8s.io/apimachinery/pkg/types"

// podRecord keeps what the PLEG knows of one pod: the state it last reported
// (old) and the state of the current relist (cur). The snapshots' buffers are
// swapped, not copied, so that a steady pod costs no allocation per relist.
type podRecord struct {
	uid    types.UID
	old    podSnapshot
	hasOld bool
	cur    podSnapshot
	// curGen is the relist generation cur belongs to; cur is only valid
	// when it equals the records' generation.
	curGen uint64
}

// podRecords is every pod the PLEG tracks, by UID. It implements podSink for
// the relist that is being taken.
type podRecords struct {
	byUID map[types.UID]*podRecord
	gen   uint64
}

func newPodRecords() podRecords {
	return podRecords{byUID: make(map[types.UID]*podRecord)}
}

// begin starts a relist: every pod not listed again has no current state.
func (r *podRecords) begin() { r.gen++ }

// pod implements podSink.
func (r *podRecords) pod(uid types.UID, name, namespace string) *podSnapshot {
	rec := r.byUID[uid]
	if rec == nil {
		rec = &podRecord{uid: uid}
		r.byUID[uid] = rec
	}
	if rec.curGen != r.gen {
		rec.cur.reset(name, namespace)
		rec.curGen = r.gen
	}
	return &rec.cur
}

// hasCurrent reports whether rec was listed by the current relist.
func (r *podRecords) hasCurrent(rec *podRecord) bool { return rec.curGen == r.gen }

// update makes the current state the reported one, or forgets a pod that
// was not listed.
func (r *podRecords) update(rec *podRecord) {
	if !r.hasCurrent(rec) {
		delete(r.byUID, rec.uid)
		return
	}
	rec.old, rec.cur = rec.cur, rec.old
	rec.hasOld = true
	rec.curGen = 0
}
