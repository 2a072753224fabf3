// Package agent wires podsrc's copies of the kubelet's pod sources, its pod
// config merge, its generic PLEG and its sync loop (pkg/syncloop) into one
// process per node, which publishes what they do on an event ring. It is
// the serve.State that its serve.API answers from: JSON snapshots, a
// resumable event stream, health and metrics.
package agent
