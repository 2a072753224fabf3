package agent

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/redact/redacttest"
)

// TestServedPodsHoldOnlyTheProjection checks the agent's conversions
// (convert.go, --expose-pod-specs), not the projection itself, which
// pkg/redact tests: it plants a unique secret in every string, map and
// slice of a pod's metadata, spec and status (found by reflection, so
// fields a later k8s.io/api adds are covered too), serves the pod from a
// static pod manifest through the agent, and reads every endpoint and the
// stream: only the projection's fields may show, and they do.
func TestServedPodsHoldOnlyTheProjection(t *testing.T) {
	pl := redacttest.NewPlanter(t)
	pod := pl.PlantPod()
	manifest, err := yaml.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}

	ta := startAgent(t, nil)
	stream := ta.stream(t, "?since=0")
	ta.writeManifest(t, "planted.yaml", string(manifest))
	info := ta.staticPod(t, pod.Name+"-node-1")
	// Read the stream up to the config event of the pod.
	var lines []string
	for {
		m := stream.NextOf(t)
		line, _ := yaml.Marshal(m)
		lines = append(lines, string(line))
		if m.Event != nil && m.Event.Kind == v1alpha1.EventKindConfig && slices.ContainsFunc(m.Event.Pods, func(r v1alpha1.PodRef) bool { return r.UID == info.UID }) {
			break
		}
	}
	snapshot := ta.stream(t, "?snapshot=true")
	line, _ := yaml.Marshal(snapshot.Next(t))

	bodies := map[string]string{"the stream": strings.Join(lines, ""), "the snapshot": string(line)}
	for _, path := range []string{"/api/v1alpha1/sources", "/api/v1alpha1/pods", "/api/v1alpha1/pods/" + string(info.UID), "/api/v1alpha1/pleg", v1alpha1.KubeletConfigPath, "/metrics", "/version"} {
		_, body := ta.get(t, path)
		bodies[path] = string(body)
	}
	allowed := redacttest.Served()
	for secret, path := range pl.Secrets {
		if allowed[path] {
			continue
		}
		for where, body := range bodies {
			if strings.Contains(body, secret) {
				t.Errorf("%s shows %s, which is not on the projection's list", where, path)
			}
		}
	}
	// The projection serves what it lists (the decoder sets nodeName and
	// the UID, and a probe's port that is a name stays one).
	one := bodies["/api/v1alpha1/pods/"+string(info.UID)]
	for secret, path := range pl.Secrets {
		if allowed[path] && !strings.Contains(one, secret) {
			t.Errorf("the pod's projection lacks %s", path)
		}
	}
	var got v1alpha1.PodInfo
	ta.getJSON(t, "/api/v1alpha1/pods/"+string(info.UID), &got)
	vol := got.Pod.Spec.Volumes
	if len(vol) != 1 || vol[0].HostPath == nil || vol[0].HostPath.Path != "" || got.Pod.Spec.Containers[0].LivenessProbe.Exec == nil {
		t.Errorf("volume types and probe kinds are not kept: %+v %+v", vol, got.Pod.Spec.Containers[0].LivenessProbe)
	}

	// --expose-pod-specs serves the pod in full.
	exposed := startAgent(t, func(c *Config) { c.ExposePodSpecs = true })
	exposed.writeManifest(t, "planted.yaml", string(manifest))
	p := exposed.staticPod(t, pod.Name+"-node-1")
	_, full := exposed.get(t, "/api/v1alpha1/pods/"+string(p.UID))
	for _, path := range []string{".spec.containers[].command[]", ".spec.containers[].env[].value", ".status.message"} {
		if s := redacttest.SecretAt(pl.Secrets, path); !strings.Contains(string(full), s) {
			t.Errorf("--expose-pod-specs does not serve %s", path)
		}
	}
}
