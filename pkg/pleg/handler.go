package pleg

// EventHandler is told of every event a relist computes, with what became of
// it, while the relist runs: a consumer gets each event as soon as it exists,
// without asking for it. HandleEvent is called from the relist, one event at
// a time, in Seq order. The relist waits for it, so it must not block: a
// handler that cannot keep up has to queue or drop by itself, and say so.
type EventHandler interface {
	HandleEvent(ComputedEvent)
}
