// Package journal keeps an agent's events on the node's disk, in a bbolt
// database, so that they outlive the agent process: after a restart, an
// upgrade or a node reboot the agent serves them again, numbers its new
// events after them and marks where it was not watching.
//
// Its guarantees:
//
//   - Order and numbering. Append takes the events in the order the event
//     ring publishes them, and a journal reopened by the next agent process
//     reports the last sequence number it holds (LastSeq) and the epoch
//     that names its numbering (Epoch), so that the numbering continues.
//   - Durability. Append never waits for the disk: a writer (Run) commits
//     the events appended since its last commit in one bbolt transaction,
//     whose commit is fsynced. A crash or a kill -9 loses at most the
//     events appended after the last commit; bbolt's two checksummed meta
//     pages keep the store itself consistent.
//   - Damage. Open checks the whole store (bbolt's page consistency check,
//     with faults on the memory-mapped file turned into errors). A store
//     that fails the check, or that is no bbolt database at all, is moved
//     aside (journal.db.corrupt-<time>), the events that can still be read
//     from it are copied into a fresh store, and Open says so (Found); the
//     agent goes on serving.
//   - Bounds. The events kept are the newest ones within a size bound (the
//     bytes of their records) and an age bound (by event time, in sequence
//     order); which bound dropped how many events is counted (Stats and the
//     podsrc_journal_dropped_events_total metric). When the writer falls so
//     far behind that maxPending events wait, newer ones are dropped and
//     counted under the bound "backlog". A dropped event leaves a hole in
//     the numbering, which readers report as a gap, never silently.
//   - Projection. The store records whether its lines were written with
//     pod specs exposed (Options.ExposePodSpecs). Open under a setting that
//     does not expose them drops the events written with it, unserved
//     (Found.Discarded), and the numbering goes on after them in the same
//     epoch: readers report them as a gap.
//
// Record format (the contract for exporting a journal to an archive and
// replaying it): bucket "events" maps a sequence number (8 bytes, big
// endian) to the event's stream line, exactly as the agent serves it: a
// v1alpha1.StreamMessage of type "event", JSON, without its newline. An
// export is therefore the stream's NDJSON. Bucket "meta" holds the format
// version (FormatVersion), the epoch, the node, the agent's version and
// kubelet minor, whether pod specs were exposed ("exposePodSpecs"), the
// newest sequence number, the last time the writer knew the agent alive
// and, after a clean stop, the time of that stop. What a replay needs
// besides the served events is among them, as events of kind input
// (v1alpha1.EventKindInput): the agent's settings, the sources' updates as
// the merge took them and the Node, in sequence with what they led to.
package journal
