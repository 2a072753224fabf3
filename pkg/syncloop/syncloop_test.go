package syncloop

import (
	"fmt"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// TestSyncLoopMeetsBothSides follows a static pod through the sync loop:
// its ADD is judged once and enters the view with its verdict and the
// origin the merge carried; a PLEG event of the pod goes to HandlePodSyncs
// with the pod's labels while the view has it, and is ignored once it was
// removed.
func TestSyncLoopMeetsBothSides(t *testing.T) {
	ring := eventring.New(16, nil)
	var published []v1alpha1.Event
	var judged int
	l := New(Options{
		Ring:       ring,
		Dispatcher: NewDispatcher(SetInvalid, 1),
		Published:  func(e v1alpha1.Event) { published = append(published, e) },
		Judged:     func(map[types.UID]v1alpha1.Admission) { judged++ },
	})
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-node-1", Namespace: "default", UID: "uid-web", Labels: map[string]string{"app": "web"}}}
	const origin = "/etc/kubernetes/manifests/web.yaml"
	add := merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceFile, Pods: []*v1.Pod{web}, Origins: []string{origin}}
	l.HandleConfig(add)

	pods := l.List()
	if len(pods) != 1 || pods[0].Origin != origin || pods[0].Admission == nil || pods[0].Admission.Unknown != unknownNoHandlers {
		t.Fatalf("view after the ADD: %+v, want web with origin %s and an unknown verdict", pods, origin)
	}
	if seq, snap := l.Snapshot(); seq != ring.LastSeq() || len(snap) != 1 {
		t.Fatalf("snapshot at %d of %d pods, want at %d of 1", seq, len(snap), ring.LastSeq())
	}
	if judged != 1 || len(published) != 1 || published[0].Handler != v1alpha1.SyncHandlerPodAdditions || published[0].Pods[0].Admission == nil {
		t.Fatalf("after the ADD: %d judgements, events %+v; want one ADD to HandlePodAdditions with its verdict", judged, published)
	}

	started := pleg.ComputedEvent{PodLifecycleEvent: pleg.PodLifecycleEvent{ID: "uid-web", PodName: "web-node-1", PodNamespace: "default", Type: pleg.ContainerStarted, Data: "c1", KubeletSends: true}, Outcome: pleg.OutcomeSent}
	l.HandleEvent(started)
	if e := published[len(published)-1]; e.Handler != v1alpha1.SyncHandlerPodSyncs || e.Labels["app"] != "web" {
		t.Fatalf("ContainerStarted of a configured pod: %+v, want HandlePodSyncs with its labels", e)
	}

	l.HandleConfig(merge.PodUpdate{Op: merge.Remove, Source: v1alpha1.SourceFile, Pods: []*v1.Pod{web}, Origins: []string{origin}})
	if pods := l.List(); len(pods) != 0 {
		t.Fatalf("view after the REMOVE: %+v, want none", pods)
	}
	if judged != 1 {
		t.Fatalf("%d judgements, want only the ADD's", judged)
	}
	l.HandleEvent(started)
	if e := published[len(published)-1]; e.Handler != v1alpha1.SyncHandlerIgnored || e.Ignored != ignoredNotInPodManager {
		t.Fatalf("ContainerStarted of a removed pod: %+v, want ignored", e)
	}
	if ring.LastSeq() != uint64(len(published)) {
		t.Fatalf("ring at %d, %d events published", ring.LastSeq(), len(published))
	}
}

// TestSetNodeJudgesTheWaitingPods checks that pods added before the node
// get their verdict in the view when it comes.
func TestSetNodeJudgesTheWaitingPods(t *testing.T) {
	l := New(Options{Ring: eventring.New(16, nil), Dispatcher: NewDispatcher(SetInvalid, 1), Admission: roomFor(1)})
	l.HandleConfig(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceAPI, Pods: []*v1.Pod{admissionPod("a", 1, v1.PodStatus{})}})
	if p, _, ok := l.Pod("uid-a"); !ok || p.Admission == nil || p.Admission.Unknown != unknownNoNode {
		t.Fatalf("before the node: %+v, want an unknown verdict", p)
	}
	l.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}})
	if p, _, ok := l.Pod("uid-a"); !ok || p.Admission == nil || !p.Admission.Admitted {
		t.Fatalf("after the node: %+v, want admitted", p)
	}
}

