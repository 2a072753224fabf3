package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
)

// proxyGet GETs the agent's path with query q through the API server's node
// proxy, as bytes: what crosses the proxy, with no client-side filter.
func (e *env) proxyGet(t *testing.T, path string, q url.Values) (int, []byte) {
	t.Helper()
	hc, err := rest.HTTPClientFor(e.c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	u := fmt.Sprintf("%s/api/v1/nodes/%s:%d/proxy%s?%s", strings.TrimSuffix(e.c.Config.Host, "/"), e.c.NodeName, v1alpha1.DefaultAgentPort, path, q.Encode())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return resp.StatusCode, body
}

// testPodQuery: the deployed agent filters its pod list by namespace and
// label selector itself, so what it leaves out does not cross the API
// server's proxy; it refuses a bad query with a 400 naming the parameter;
// and pods -l/-n print what it sent.
func testPodQuery(t *testing.T, e *env) {
	c := e.c
	// A pod of the test's namespace and label beside the agent's own.
	ctx := context.Background()
	pods := c.Client.CoreV1().Pods(agentTestNS)
	pod := apiPod(c, "e2e-podquery", corev1.RestartPolicyAlways, "-sleep", "0")
	pod.Labels = map[string]string{"e2e": "podquery"}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Errorf("deleting pod %s: %v", pod.Name, err)
		}
		e.pollFor(t, "the agent to drop "+pod.Name, pollTimeout, func(ctx context.Context) (bool, string, error) {
			l, err := e.agent(t).Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceAPI, Pods: []string{agentTestNS + "/" + pod.Name}})
			if err != nil {
				return false, "", err
			}
			return len(l.Items) == 0, describePods(l.Items), nil
		})
	})
	e.pollFor(t, "the agent to list "+pod.Name, pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := e.agent(t).Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		return len(podsNamed(l, agentTestNS, pod.Name)) > 0, describePods(l.Items), nil
	})

	list := func(t *testing.T, q v1alpha1.PodQuery) (v1alpha1.PodList, int) {
		t.Helper()
		code, body := e.proxyGet(t, v1alpha1.PodsPath, q.Encode())
		var l v1alpha1.PodList
		if err := json.Unmarshal(body, &l); err != nil || code != http.StatusOK {
			t.Fatalf("pods?%s through the proxy: %d %v\n%s", q.Encode().Encode(), code, err, body)
		}
		return l, len(body)
	}
	all, allBytes := list(t, v1alpha1.PodQuery{})
	agentSel := labels.SelectorFromSet(labels.Set{client.AgentLabelKey: client.AgentLabelValue})
	for _, tc := range []struct {
		name  string
		query v1alpha1.PodQuery
		keep  func(p v1alpha1.PodInfo) bool
	}{
		{"a namespace", v1alpha1.PodQuery{Namespaces: []string{agentTestNS}},
			func(p v1alpha1.PodInfo) bool { return p.Namespace == agentTestNS }},
		{"a label selector", v1alpha1.PodQuery{Selector: "e2e=podquery"},
			func(p v1alpha1.PodInfo) bool { return p.Labels["e2e"] == "podquery" }},
		{"a namespace and a label selector", v1alpha1.PodQuery{Namespaces: []string{client.AgentNamespace}, Selector: client.AgentSelector},
			func(p v1alpha1.PodInfo) bool {
				return p.Namespace == client.AgentNamespace && agentSel.Matches(labels.Set(p.Labels))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := list(t, tc.query)
			var bad []v1alpha1.PodInfo
			for _, p := range got.Items {
				if !tc.keep(p) {
					bad = append(bad, p)
				}
			}
			if len(got.Items) == 0 || len(got.Items) >= len(all.Items) || len(bad) > 0 || n >= allBytes {
				t.Fatalf("pods?%s: %d of %d pods (%d of %d bytes), of which %d should have been left out: %s",
					tc.query.Encode().Encode(), len(got.Items), len(all.Items), n, allBytes, len(bad), describePods(bad))
			}
			t.Logf("pods?%s: %d of %d pods, %d of %d bytes through the proxy", tc.query.Encode().Encode(), len(got.Items), len(all.Items), n, allBytes)
		})
	}
	t.Run("a stream's snapshot", func(t *testing.T) {
		// What the agent sends through the proxy: the snapshot holds the
		// pods of the pod filter only; --op selects events, not pods.
		q := v1alpha1.EventQuery{Snapshot: true, Until: v1alpha1.AgeMark(0), Namespaces: []string{agentTestNS}, Selector: "e2e=podquery", Ops: []string{v1alpha1.OpAdd}}
		code, body := e.proxyGet(t, v1alpha1.EventsPath, q.Encode())
		first, _, _ := strings.Cut(string(body), "\n")
		var m v1alpha1.StreamMessage
		if err := json.Unmarshal([]byte(first), &m); err != nil || code != http.StatusOK || m.Type != v1alpha1.MessageSnapshot || m.Snapshot == nil {
			t.Fatalf("events?%s through the proxy: %d %v\n%s", q.Encode().Encode(), code, err, body)
		}
		if got := m.Snapshot.Items; len(got) != 1 || got[0].Namespace != agentTestNS || got[0].Name != pod.Name {
			t.Fatalf("events?%s: the snapshot holds %s, want %s/%s only (of %d pods)", q.Encode().Encode(), describePods(got), agentTestNS, pod.Name, len(all.Items))
		}
		t.Logf("events?%s: a snapshot of 1 of %d pods, %d bytes", q.Encode().Encode(), len(all.Items), len(first))
	})
	t.Run("a bad selector is a 400", func(t *testing.T) {
		code, body := e.proxyGet(t, v1alpha1.PodsPath, url.Values{"labelSelector": {"app in (web"}})
		var st v1alpha1.Status
		if err := json.Unmarshal(body, &st); err != nil || code != http.StatusBadRequest || !strings.Contains(st.Message, `labelSelector "app in (web"`) {
			t.Fatalf("answered %d %s; want a 400 naming labelSelector", code, body)
		}
	})
	t.Run("pods -l -n", func(t *testing.T) {
		out, err := e.runPlugin(t, false, nil, "pods", c.NodeName, "--kubeconfig="+c.Kubeconfig, "-n", client.AgentNamespace, "-l", client.AgentSelector, "-o", "name")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err != nil || len(lines) == 0 || len(lines) >= len(all.Items) {
			t.Fatalf("pods -n %s -l %s: %v\n%s", client.AgentNamespace, client.AgentSelector, err, out)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "podinfo.podsrc.io/"+c.NodeName+"/podsrc-agent-") {
				t.Fatalf("pods -n %s -l %s printed %q:\n%s", client.AgentNamespace, client.AgentSelector, l, out)
			}
		}
	})
}
