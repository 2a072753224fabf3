package eventring

// Restore makes r continue a numbering that an earlier process left at
// last, keeping the newest events of kept (in sequence order, as
// journal.Journal.Newest returns them, their lines encoded with r's epoch)
// that follow each other up to last: numbers the ring cannot hold, as
// those an unclean stop skipped, end what it keeps. Events before the
// oldest kept are evicted ones to readers: a gap. Call it before the first
// Publish.
func (r *Ring) Restore(kept Batch, last uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(kept.Events)
	// The newest kept that are last, last-1, and so on without a hole.
	held := 0
	for held < n && kept.Events[n-1-held].Seq == last-uint64(held) {
		held++
	}
	kept.Events, kept.Lines = kept.Events[n-held:], kept.Lines[n-held:]
	n = held
	if n > len(r.slots) {
		kept.Events, kept.Lines = kept.Events[n-len(r.slots):], kept.Lines[n-len(r.slots):]
		n = len(r.slots)
	}
	r.last = last
	r.first = last + 1 - uint64(n)
	for i, e := range kept.Events {
		r.slots[int(e.Seq%uint64(len(r.slots)))] = entry{event: e, line: kept.Lines[i]}
	}
	if r.first > 1 {
		// Every event before the oldest kept counts as evicted at or
		// after the second of the oldest kept (or now), so that a reader from a time is told of them.
		sec := r.now().Unix()
		if n > 0 {
			sec = kept.Events[0].Time.Unix()
		}
		r.evicted = append(r.evicted[:0], evictionMark{second: sec, seq: 1})
	}
}

// SetSink makes r hand every event it publishes from now on to s.
func (r *Ring) SetSink(s Sink) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sink = s
}

// FirstSeq returns the sequence number of the oldest event kept, 0 when
// there is none.
func (r *Ring) FirstSeq() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.first > r.last {
		return 0
	}
	return r.first
}
