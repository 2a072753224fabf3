// Package serve is how the agent answers over HTTP, apart from what it
// answers: its API over a State (API, which the fake agent of
// pkg/client/fakeagent serves too), the event stream over an
// eventring.Ring (Stream), snapshots written item by item (WriteWithItems)
// at a minimum rate (WithMinRate), and the hardening of a server on the
// node's network: the limits on connections, streams and snapshot requests
// (Limits, LimitListener, Slots), the servers' timeouts (NewServer,
// WithDeadline) and the allowed networks (AllowNets).
package serve
