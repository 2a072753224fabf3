// Package agent wires podsrc's copies of the kubelet's pod sources, its pod
// config merge and its generic PLEG into one process per node, and serves
// what they know over HTTP: JSON snapshots, a resumable event stream, health
// and metrics.
package agent
