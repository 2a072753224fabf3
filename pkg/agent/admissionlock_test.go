package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// heldAdmitHandler admits a pod once the test lets it, and says when it starts
// judging one.
type heldAdmitHandler struct {
	judging chan string
	release chan struct{}
}

func (h heldAdmitHandler) Admit(in admission.AdmitAttributes) admission.AdmitResult {
	h.judging <- in.Pod.Name
	<-h.release
	return admission.AdmitResult{Admit: true}
}

// TestJudgingHoldsNoViewLock holds the admit handlers in the middle of an
// ADD and expects the agent to keep serving its view meanwhile (the pod
// list, which takes the sync loop's viewMu), without the pod being judged, which enters
// the view only with its verdict.
func TestJudgingHoldsNoViewLock(t *testing.T) {
	h := heldAdmitHandler{judging: make(chan string, 1), release: make(chan struct{})}
	ta := startAgent(t, func(c *Config) { c.Admission = h })
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(h.release) }) })
	ta.nodeChanged(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}})
	ta.writeManifest(t, "web.yaml", webManifest)
	select {
	case name := <-h.judging:
		if name != "web-node-1" {
			t.Fatalf("judging %s, want web-node-1", name)
		}
	case <-time.After(waitLimit):
		t.Fatal("the ADD was never judged")
	}
	listed := make(chan error, 1)
	go func() {
		resp, err := http.Get(ta.url + v1alpha1.PodsPath)
		if err == nil {
			var list v1alpha1.PodList
			err = json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
			for _, p := range list.Items {
				if p.Name == "web-node-1" {
					err = fmt.Errorf("the pod being judged is listed, with admission %+v", p.Admission)
				}
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
	release.Do(func() { close(h.release) })
	pod := ta.staticPod(t, "web-node-1")
	if pod.Admission == nil || !pod.Admission.Admitted {
		t.Errorf("admission %+v, want admitted", pod.Admission)
	}
}
