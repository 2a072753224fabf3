//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Subnet holds the simulated nodes' addresses. They exist only on Link,
// inside the cluster's network namespace, where the API server runs; in the
// root namespace an unreachable route covers the whole range, so that no
// packet to them can leave the machine. hack/cluster.sh removes and checks
// the same route (SCALE_SUBNET).
var Subnet = netip.MustParsePrefix("10.254.0.0/22")

// Link is the interface that carries the addresses: one end of a veth pair
// whose other end, linkPeer, is in the same namespace (the machine's kernel
// has no dummy driver). Removing one end removes both.
const (
	Link     = "podsrc-scale"
	linkPeer = "podsrc-scale-p"
)

// MaxNodes is how many node addresses Subnet has (network and broadcast
// addresses aside).
const MaxNodes = 1<<(32-22) - 2

// network is the simulated nodes' addresses, set up in a namespace.
type network struct {
	nsPath string
	addrs  []netip.Addr
}

// nodeAddrs returns the first n addresses of Subnet after the network one.
func nodeAddrs(n int) ([]netip.Addr, error) {
	if n < 1 || n > MaxNodes {
		return nil, fmt.Errorf("%d nodes: want 1 to %d (the addresses of %s)", n, MaxNodes, Subnet)
	}
	out := make([]netip.Addr, n)
	a := Subnet.Addr()
	for i := range out {
		a = a.Next()
		out[i] = a
	}
	return out, nil
}

// setupNetwork guards Subnet in the root namespace first, then adds Link
// with n addresses in the namespace at nsPath. On error it undoes what it did.
func setupNetwork(ctx context.Context, nsPath string, n int) (*network, error) {
	addrs, err := nodeAddrs(n)
	if err != nil {
		return nil, err
	}
	nw := &network{nsPath: nsPath, addrs: addrs}
	if err := ipCmd(ctx, "", "route", "add", "unreachable", Subnet.String()); err != nil {
		return nil, fmt.Errorf("guarding %s in the root namespace (is a previous run's route left? hack/cluster.sh check-clean): %w", Subnet, err)
	}
	var batch strings.Builder
	fmt.Fprintf(&batch, "link add %s type veth peer name %s\n", Link, linkPeer)
	for _, a := range addrs {
		fmt.Fprintf(&batch, "addr add %s/32 dev %s\n", a, Link)
	}
	fmt.Fprintf(&batch, "link set %s up\nlink set %s up\n", Link, linkPeer)
	if err := ipBatch(ctx, nsPath, batch.String()); err != nil {
		return nil, errors.Join(fmt.Errorf("adding %s with %d addresses in %s: %w", Link, n, nsPath, err), nw.teardown(ctx))
	}
	return nw, nil
}

// teardown removes Link and the guard route; what is already gone is fine.
func (nw *network) teardown(ctx context.Context) error {
	var errs []error
	if linkExists(ctx, nw.nsPath) {
		if err := ipCmd(ctx, nw.nsPath, "link", "del", Link); err != nil {
			errs = append(errs, fmt.Errorf("removing %s from %s: %w", Link, nw.nsPath, err))
		}
	}
	if guarded(ctx) {
		if err := ipCmd(ctx, "", "route", "del", "unreachable", Subnet.String()); err != nil {
			errs = append(errs, fmt.Errorf("removing the unreachable route to %s: %w", Subnet, err))
		}
	}
	return errors.Join(errs...)
}

// linkExists reports whether Link is in the namespace at nsPath.
func linkExists(ctx context.Context, nsPath string) bool {
	return ipCmd(ctx, nsPath, "link", "show", Link) == nil
}

// guarded reports whether the root namespace has the unreachable route.
func guarded(ctx context.Context) bool {
	out, err := exec.CommandContext(ctx, "ip", "route", "show", "type", "unreachable", Subnet.String()).Output()
	return err == nil && strings.Contains(string(out), Subnet.String())
}

// ipCmd runs ip, inside the namespace at nsPath unless it is empty.
func ipCmd(ctx context.Context, nsPath string, args ...string) error {
	cmd := exec.CommandContext(ctx, "ip", args...)
	if nsPath != "" {
		cmd = exec.CommandContext(ctx, "nsenter", append([]string{"--net=" + nsPath, "ip"}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ipBatch runs the ip commands of batch, one a line, in the namespace.
func ipBatch(ctx context.Context, nsPath, batch string) error {
	cmd := exec.CommandContext(ctx, "nsenter", "--net="+nsPath, "ip", "-batch", "-")
	cmd.Stdin = strings.NewReader(batch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip -batch: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// listen opens a TCP listener on every address at port inside the namespace
// at nsPath. The sockets stay in that namespace; the process does not. It
// switches one locked OS thread into the namespace and back; a thread that
// cannot switch back is never unlocked, so the runtime ends it.
func (nw *network) listen(port int) ([]net.Listener, error) {
	type result struct {
		lis []net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		lis, restored, err := nw.listenLocked(port)
		if restored {
			runtime.UnlockOSThread()
		}
		done <- result{lis, err}
	}()
	r := <-done
	return r.lis, r.err
}

func (nw *network) listenLocked(port int) (lis []net.Listener, restored bool, err error) {
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return nil, true, fmt.Errorf("opening this thread's network namespace: %w", err)
	}
	defer self.Close()
	target, err := os.Open(nw.nsPath)
	if err != nil {
		return nil, true, fmt.Errorf("opening the network namespace %s: %w", nw.nsPath, err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("entering the network namespace %s: %w", nw.nsPath, err)
	}
	for _, a := range nw.addrs {
		l, lerr := net.Listen("tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if lerr != nil {
			err = fmt.Errorf("listening on %s:%d in %s: %w", a, port, nw.nsPath, lerr)
			break
		}
		lis = append(lis, l)
	}
	if serr := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); serr != nil {
		err = errors.Join(err, fmt.Errorf("returning to the root network namespace: %w", serr))
		for _, l := range lis {
			_ = l.Close()
		}
		return nil, false, err
	}
	if err != nil {
		for _, l := range lis {
			_ = l.Close()
		}
		return nil, true, err
	}
	return lis, true, nil
}
