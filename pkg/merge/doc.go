// Package merge reproduces the kubelet's pod configuration: the mux that
// takes updates from every pod source on its own channel, and the pod storage
// that merges them into one view and emits the changes the kubelet's sync
// loop would act on.
//
// The model is the kubelet's of v1.27 (input operations SET, ADD, UPDATE,
// DELETE and REMOVE; the Incremental, SnapshotAndUpdates and Snapshot
// notification modes). Where today's kubelet behaves differently on the same
// input, the v1.36 behaviour is the default (see Semantics).
package merge
