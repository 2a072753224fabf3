package v1alpha1

// The kubelet's sync loop handlers (its SyncHandler methods, which
// syncLoopIteration in k8s.io/kubernetes pkg/kubelet/kubelet.go calls), as
// Event.Handler names them; HandlerIgnored is an event the sync loop
// dispatches to none of them.
const (
	HandlerPodAdditions = "HandlePodAdditions"
	HandlerPodUpdates   = "HandlePodUpdates"
	HandlerPodRemoves   = "HandlePodRemoves"
	HandlerPodReconcile = "HandlePodReconcile"
	HandlerPodSyncs     = "HandlePodSyncs"
	HandlerIgnored      = "ignored"
)

// Handlers are the values of Event.Handler.
var Handlers = []string{HandlerPodAdditions, HandlerPodUpdates, HandlerPodRemoves, HandlerPodReconcile, HandlerPodSyncs, HandlerIgnored}

// verdicts are the handlers in one word.
var verdicts = map[string]string{
	HandlerPodAdditions: "add",
	HandlerPodUpdates:   "update",
	HandlerPodRemoves:   "remove",
	HandlerPodReconcile: "reconcile",
	HandlerPodSyncs:     "sync",
	HandlerIgnored:      "ignored",
}

// Verdict returns a handler in one word, as kubectl podsrc watch shows it
// by default: add, update, remove, reconcile, sync or ignored; "" for a
// string that is none of the Handler* constants.
func Verdict(handler string) string { return verdicts[handler] }
