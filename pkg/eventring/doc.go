// Package eventring keeps the latest of an agent's events in a ring that
// any number of streams read, each at its own pace, and resume from by
// sequence number or by time.
//
// Its guarantees:
//
//   - Ordering. Publish numbers events 1, 2, 3… in the order it is called
//     (concurrent calls are serialised), and Read returns them in that
//     order. Each event's stream line is encoded once, by Publish, and
//     every reader gets the same bytes.
//   - Eviction. A ring keeps the last capacity events; publishing one more
//     evicts the oldest. Publish never waits for a reader to catch up,
//     however slow: a reader holds the ring's lock only while it copies
//     (Read) or scans (SeqAt, TailFrom and its match function) the kept
//     events, and Publish waits only for that.
//   - Gaps. Nothing is skipped silently. A reader whose next event was
//     evicted before it read it, because it fell behind or because it
//     resumes after a sequence number that is no longer kept, gets the
//     evicted numbers as a range (Batch.MissedFrom to Batch.MissedTo) and
//     then every kept event from the oldest on, without holes. A reader at
//     or past the newest event gets nothing, and a channel (Batch.Wake)
//     that the next Publish closes.
//   - Time-based resume. SeqAt(t) is the position from which a reader gets
//     every event whose time is at or after t. Event times need not follow
//     sequence numbers (a PLEG event carries the time of its relist), and
//     evicted events are remembered only by the second of their time, so
//     the reader may also get a few events from just before t; when an
//     event at or after t may have been evicted, the position lies before
//     the oldest kept event, so that the reader is told of a gap rather
//     than miss it. The ring remembers at most 4096 such seconds (over an
//     hour of continuous eviction); once older ones are forgotten, a time
//     at or before the oldest second it remembers reports every evicted
//     event as a gap.
//   - Epoch. Each ring names its numbering with an epoch, carried by every
//     stream line: a sequence number from another epoch is another ring's.
//   - Continuation. A ring made with a journal's epoch and Restored from it
//     continues the numbering of an earlier process, keeps its newest
//     events, and reports the older ones as evicted; its Sink (the
//     journal) takes every event published from then on, in order.
package eventring
