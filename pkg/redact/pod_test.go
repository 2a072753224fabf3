package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/redact/redacttest"
)

// TestPodHoldsOnlyTheProjection plants a unique secret in every string,
// map and slice of a pod's metadata, spec and status and projects it: only
// the fields on the projection's list may show, and they do; volume types
// and probe kinds are kept without their content; the pod projected is
// left as it was.
func TestPodHoldsOnlyTheProjection(t *testing.T) {
	pl := redacttest.NewPlanter(t)
	pod := pl.PlantPod()
	before, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	projected := Pod(pod)
	raw, err := json.Marshal(projected)
	if err != nil {
		t.Fatal(err)
	}
	body := string(raw)
	allowed := redacttest.Served()
	// The projection keeps the UID and the node's name, which the agent's
	// decoder sets (so that Served does not list them).
	allowed[".metadata.uid"] = true
	allowed[".spec.nodeName"] = true
	for secret, path := range pl.Secrets {
		if shown := strings.Contains(body, secret); shown != allowed[path] {
			t.Errorf("%s: shown %v, on the projection's list %v", path, shown, allowed[path])
		}
	}
	vol := projected.Spec.Volumes
	if len(vol) != 1 || vol[0].HostPath == nil || vol[0].HostPath.Path != "" || projected.Spec.Containers[0].LivenessProbe.Exec == nil {
		t.Errorf("volume types and probe kinds are not kept: %+v %+v", vol, projected.Spec.Containers[0].LivenessProbe)
	}
	if after, _ := json.Marshal(pod); string(after) != string(before) {
		t.Error("Pod changed the pod it projected")
	}
}
