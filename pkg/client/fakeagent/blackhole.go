package fakeagent

import (
	"fmt"
	"net"
	"syscall"
)

// Blackhole is a loopback address whose connections never complete: a
// listener that accepts nothing, its one-connection queue filled, so that
// the kernel leaves every further connection attempt unanswered, as a node
// that is down or firewalled does. It stands for a node that hangs at the
// dial.
type Blackhole struct {
	// Addr is host:port.
	Addr string
	fd   int
	fill net.Conn
}

// NewBlackhole listens on loopback without accepting and fills the queue.
func NewBlackhole() (*Blackhole, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("making a socket: %w", err)
	}
	b := &Blackhole{fd: fd}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		b.Close()
		return nil, fmt.Errorf("binding to loopback: %w", err)
	}
	// A backlog of 0 queues one connection; the kernel drops the SYNs of
	// the others while it is queued.
	if err := syscall.Listen(fd, 0); err != nil {
		b.Close()
		return nil, fmt.Errorf("listening: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("reading the listener's address: %w", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		b.Close()
		return nil, fmt.Errorf("the listener's address %v is not IPv4", sa)
	}
	b.Addr = net.JoinHostPort("127.0.0.1", fmt.Sprint(in4.Port))
	if b.fill, err = net.Dial("tcp", b.Addr); err != nil {
		b.Close()
		return nil, fmt.Errorf("filling the listener's queue: %w", err)
	}
	return b, nil
}

// Close closes the queued connection and the listener.
func (b *Blackhole) Close() {
	if b.fill != nil {
		b.fill.Close()
	}
	syscall.Close(b.fd)
}
