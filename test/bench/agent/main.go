//go:build linux

// Command agent measures podsrc-agent's event streams and memory.
//
// "agent stream" starts an agent (pkg/agent, its real HTTP server and stream
// code) in a child process on loopback, opens subscribers event streams to it
// over HTTP, has the child publish events into the agent's event ring at a
// fixed rate for a while, and prints the delivered throughput, the delivery
// latency (client receive time minus the event's time, which the event ring
// stamps when it publishes), the streams that lagged or ended, and the child's RSS and CPU.
//
// "agent rss" runs the real podsrc-agent binary with a file (or URL) source
// of N valid static pods for each N given, waits until the agent has them
// all, lets it settle and prints its RSS, with a heap profile on request.
//
// "agent hostile" runs the real podsrc-agent binary with 1,000 static pods
// against hostile clients on loopback (requests never read, slowloris
// headers, streams never read) and prints its RSS, the /livez latency and
// what well-behaved streams missed.
//
// "agent fair" runs the real podsrc-agent binary, its probes on a listener
// of their own, against the attacks of a pod on the node's network (slow
// readers of /pods, streams never read, idle keep-alive connections,
// slowloris), each from one loopback address and from many, and prints
// whether the kubelet's probe, a well-behaved `sources` and a `watch` got
// through meanwhile, and the agent's RSS.
//
// hack/bench-agent.sh builds them and runs them. The program is a main
// package under test/ so that nothing of it ends up in a podsrc binary.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	switch os.Args[1] {
	case "stream":
		err = runStream(ctx, os.Args[2:])
	case streamAgentCommand:
		err = runStreamAgent(ctx, os.Args[2:])
	case "rss":
		err = runRSS(ctx, os.Args[2:])
	case "hostile":
		err = runHostile(ctx, os.Args[2:])
	case "fair":
		err = runFair(ctx, os.Args[2:])
	default:
		stop()
		usage()
	}
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-agent %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: agent stream [flags] | agent rss [flags] | agent hostile [flags] | agent fair [flags]   (-h for the flags)")
	os.Exit(2)
}
