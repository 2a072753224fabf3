package cli

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	tracingapi "k8s.io/component-base/tracing/api/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/archive/archivetest"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/redact/redacttest"
)

// TestRecordHoldsNoPlantedSecret records a fake agent that serves what
// the agent serves by default of a pod with a secret in every field (its
// projection, redact.Pod) and of a kubelet configuration with credentials
// (redact.KubeletConfig): no secret the agent does not serve is in any
// byte of the archive, and those it serves are, where the archive keeps
// the agent's answers. The e2e tests plant secrets on a real node.
func TestRecordHoldsNoPlantedSecret(t *testing.T) {
	pl := redacttest.NewPlanter(t)
	pod := pl.PlantPod()
	// As the agent's decoder sets them.
	pod.UID, pod.Spec.NodeName = "uid-planted", "node-1"
	decoded := map[string]bool{".metadata.uid": true, ".spec.nodeName": true}
	const credential = "kubelet-c0ffee-credential"
	endpoint := "user:" + credential + "@collector:4317"
	kc := &kubeletv1beta1.KubeletConfiguration{
		StaticPodPath:      "/etc/kubernetes/manifests",
		StaticPodURL:       "https://user:" + credential + "@10.0.0.1/pods?token=" + credential,
		StaticPodURLHeader: map[string][]string{"Authorization": {"Bearer " + credential}},
		Tracing:            &tracingapi.TracingConfiguration{Endpoint: &endpoint},
	}

	fa := fakeagent.New("node-1")
	fa.KubeletConfig.Config = redact.KubeletConfig(kc)
	fa.Pods.Items = []v1alpha1.PodInfo{{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, Labels: pod.Labels, Source: v1alpha1.SourceFile, Static: true, Pod: redact.Pod(pod)}}
	fa.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "ADD", Source: v1alpha1.SourceFile,
		Pods: []v1alpha1.PodRef{{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, Labels: pod.Labels}}})
	api := serveUntilCleanup(t, &fakeAPIServer{agents: map[string]string{"node-1": serveUntilCleanup(t, fa)}, nodes: []string{"node-1"}})
	file := filepath.Join(t.TempDir(), "node-1.tar.gz")
	if _, errOut, err := run(t, context.Background(), "--kubeconfig", kubeconfig(t, api), "record", "node-1", "-o", file); err != nil {
		t.Fatalf("record: %v, stderr:\n%s", err, errOut)
	}

	served := redacttest.Served()
	notServed := []string{credential}
	for secret, path := range pl.Secrets {
		if !served[path] && !decoded[path] {
			notServed = append(notServed, secret)
		}
	}
	sort.Strings(notServed)
	found, err := archivetest.Find(file, notServed)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("the archive holds a secret the agent does not serve: %s", f)
	}
	// The search finds what is there: the projection's fields.
	for _, path := range []string{".metadata.name", ".spec.containers[].image"} {
		if found, err := archivetest.Find(file, []string{redacttest.SecretAt(pl.Secrets, path)}); err != nil || len(found) == 0 {
			t.Errorf("the archive lacks the pod's %s, which the agent serves: %v", path, err)
		}
	}
}
