package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/merge"
)

// waitLimit bounds every wait in these tests.
const waitLimit = 10 * time.Second

// fakeDecoder stands in for the kubelet decoder in unit tests. A manifest is
// "pod <name>" (optionally followed by more words, which change the UID);
// anything else is rejected. A URL body is one or more such lines.
type fakeDecoder struct{}

func (fakeDecoder) KubeletVersion() string { return "v0.0.0-fake" }

func (fakeDecoder) DecodeFile(data []byte, hostPath, nodeName string) (*v1.Pod, error) {
	return fakePod(strings.TrimSpace(string(data)), "file:"+hostPath, nodeName)
}

func (fakeDecoder) DecodeURL(data []byte, url, nodeName string) ([]*v1.Pod, error) {
	var pods []*v1.Pod
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		p, err := fakePod(line, "url:"+url, nodeName)
		if err != nil {
			// As the kubelet's message, it quotes the URL and the body.
			return nil, fmt.Errorf("%s: received '%s', but couldn't parse as single or multiple pods (%w)", url, data, err)
		}
		pods = append(pods, p)
	}
	return pods, nil
}

func fakePod(text, origin, nodeName string) (*v1.Pod, error) {
	fields := strings.Fields(text)
	if len(fields) < 2 || fields[0] != "pod" {
		return nil, errors.New("invalid pod: not a fake manifest")
	}
	sum := sha256.Sum256([]byte(text + "\x00" + origin))
	uid := hex.EncodeToString(sum[:16])
	return &v1.Pod{
		ObjectMeta: metav1ObjectMeta(fields[1]+"-"+strings.ToLower(nodeName), uid, origin),
		Spec:       v1.PodSpec{NodeName: nodeName},
		Status:     v1.PodStatus{Phase: v1.PodPending},
	}, nil
}

func metav1ObjectMeta(name, uid, origin string) (m metav1.ObjectMeta) {
	m.Name = name
	m.Namespace = "default"
	m.UID = types.UID(uid)
	m.Annotations = map[string]string{"kubernetes.io/config.hash": uid, "test/origin": origin}
	return m
}

// collector receives a source's updates.
type collector struct {
	t       *testing.T
	updates chan merge.PodUpdate
	last    *merge.PodUpdate
	count   int
}

func newCollector(t *testing.T) *collector {
	return &collector{t: t, updates: make(chan merge.PodUpdate)}
}

// next returns the next update, failing the test after waitLimit.
func (c *collector) next() merge.PodUpdate {
	c.t.Helper()
	select {
	case u := <-c.updates:
		c.last = &u
		c.count++
		return u
	case <-time.After(waitLimit):
		c.t.Fatalf("no update within %v", waitLimit)
	}
	panic("unreachable")
}

// until receives updates until one carries exactly the pod names want
// (sorted), and returns it.
func (c *collector) until(want ...string) merge.PodUpdate {
	c.t.Helper()
	sort.Strings(want)
	deadline := time.After(waitLimit)
	var seen [][]string
	for {
		select {
		case u := <-c.updates:
			c.last = &u
			c.count++
			got := names(u)
			if strings.Join(got, ",") == strings.Join(want, ",") {
				return u
			}
			seen = append(seen, got)
		case <-deadline:
			c.t.Fatalf("no update with pods %q within %v; saw %q", want, waitLimit, seen)
		}
	}
}

// names returns the sorted pod names of an update.
func names(u merge.PodUpdate) []string {
	out := make([]string, 0, len(u.Pods))
	for _, p := range u.Pods {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// runSource runs fn until the test ends.
func runSource(t *testing.T, run func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitLimit):
			t.Errorf("source did not stop within %v of its context ending", waitLimit)
		}
	})
}

// eventually waits until cond holds, polling the source's status.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, waitLimit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
