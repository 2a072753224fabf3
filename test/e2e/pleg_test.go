package e2e

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func testPLEG(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	ctx := context.Background()
	mark := e.rec.mark()
	p, err := c.Client.CoreV1().Pods(agentTestNS).Create(ctx, apiPod(c, "e2e-exit", corev1.RestartPolicyNever, "-sleep", "2s", "-exit", "7"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uid := p.UID
	started := e.waitEvent(t, mark, "PLEG ContainerStarted of e2e-exit", func(ev *v1alpha1.Event) bool {
		return ev.Kind == v1alpha1.EventKindPLEG && ev.PodUID == uid && ev.Type == "ContainerStarted" && !ev.Sandbox
	})
	if started.KubeletSends == nil || !*started.KubeletSends {
		t.Errorf("ContainerStarted is marked as not sent by the kubelet: %+v", started)
	}
	died := e.waitEvent(t, mark, "PLEG ContainerDied of e2e-exit", func(ev *v1alpha1.Event) bool {
		return ev.Kind == v1alpha1.EventKindPLEG && ev.PodUID == uid && ev.Type == "ContainerDied" && ev.Data == started.Data
	})
	if died.ExitCode == nil || *died.ExitCode != 7 {
		t.Errorf("ContainerDied of e2e-exit has exit code %s, want 7", ptrInt(died.ExitCode))
	}

	// pods joins the API pod with the runtime's view of it, in one row.
	e.pollFor(t, "one row of e2e-exit joining the api pod and its exited container", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		var rows []v1alpha1.PodInfo
		for _, p := range l.Items {
			if p.UID == uid || (p.Namespace == agentTestNS && p.Name == "e2e-exit") {
				rows = append(rows, p)
			}
		}
		if len(rows) != 1 || rows[0].Source != v1alpha1.SourceAPI || rows[0].Runtime == nil {
			return false, describePods(rows), nil
		}
		for _, ctr := range rows[0].Runtime.Containers {
			if ctr.Name == "main" && ctr.ExitCode == 7 && ctr.State != "" && ctr.FinishedAt != nil {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("%s containers %+v", describePods(rows), rows[0].Runtime.Containers), nil
	})

	st, err := a.PLEG(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Enabled || !st.Healthy || st.RuntimeEndpoint == "" {
		t.Errorf("PLEG status: enabled=%v healthy=%v endpoint=%q message=%q", st.Enabled, st.Healthy, st.RuntimeEndpoint, st.Message)
	}
}
