package syncloop

// Semantics selects how the reproduced kubelet's sync loop words a SET it
// ignores, the one place where the dispatch of syncLoopIteration differs
// between the minors podsrc reproduces. pkg/kubeletsemantics says which a
// kubelet minor has.
type Semantics int

const (
	// SetInvalid: the sync loop has no case for a SET (its pod config has
	// no snapshot modes) and logs it as an invalid operation. It is the
	// default.
	SetInvalid Semantics = iota
	// SetUnsupported: the sync loop has a case for a SET and logs that it
	// does not support snapshot updates.
	SetUnsupported
)

// String names the semantics.
func (s Semantics) String() string {
	switch s {
	case SetInvalid:
		return "set-invalid"
	case SetUnsupported:
		return "set-unsupported"
	}
	return "unknown"
}

// setIgnored is why the sync loop ignores a SET, in the kubelet's own log
// message.
func (s Semantics) setIgnored() string {
	if s == SetUnsupported {
		return ignoredSetUnsupported
	}
	return ignoredSetInvalid
}
