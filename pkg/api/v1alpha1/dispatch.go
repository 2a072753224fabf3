package v1alpha1

// The kubelet's sync loop handlers (the methods of its SyncHandler
// interface, which syncLoopIteration in k8s.io/kubernetes
// pkg/kubelet/kubelet.go calls), as Event.Handler names them;
// SyncHandlerIgnored is an event the sync loop dispatches to none of them.
const (
	SyncHandlerPodAdditions = "HandlePodAdditions"
	SyncHandlerPodUpdates   = "HandlePodUpdates"
	SyncHandlerPodRemoves   = "HandlePodRemoves"
	SyncHandlerPodReconcile = "HandlePodReconcile"
	SyncHandlerPodSyncs     = "HandlePodSyncs"
	SyncHandlerIgnored      = "ignored"
)

// SyncHandlers are the values of Event.Handler.
var SyncHandlers = []string{SyncHandlerPodAdditions, SyncHandlerPodUpdates, SyncHandlerPodRemoves, SyncHandlerPodReconcile, SyncHandlerPodSyncs, SyncHandlerIgnored}

// syncHandlerWords are the sync loop handlers in one word.
var syncHandlerWords = map[string]string{
	SyncHandlerPodAdditions: "add",
	SyncHandlerPodUpdates:   "update",
	SyncHandlerPodRemoves:   "remove",
	SyncHandlerPodReconcile: "reconcile",
	SyncHandlerPodSyncs:     "sync",
	SyncHandlerIgnored:      "ignored",
}

// SyncHandlerWord returns a sync loop handler in one word, as kubectl
// podsrc watch shows it by default: add, update, remove, reconcile, sync
// or ignored; "" for a string that is none of the SyncHandler* constants.
func SyncHandlerWord(handler string) string { return syncHandlerWords[handler] }
