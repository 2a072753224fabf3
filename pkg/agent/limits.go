package agent

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Default limits: enough for every operator of a cluster through the API
// server (one peer) and for the kubelet's probes, small enough that the
// agent stays far below its 256 Mi memory limit at 5,000 pods.
const (
	DefaultMaxConnections        = 512
	DefaultMaxConnectionsPerPeer = 128
	DefaultMaxStreams            = 128
	DefaultMaxSnapshots          = 8
)

// Limits bound what clients can make the agent hold at once.
type Limits struct {
	// MaxConnections is the most connections open at once; more are
	// answered 503 and closed.
	MaxConnections int
	// MaxConnectionsPerPeer is the most connections open at once from one
	// address (one /64 for IPv6).
	MaxConnectionsPerPeer int
	// MaxStreams is the most event streams open at once.
	MaxStreams int
	// MaxSnapshots is the most snapshot requests (/pods, /pods/{uid},
	// /sources, a stream's ?snapshot=true) in progress at once.
	MaxSnapshots int
}

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:        DefaultMaxConnections,
		MaxConnectionsPerPeer: DefaultMaxConnectionsPerPeer,
		MaxStreams:            DefaultMaxStreams,
		MaxSnapshots:          DefaultMaxSnapshots,
	}
}

// AddFlags registers the limits' flags on fs.
func (l *Limits) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&l.MaxConnections, "max-connections", l.MaxConnections, "The most connections the agent keeps open at once; beyond it a connection is answered 503 and closed.")
	fs.IntVar(&l.MaxConnectionsPerPeer, "max-connections-per-peer", l.MaxConnectionsPerPeer, "The most connections open at once from one address (one /64 for IPv6). Through the API server's proxy every user shares the API server's address.")
	fs.IntVar(&l.MaxStreams, "max-streams", l.MaxStreams, "The most event streams open at once; beyond it a stream is answered 503 with Retry-After.")
	fs.IntVar(&l.MaxSnapshots, "max-snapshot-requests", l.MaxSnapshots, "The most snapshot requests (/pods, /pods/{uid}, /sources, ?snapshot=true) in progress at once; beyond it a request is answered 503 with Retry-After.")
}

// Validate refuses limits the agent cannot run with, naming the flag.
func (l Limits) Validate() error {
	switch {
	case l.MaxConnections <= 0:
		return fmt.Errorf("--max-connections must be positive, not %d", l.MaxConnections)
	case l.MaxConnectionsPerPeer <= 0 || l.MaxConnectionsPerPeer > l.MaxConnections:
		return fmt.Errorf("--max-connections-per-peer must be between 1 and --max-connections (%d), not %d", l.MaxConnections, l.MaxConnectionsPerPeer)
	case l.MaxStreams <= 0 || l.MaxStreams > l.MaxConnections:
		return fmt.Errorf("--max-streams must be between 1 and --max-connections (%d), not %d", l.MaxConnections, l.MaxStreams)
	case l.MaxSnapshots <= 0:
		return fmt.Errorf("--max-snapshot-requests must be positive, not %d", l.MaxSnapshots)
	}
	return nil
}
