package replay

import "github.com/podsrc/podsrc/pkg/api/v1alpha1"

// process is one agent process's recorded events: those after its
// boundary (or its settings, without a journal) up to the next.
type process struct {
	events []v1alpha1.Event
	// settings is its first input, nil when the recording misses it.
	settings *v1alpha1.InputSettings
	// missing is a gap amid its events, which makes it unfit to replay.
	missing *v1alpha1.StreamMessage
	// endsEarly says the recording ends before the process did: a gap
	// follows its last event (it was killed before writing the events it
	// had numbered), or the recording ends with it.
	endsEarly bool
}

// processes splits a recording by agent process.
func processes(recording []v1alpha1.StreamMessage) []process {
	var out []process
	var cur *process
	// gap is the gap after cur's last event, if any.
	var gap *v1alpha1.StreamMessage
	for i := range recording {
		m := &recording[i]
		if m.Type == v1alpha1.MessageGap {
			gap = m
			continue
		}
		if m.Type != v1alpha1.MessageEvent || m.Event == nil {
			continue
		}
		e := *m.Event
		settings := e.Kind == v1alpha1.EventKindInput && e.Input != nil && e.Input.Settings != nil
		switch {
		case e.Kind == v1alpha1.EventKindBoundary:
			// A boundary starts the next process; its settings follow.
			if cur != nil && gap != nil {
				cur.endsEarly = true
			}
			out = append(out, process{})
			cur = &out[len(out)-1]
		case settings && (cur == nil || cur.settings != nil || hasOutputs(cur.events)):
			// A process without a journal starts with its settings.
			out = append(out, process{})
			cur = &out[len(out)-1]
		case cur == nil:
			out = append(out, process{})
			cur = &out[len(out)-1]
		case gap != nil && cur.missing == nil:
			cur.missing = gap
		}
		gap = nil
		if settings {
			cur.settings = e.Input.Settings
		}
		cur.events = append(cur.events, e)
	}
	if cur != nil {
		// The recording ends before the process did, or with it.
		cur.endsEarly = true
	}
	return out
}

// hasOutputs reports whether events hold any but a boundary.
func hasOutputs(events []v1alpha1.Event) bool {
	for _, e := range events {
		if e.Kind != v1alpha1.EventKindBoundary {
			return true
		}
	}
	return false
}
