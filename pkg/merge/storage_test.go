package merge

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
)

func testPod(name, namespace, uid, image string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID(uid)},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: image}}},
	}
}

func mustMerge(t *testing.T, cfg *PodConfig, source string, u PodUpdate) []PodUpdate {
	t.Helper()
	if err := cfg.store.merge(context.Background(), source, u); err != nil {
		t.Fatal(err)
	}
	return drain(cfg.Updates())
}

func ops(us []PodUpdate) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = fmt.Sprintf("%s:%d", u.Op, len(u.Pods))
	}
	return out
}

func TestFingerprintSkipsComparison(t *testing.T) {
	tests := []struct {
		name         string
		fingerprints [2]string
		want         []string
	}{
		{name: "no fingerprints compare the pods", want: []string{"UPDATE:1"}},
		{name: "different fingerprints compare the pods", fingerprints: [2]string{"rv:1", "rv:2"}, want: []string{"UPDATE:1"}},
		// A source that breaks its promise shows that the comparison was skipped.
		{name: "equal fingerprints skip the comparison", fingerprints: [2]string{"rv:1", "rv:1"}, want: []string{}},
		{name: "a first empty fingerprint is never trusted", fingerprints: [2]string{"", ""}, want: []string{"UPDATE:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := New(Options{})
			u := PodUpdate{Op: Set, Pods: []*v1.Pod{testPod("web", "default", "u1", "app:1")}}
			if tt.fingerprints[0] != "" {
				u.Fingerprints = []string{tt.fingerprints[0]}
			}
			mustMerge(t, cfg, "api", u)
			u = PodUpdate{Op: Set, Pods: []*v1.Pod{testPod("web", "default", "u1", "app:2")}}
			if tt.fingerprints[1] != "" {
				u.Fingerprints = []string{tt.fingerprints[1]}
			}
			got := ops(mustMerge(t, cfg, "api", u))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEmittedPodsAreNeverChanged follows one pod through every kind of
// change: the storage replaces what it stores and never changes a pod it
// has emitted, so the consumer may keep emitted pods without copying them.
func TestEmittedPodsAreNeverChanged(t *testing.T) {
	cfg := New(Options{})
	web := testPod("web", "default", "u1", "app:1")
	reconciled := web.DeepCopy()
	reconciled.Status.Phase = v1.PodRunning
	updated := reconciled.DeepCopy()
	updated.Spec.Containers[0].Image = "app:2"
	updated.Labels = map[string]string{"v": "2"}
	deleted := updated.DeepCopy()
	deleted.DeletionTimestamp = &metav1.Time{Time: time.Unix(1700000000, 0)}
	var emitted []*v1.Pod
	for _, p := range []*v1.Pod{web, reconciled, updated, deleted} {
		for _, u := range mustMerge(t, cfg, "file", PodUpdate{Op: Set, Pods: []*v1.Pod{p}}) {
			emitted = append(emitted, u.Pods...)
		}
	}
	if len(emitted) != 4 {
		t.Fatalf("emitted %d pods, want an ADD, a RECONCILE, an UPDATE and a DELETE", len(emitted))
	}
	want := []*v1.Pod{emitted[0].DeepCopy(), emitted[1].DeepCopy(), emitted[2].DeepCopy(), emitted[3].DeepCopy()}
	// Later merges do not reach back into what was emitted.
	mustMerge(t, cfg, "file", PodUpdate{Op: Set, Pods: []*v1.Pod{web}})
	mustMerge(t, cfg, "file", PodUpdate{Op: Set, Pods: []*v1.Pod{}})
	for i, p := range emitted {
		if diff := cmp.Diff(want[i], p); diff != "" {
			t.Errorf("emitted pod %d changed after later merges (-emitted +now):\n%s", i, diff)
		}
	}
	if got := emitted[2].Annotations[ConfigSeenAnnotation]; got != emitted[0].Annotations[ConfigSeenAnnotation] || got == "" {
		t.Errorf("the update's first-seen time is %q, the add's %q", got, emitted[0].Annotations[ConfigSeenAnnotation])
	}
}

// TestInputPodsAreSharedNotChanged sends the same pod objects through every
// path of a merge (new, changed, unchanged by fingerprint, compared and
// equal, duplicate name): the merge changes none of them, and what it
// stores shares the sources' specs instead of copying them.
func TestInputPodsAreSharedNotChanged(t *testing.T) {
	web := testPod("web", "default", "u1", "app:1")
	db := testPod("db", "default", "u2", "db:1")
	dup := testPod("web", "default", "u3", "app:1")
	webV2 := testPod("web", "default", "u1", "app:2")
	steps := []PodUpdate{
		{Op: Set, Pods: []*v1.Pod{web, db}, Fingerprints: []string{"1", ""}},
		{Op: Set, Pods: []*v1.Pod{web, db, dup}, Fingerprints: []string{"1", "", ""}},
		{Op: Set, Pods: []*v1.Pod{webV2, db}, Fingerprints: []string{"2", ""}},
	}
	before := make(map[*v1.Pod]*v1.Pod)
	for _, p := range []*v1.Pod{web, db, dup, webV2} {
		before[p] = p.DeepCopy()
	}
	cfg := New(Options{})
	var emitted []PodUpdate
	for _, u := range steps {
		emitted = append(emitted, mustMerge(t, cfg, "api", u)...)
	}
	if got, want := ops(emitted), []string{"ADD:2", "UPDATE:1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
	for p, orig := range before {
		if !reflect.DeepEqual(p, orig) {
			t.Errorf("the merge changed input pod %s (%s): annotations %v", p.Name, p.UID, p.Annotations)
		}
	}
	sources := map[types.UID]*v1.Pod{"u1": webV2, "u2": db}
	for _, p := range cfg.store.sourcePods("api") {
		if &p.Spec.Containers[0] != &sources[p.UID].Spec.Containers[0] {
			t.Errorf("the storage holds a copy of pod %s's spec, not the source's", p.Name)
		}
		if p.Annotations[ConfigSourceAnnotation] != "api" {
			t.Errorf("stored pod %s has annotations %v", p.Name, p.Annotations)
		}
	}
}

func TestDuplicateFullNames(t *testing.T) {
	tests := []struct {
		name    string
		pods    []*v1.Pod
		adds    int
		dropped int
	}{
		{name: "same name and namespace", pods: []*v1.Pod{testPod("web", "default", "u1", "a"), testPod("web", "default", "u2", "a")}, adds: 1, dropped: 1},
		{name: "same name other namespace", pods: []*v1.Pod{testPod("web", "default", "u1", "a"), testPod("web", "other", "u2", "a")}, adds: 2},
		// The kubelet joins name and namespace with an underscore, so these collide.
		{name: "underscores make full names collide", pods: []*v1.Pod{testPod("a_b", "c", "u1", "a"), testPod("a", "b_c", "u2", "a")}, adds: 1, dropped: 1},
		{name: "one underscore never collides with none", pods: []*v1.Pod{testPod("a_b", "c", "u1", "a"), testPod("a", "b", "u2", "a"), testPod("b", "c", "u3", "a")}, adds: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			cfg := New(Options{EventRecorder: rec})
			out := mustMerge(t, cfg, "api", PodUpdate{Op: Set, Pods: tt.pods})
			if len(out) != 1 || out[0].Op != Add || len(out[0].Pods) != tt.adds {
				t.Fatalf("got %v, want one ADD of %d pods", ops(out), tt.adds)
			}
			if n := len(drainEvents(rec.Events)); n != tt.dropped {
				t.Fatalf("%d events, want %d", n, tt.dropped)
			}
		})
	}
}

func TestUnreadOutputDoesNotDeadlock(t *testing.T) {
	cfg := New(Options{Buffer: 1})
	ctx, cancel := context.WithCancel(context.Background())
	ch := cfg.Channel(ctx, "api")
	// The first update fills the buffer; the second blocks in the merge.
	for i := range 2 {
		ch <- PodUpdate{Op: Add, Pods: []*v1.Pod{testPod(fmt.Sprint("p", i), "default", fmt.Sprint("u", i), "a")}}
	}
	done := make(chan error, 1)
	go func() {
		done <- cfg.store.merge(ctx, "api", PodUpdate{Op: Add, Pods: []*v1.Pod{testPod("p9", "default", "u9", "a")}})
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("merge returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("merge still blocked on the unread output after the context ended")
	}
}

// TestConcurrentSources merges several sources at once through their
// channels while readers look at the storage; run it with -race.
func TestConcurrentSources(t *testing.T) {
	const sources, rounds, podsPerSource = 4, 50, 20
	cfg := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	counts := make(chan map[Op]int)
	go func() {
		c := map[Op]int{}
		expectAdds := sources * podsPerSource
		for u := range cfg.Updates() {
			c[u.Op] += len(u.Pods)
			if c[Add] == expectAdds && c[Remove] == expectAdds {
				counts <- c
				return
			}
		}
	}()

	var readers, writers sync.WaitGroup
	stop := make(chan struct{})
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_ = cfg.Stats()
				_ = cfg.store.mergedState()
				_ = cfg.Ready()
			}
		}
	}()
	for s := range sources {
		name := fmt.Sprint("src", s)
		ch := cfg.Channel(ctx, name)
		writers.Add(1)
		go func() {
			defer writers.Done()
			for r := range rounds {
				pods := make([]*v1.Pod, podsPerSource)
				for i := range pods {
					pods[i] = testPod(fmt.Sprint("p", i), name, fmt.Sprintf("%s-u%d", name, i), fmt.Sprint("img:", r))
				}
				ch <- PodUpdate{Op: Set, Pods: pods}
			}
			ch <- PodUpdate{Op: Set}
		}()
	}
	writers.Wait()
	var c map[Op]int
	select {
	case c = <-counts:
	case <-time.After(30 * time.Second):
		t.Fatal("the merged output never showed every pod added and removed")
	}
	close(stop)
	readers.Wait()
	if want := sources * podsPerSource * (rounds - 1); c[Update] != want {
		t.Fatalf("%d pods updated, want %d", c[Update], want)
	}
	if !cfg.Ready() {
		t.Fatal("not ready after every source sent a SET")
	}
	for _, st := range cfg.Stats() {
		if st.Updates != rounds+1 || st.Pods != 0 || !st.Seen {
			t.Fatalf("stats of %s: %+v", st.Source, st)
		}
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{in: "incremental", want: Incremental},
		{in: "snapshot-and-updates", want: SnapshotAndUpdates},
		{in: "snapshot", want: Snapshot},
		{in: "Incremental", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMode(tt.in)
			if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
				t.Fatalf("ParseMode(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}

func TestLabelsEqualIsDeepEqual(t *testing.T) {
	maps := []map[string]string{nil, {}, {"a": "1"}, {"a": "2"}, {"b": "1"}, {"a": "1", "b": "1"}, {"a": ""}}
	for _, x := range maps {
		for _, y := range maps {
			if got, want := labelsEqual(x, y), reflect.DeepEqual(x, y); got != want {
				t.Errorf("labelsEqual(%#v, %#v) = %v, reflect.DeepEqual says %v", x, y, got, want)
			}
		}
	}
}

// sourcePods returns one source's pods, as the storage holds them.
func (s *storage) sourcePods(source string) []*v1.Pod {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*v1.Pod, 0, len(s.pods[source]))
	for _, e := range s.pods[source] {
		out = append(out, e.pod)
	}
	return out
}

// mergedState returns every source's pods, as the storage holds them.
func (s *storage) mergedState() []*v1.Pod {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return notification(Set, "", s.mergedLocked()).Pods
}