// admitHandlerFunc is an admission.AdmitHandler that is one function.
type admitHandlerFunc func(admission.AdmitAttributes) admission.AdmitResult

func (f admitHandlerFunc) Admit(in admission.AdmitAttributes) admission.AdmitResult { return f(in) }

// TestPLEGEventsPassWhileAnAddIsJudged holds the admit handlers in the
// middle of an ADD and expects a PLEG event to be dispatched and published
// meanwhile, the judged pod not yet in the view: the relist never waits on
// the admit handlers.
func TestPLEGEventsPassWhileAnAddIsJudged(t *testing.T) {
	judging, release := make(chan string, 1), make(chan struct{})
	held := admitHandlerFunc(func(in admission.AdmitAttributes) admission.AdmitResult {
		judging <- in.Pod.Name
		<-release
		return admission.AdmitResult{Admit: true}
	})
	ring := eventring.New(16, nil)
	l := New(Options{Ring: ring, Dispatcher: NewDispatcher(SetInvalid, 1), Admission: held})
	l.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}})
	added := make(chan struct{})
	go func() {
		defer close(added)
		l.HandleConfig(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceAPI, Pods: []*v1.Pod{admissionPod("web", 1, v1.PodStatus{})}})
	}()
	if name := <-judging; name != "web" {
		t.Fatalf("judging %s, want web", name)
	}
	l.HandleEvent(pleg.ComputedEvent{PodLifecycleEvent: pleg.PodLifecycleEvent{ID: "uid-web", PodName: "web", PodNamespace: "default", Type: pleg.ContainerStarted, Data: "c1", KubeletSends: true}, Outcome: pleg.OutcomeSent})
	var b eventring.Batch
	ring.Read(&b, 0, 16)
	if len(b.Events) != 1 || b.Events[0].Kind != v1alpha1.EventKindPLEG || b.Events[0].Ignored != ignoredNotInPodManager {
		t.Fatalf("while the ADD is judged the ring has %+v, want the PLEG event of a pod not in the pod manager yet", b.Events)
	}
	close(release)
	<-added
	if p, _, ok := l.Pod("uid-web"); !ok || p.Admission == nil || !p.Admission.Admitted {
		t.Fatalf("after the ADD: %+v, want web admitted", p)
	}
}

// waitLimit bounds every wait in these tests.
const waitLimit = 20 * time.Second

// TestJudgingHoldsNoViewLock holds the admit handlers in the middle of an
// ADD and expects the view to be listed meanwhile (List takes viewMu),
// without the pod being judged, which enters the view only with its
// verdict.
func TestJudgingHoldsNoViewLock(t *testing.T) {
	judging, release := make(chan string, 1), make(chan struct{})
	held := admitHandlerFunc(func(in admission.AdmitAttributes) admission.AdmitResult {
		judging <- in.Pod.Name
		<-release
		return admission.AdmitResult{Admit: true}
	})
	var releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	l := New(Options{Ring: eventring.New(16, nil), Dispatcher: NewDispatcher(SetInvalid, 1), Admission: held})
	l.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}})
	added := make(chan struct{})
	go func() {
		defer close(added)
		l.HandleConfig(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceFile, Pods: []*v1.Pod{admissionPod("web-node-1", 1, v1.PodStatus{})}})
	}()
	select {
	case name := <-judging:
		if name != "web-node-1" {
			t.Fatalf("judging %s, want web-node-1", name)
		}
	case <-time.After(waitLimit):
		t.Fatal("the ADD was never judged")
	}
	listed := make(chan error, 1)
	go func() {
		var err error
		for _, p := range l.List() {
			if p.Pod.Name == "web-node-1" {
				err = fmt.Errorf("the pod being judged is listed, with admission %+v", p.Admission)
			}
		}
		listed <- err
	}()
	select {
	case err := <-listed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the pod list waited for the judging of an ADD")
	}
	releaseOnce.Do(func() { close(release) })
	<-added
	if p, _, ok := l.Pod("uid-web-node-1"); !ok || p.Admission == nil || !p.Admission.Admitted {
		t.Errorf("admission %+v, want admitted", p.Admission)
	}
}
