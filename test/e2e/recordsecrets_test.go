package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/archive/archivetest"
)

// plantRecordSecrets runs a static pod and an API pod, each with a
// distinct secret wherever the agent's defaults keep it from being
// served: a container's env value, its command and its args (an argument
// the test image ignores), an annotation of another than the kubelet, and
// a header and a query value of its httpGet probe, which never runs; and a
// static pod manifest the kubelet rejects, with the same secrets. It waits
// until the agent has both pods running, and the static pod's mirror, and
// lists the rejected manifest, so that a recording holds them as they
// stay; the pods and manifests go when the test ends. It returns the
// secrets.
func plantRecordSecrets(t *testing.T, e *env) []string {
	t.Helper()
	c := e.c
	var secrets []string
	planted := func(name, prefix string) *corev1.Pod {
		secret := func(where string) string {
			s := plantedSecret(prefix + "-" + where)
			secrets = append(secrets, s)
			return s
		}
		pod := apiPod(c, name, corev1.RestartPolicyAlways, "-sleep", "0", secret("args"))
		pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		pod.Labels, pod.Annotations = map[string]string{"e2e": "planted"}, map[string]string{"team": secret("annotation")}
		ctr := &pod.Spec.Containers[0]
		ctr.Command = []string{"/testimg", "-message", secret("command")}
		ctr.Env = []corev1.EnvVar{{Name: "DB_URL", Value: secret("env")}}
		ctr.LivenessProbe = &corev1.Probe{InitialDelaySeconds: 3600, PeriodSeconds: 3600, ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/healthz?token=" + secret("probe-query"), Port: intstr.FromInt32(8080),
			HTTPHeaders: []corev1.HTTPHeader{{Name: "Authorization", Value: secret("probe-header")}},
		}}}
		return pod
	}
	manifest, err := yaml.Marshal(planted("e2e-planted", "manifest"))
	if err != nil {
		t.Fatal(err)
	}
	c.WriteStaticPod(t, "e2e-planted.yaml", manifest)
	// A manifest the kubelet rejects, whose decoding error would quote it.
	rejected, err := json.Marshal(planted("e2e-planted-rejected", "rejected-manifest"))
	if err != nil {
		t.Fatal(err)
	}
	rejected = bytes.Replace(rejected, []byte(`"imagePullPolicy":"Never"`), []byte(`"imagePullPolicy":"Never","ports":[{"containerPort":"not-a-number"}]`), 1)
	rejectedPath := c.WriteStaticPod(t, "e2e-planted-rejected.yaml", rejected)
	pod := planted("e2e-planted-api", "api")
	pods := c.Client.CoreV1().Pods(agentTestNS)
	if _, err := pods.Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		grace := int64(0)
		_ = pods.Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	})

	a := e.agent(t)
	static := "e2e-planted-" + c.NodeName
	e.pollFor(t, "the agent to run "+static+", its mirror pod and e2e-planted-api, and reject "+rejectedPath, pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		sl, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		var rejectedSeen bool
		if f := findSource(*sl, v1alpha1.SourceFile); f != nil {
			rejectedSeen = slices.ContainsFunc(f.RejectedFiles, func(r v1alpha1.RejectedFile) bool { return r.Path == rejectedPath })
		}
		running := func(p v1alpha1.PodInfo) bool {
			return p.Runtime != nil && len(p.Runtime.Containers) == 1 && p.Runtime.Containers[0].State == v1alpha1.ContainerRunning
		}
		var file, mirror, api bool
		for _, p := range podsNamed(l, agentTestNS, static) {
			file = file || (p.Source == v1alpha1.SourceFile && running(p))
			mirror = mirror || p.Mirror
		}
		for _, p := range podsNamed(l, agentTestNS, pod.Name) {
			api = api || (p.Source == v1alpha1.SourceAPI && running(p))
		}
		return file && mirror && api && rejectedSeen, fmt.Sprintf("%s rejected: %v; ", rejectedPath, rejectedSeen) + describePods(append(podsNamed(l, agentTestNS, static), podsNamed(l, agentTestNS, pod.Name)...)), nil
	})
	return secrets
}

// plantedSecret returns the secret planted at where: letters, digits and
// dashes, which JSON does not escape, distinct from any other string.
func plantedSecret(where string) string { return "recsecret-" + where + "-5e7a1d" }

// checkNoSecret fails t for each of secrets that shows anywhere in the
// archive at file: in any byte of any member, the manifest and the tar
// headers, as it is or encoded (archivetest.Find).
func checkNoSecret(t *testing.T, file string, secrets []string) {
	t.Helper()
	found, err := archivetest.Find(file, secrets)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("an archive recorded without --expose-pod-specs holds the planted secret %s", f)
	}
}
