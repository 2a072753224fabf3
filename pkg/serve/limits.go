package serve

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Default limits: small enough that the agent stays far below its 256 Mi
// memory limit at 5,000 pods. One peer holds at most a quarter of each, so
// that no pod on the node's network can take them all from one address;
// that quarter is still enough for every operator of a cluster through the
// API server (one peer).
const (
	DefaultMaxConnections        = 512
	DefaultMaxConnectionsPerPeer = 128
	DefaultMaxStreams            = 128
	DefaultMaxStreamsPerPeer     = 32
	DefaultMaxSnapshots          = 8
	DefaultMaxSnapshotsPerPeer   = 2
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
	// MaxStreamsPerPeer is the most event streams open at once from one
	// address (one /64 for IPv6).
	MaxStreamsPerPeer int
	// MaxSnapshots is the most snapshot requests (/pods, /pods/{uid},
	// /sources, a stream's ?snapshot=true) in progress at once.
	MaxSnapshots int
	// MaxSnapshotsPerPeer is the most snapshot requests in progress at
	// once from one address (one /64 for IPv6).
	MaxSnapshotsPerPeer int
}

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:        DefaultMaxConnections,
		MaxConnectionsPerPeer: DefaultMaxConnectionsPerPeer,
		MaxStreams:            DefaultMaxStreams,
		MaxStreamsPerPeer:     DefaultMaxStreamsPerPeer,
		MaxSnapshots:          DefaultMaxSnapshots,
		MaxSnapshotsPerPeer:   DefaultMaxSnapshotsPerPeer,
	}
}

// AddFlags registers the limits' flags on fs.
func (l *Limits) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&l.MaxConnections, "max-connections", l.MaxConnections, "The most connections the agent keeps open at once; beyond it a connection is answered 503 and closed.")
	fs.IntVar(&l.MaxConnectionsPerPeer, "max-connections-per-peer", l.MaxConnectionsPerPeer, "The most connections open at once from one address (one /64 for IPv6). Through the API server's proxy every user shares the API server's address.")
	fs.IntVar(&l.MaxStreams, "max-streams", l.MaxStreams, "The most event streams open at once; beyond it a stream is answered 503 with Retry-After.")
	fs.IntVar(&l.MaxStreamsPerPeer, "max-streams-per-peer", l.MaxStreamsPerPeer, "The most event streams open at once from one address (one /64 for IPv6). Through the API server's proxy every user shares the API server's address.")
	fs.IntVar(&l.MaxSnapshots, "max-snapshot-requests", l.MaxSnapshots, "The most snapshot requests (/pods, /pods/{uid}, /sources, ?snapshot=true) in progress at once; beyond it a request is answered 503 with Retry-After.")
	fs.IntVar(&l.MaxSnapshotsPerPeer, "max-snapshot-requests-per-peer", l.MaxSnapshotsPerPeer, "The most snapshot requests in progress at once from one address (one /64 for IPv6). Through the API server's proxy every user shares the API server's address.")
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
	case l.MaxStreamsPerPeer <= 0 || l.MaxStreamsPerPeer > l.MaxStreams:
		return fmt.Errorf("--max-streams-per-peer must be between 1 and --max-streams (%d), not %d", l.MaxStreams, l.MaxStreamsPerPeer)
	case l.MaxSnapshots <= 0:
		return fmt.Errorf("--max-snapshot-requests must be positive, not %d", l.MaxSnapshots)
	case l.MaxSnapshotsPerPeer <= 0 || l.MaxSnapshotsPerPeer > l.MaxSnapshots:
		return fmt.Errorf("--max-snapshot-requests-per-peer must be between 1 and --max-snapshot-requests (%d), not %d", l.MaxSnapshots, l.MaxSnapshotsPerPeer)
	}
	return nil
}
