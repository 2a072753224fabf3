package eventring

import "github.com/podsrc/podsrc/pkg/api/v1alpha1"

// Sink takes every event a ring publishes, with its stream line, in
// sequence order, while the ring holds its lock: it must not block. The
// agent's journal is one. Neither the event nor the line may be changed.
type Sink interface {
	Append(e *v1alpha1.Event, line []byte)
}
