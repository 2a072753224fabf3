package cri

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// EventSource is the CRI runtime service's stream of container events
// (GetContainerEvents), which containerd from v1.7 and CRI-O serve. The
// Client of this package implements it over gRPC.
type EventSource interface {
	// WatchContainerEvents calls handle for each container event the
	// runtime sends, in order, until ctx ends or the stream breaks, and
	// returns why it ended: nil when ctx ended it, an error for which
	// EventsUnsupported is true when the runtime does not serve the stream.
	// handle must not block.
	WatchContainerEvents(ctx context.Context, handle func(*runtimeapi.ContainerEventResponse)) error
}

var _ EventSource = (*Client)(nil)

// EventsUnsupported tells whether err, from WatchContainerEvents, says the
// runtime does not serve container events at all (rather than that the
// stream broke, as it does when the runtime restarts).
func EventsUnsupported(err error) bool { return status.Code(err) == codes.Unimplemented }

// WatchContainerEvents implements EventSource. The stream has no timeout:
// it lasts as long as ctx and the runtime do.
func (c *Client) WatchContainerEvents(ctx context.Context, handle func(*runtimeapi.ContainerEventResponse)) error {
	stream, err := c.rs.GetContainerEvents(ctx, &runtimeapi.GetEventsRequest{})
	if err != nil {
		return eventsEnded(ctx, err)
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			return eventsEnded(ctx, err)
		}
		handle(ev)
	}
}

// eventsEnded is the outcome of a container event stream that ended with
// err: nil when ctx ended it.
func eventsEnded(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("following container events: %w", err)
}
