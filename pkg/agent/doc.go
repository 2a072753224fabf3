// Package agent wires podsrc's copies of the kubelet's pod sources, its pod
// config merge and its generic PLEG into one process per node, publishes
// what they do on an event ring, and keeps the view of the pods they
// configure. It is the serve.State that its serve.API answers from: JSON
// snapshots, a resumable event stream, health and metrics.
package agent
