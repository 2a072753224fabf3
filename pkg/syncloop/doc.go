// Package syncloop is what the kubelet's sync loop does after the merge:
// the pod manager's view of the configured pods, the dispatch of the
// merge's notifications and the PLEG's events to the sync loop's handlers,
// the admission of added pods, and the events it publishes of each.
package syncloop
