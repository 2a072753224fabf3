// Package sourcetest has the test helpers the pod sources' tests share:
// collecting a source's updates, running a source for a test, and bounded
// waits.
package sourcetest

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/merge"
)

// WaitLimit bounds every wait in the sources' tests.
const WaitLimit = 10 * time.Second

// Collector receives a source's updates on Updates.
type Collector struct {
	t       *testing.T
	Updates chan merge.PodUpdate
}

// NewCollector returns a Collector with an unbuffered channel.
func NewCollector(t *testing.T) *Collector {
	return &Collector{t: t, Updates: make(chan merge.PodUpdate)}
}

// Next returns the next update, failing the test after WaitLimit.
func (c *Collector) Next() merge.PodUpdate {
	c.t.Helper()
	select {
	case u := <-c.Updates:
		return u
	case <-time.After(WaitLimit):
		c.t.Fatalf("no update within %v", WaitLimit)
	}
	panic("unreachable")
}

// Until receives updates until one carries exactly the pod names want
// (sorted), and returns it.
func (c *Collector) Until(want ...string) merge.PodUpdate {
	c.t.Helper()
	sort.Strings(want)
	deadline := time.After(WaitLimit)
	var seen [][]string
	for {
		select {
		case u := <-c.Updates:
			got := Names(u)
			if strings.Join(got, ",") == strings.Join(want, ",") {
				return u
			}
			seen = append(seen, got)
		case <-deadline:
			c.t.Fatalf("no update with pods %q within %v; saw %q", want, WaitLimit, seen)
		}
	}
}

// None fails the test if an update is waiting.
func (c *Collector) None() {
	c.t.Helper()
	select {
	case u := <-c.Updates:
		c.t.Errorf("unexpected update with pods %q", Names(u))
	default:
	}
}

// Names returns the sorted pod names of an update.
func Names(u merge.PodUpdate) []string {
	out := make([]string, 0, len(u.Pods))
	for _, p := range u.Pods {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// ByName returns values, one per pod of u (its Fingerprints or its
// Origins, named what), keyed by pod name; the test fails when their
// number is not the pods'.
func ByName(t testing.TB, u merge.PodUpdate, what string, values []string) map[string]string {
	t.Helper()
	if len(values) != len(u.Pods) {
		t.Fatalf("%d %s for %d pods", len(values), what, len(u.Pods))
	}
	out := map[string]string{}
	for i, p := range u.Pods {
		out[p.Name] = values[i]
	}
	return out
}

// Run runs a source until the test ends, and fails the test when it does
// not stop within WaitLimit of its context ending.
func Run(t *testing.T, run func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(WaitLimit):
			t.Errorf("source did not stop within %v of its context ending", WaitLimit)
		}
	})
}

// Eventually waits until cond holds, failing the test after WaitLimit.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, WaitLimit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
