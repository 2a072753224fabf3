package agent

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the agent's garbage collection target unless GOGC
// sets one. The agent's heap is mostly pods it keeps for as long as they
// are configured; what it allocates besides comes in bursts (a first
// listing of every manifest, an API server relist), and Go's default of
// 100 lets such a burst take the process to twice its live heap: 162 MiB
// at 5,000 pods, against 143 MiB at 50, for a little more CPU during the
// bursts only (hack/bench-agent.sh rss).
const defaultGCPercent = 50

// tuneGC sets the collector's target to defaultGCPercent, unless the GOGC
// environment variable chooses one.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}
}
