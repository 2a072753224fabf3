package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testServedProjection creates an API pod with secrets where the projection
// leaves them out and reads it through the API server's node proxy: the
// agent serves its identity, image and probe kinds, and none of the
// secrets.
func testServedProjection(t *testing.T, e *env) {
	a := e.agent(t)
	pod := apiPod(e.c, "e2e-secrets", corev1.RestartPolicyAlways, "-sleep", "0", "-message", "args-c0ffee")
	pod.Annotations = map[string]string{"team": "annotation-c0ffee"}
	ctr := &pod.Spec.Containers[0]
	ctr.Env = []corev1.EnvVar{{Name: "DB_URL", Value: "postgres://u:env-c0ffee@db/x"}}
	ctr.LivenessProbe = &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true", "probe-c0ffee"}}},
		PeriodSeconds: 60,
	}
	pods := e.c.Client.CoreV1().Pods(agentTestNS)
	p, err := pods.Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		grace := int64(0)
		_ = pods.Delete(context.Background(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	})

	var served string
	e.pollFor(t, "the agent serving e2e-secrets", pollTimeout, func(ctx context.Context) (bool, string, error) {
		info, err := a.Pod(ctx, string(p.UID))
		if err != nil {
			return false, "", err
		}
		b, err := json.Marshal(info)
		served = string(b)
		return err == nil && info.Pod != nil, fmt.Sprintf("%.300s", served), err
	})
	for _, s := range []string{"args-c0ffee", "annotation-c0ffee", "env-c0ffee", "probe-c0ffee"} {
		if strings.Contains(served, s) {
			t.Errorf("the agent serves %s: %s", s, served)
		}
	}
	if !strings.Contains(served, `"image":"`+e.c.TestImage+`"`) || !strings.Contains(served, `"livenessProbe":{"exec":{}`) || !strings.Contains(served, `"e2e":"one"`) {
		t.Errorf("the projection lacks the image, the probe's kind or the labels: %s", served)
	}
}
