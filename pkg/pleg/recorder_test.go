package pleg

import "sync"

// recorder is the EventHandler the tests read the PLEG's events through,
// as the agent does through its own: it keeps every computed event with
// its outcome.
type recorder struct {
	mu     sync.Mutex
	events []ComputedEvent
}

func (r *recorder) HandleEvent(e ComputedEvent) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// after returns the recorded events whose Seq is above seq, oldest first.
func (r *recorder) after(seq uint64) []ComputedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ComputedEvent
	for _, e := range r.events {
		if e.Seq > seq {
			out = append(out, e)
		}
	}
	return out
}

// sentAfter returns the events whose Seq is above seq that went on the
// kubelet's channel, oldest first.
func (r *recorder) sentAfter(seq uint64) []*PodLifecycleEvent {
	var out []*PodLifecycleEvent
	for _, e := range r.after(seq) {
		if e.Outcome == OutcomeSent {
			out = append(out, &e.PodLifecycleEvent)
		}
	}
	return out
}
