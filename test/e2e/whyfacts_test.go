package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// logFacts logs what the agent and the API server hold about target (a
// NAMESPACE/POD or a static pod file): the agent's rows of the pod, its file
// source's rejected and shadowed files naming it, the events of the stream
// naming it, and the API Events about it.
func (e *env) logFacts(t *testing.T, target string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var b strings.Builder
	a := e.agent(t)
	rows, err := a.Pods(ctx, v1alpha1.PodQuery{})
	if err != nil {
		fmt.Fprintf(&b, "pods: %v\n", err)
		rows = &v1alpha1.PodList{}
	}
	// A file target names the pod its manifest decoded to, if any.
	namespace, name, isPod := strings.Cut(target, "/")
	if strings.HasPrefix(target, "/") {
		namespace, name, isPod = "", "", false
		for _, p := range rows.Items {
			if p.Origin == target {
				namespace, name, isPod = p.Namespace, p.Name, true
			}
		}
	}
	match := func(ns, n string) bool { return isPod && ns == namespace && n == name }
	if l, err := a.Sources(ctx); err != nil {
		fmt.Fprintf(&b, "sources: %v\n", err)
	} else if f := findSource(*l, v1alpha1.SourceFile); f != nil {
		for _, r := range f.RejectedFiles {
			if r.Path == target {
				fmt.Fprintf(&b, "rejected: %s\n", jsonLine(r))
			}
		}
		for _, s := range f.ShadowedFiles {
			if s.Path == target || s.By == target || (isPod && s.Pod == target) {
				fmt.Fprintf(&b, "shadowed: %s\n", jsonLine(s))
			}
		}
	}
	for _, p := range rows.Items {
		if match(p.Namespace, p.Name) {
			p.Pod = nil
			fmt.Fprintf(&b, "pod row: %s\n", jsonLine(p))
		}
	}
	for _, m := range e.rec.since(0) {
		ev := m.Event
		if m.Type != v1alpha1.MessageEvent || ev == nil {
			continue
		}
		hit := match(ev.Namespace, ev.PodName)
		for _, p := range ev.Pods {
			hit = hit || match(p.Namespace, p.Name)
		}
		if hit {
			fmt.Fprintf(&b, "event: %s\n", jsonLine(ev))
		}
	}
	if isPod {
		evs, err := e.c.Client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
		if err != nil {
			fmt.Fprintf(&b, "api events: %v\n", err)
		} else {
			for _, ev := range evs.Items {
				fmt.Fprintf(&b, "api event: %s %s count=%d from=%s/%s first=%s last=%s uid=%s: %s\n", ev.Type, ev.Reason, ev.Count, ev.Source.Component, ev.ReportingController, ev.FirstTimestamp, ev.LastTimestamp, ev.InvolvedObject.UID, ev.Message)
			}
		}
		if p, err := e.c.Client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			fmt.Fprintf(&b, "api pod: %v\n", err)
		} else {
			fmt.Fprintf(&b, "api pod: uid=%s node=%s annotations=%v deleting=%v status=%s\n", p.UID, p.Spec.NodeName, p.Annotations, p.DeletionTimestamp, jsonLine(p.Status))
		}
	}
	t.Logf("facts of %s:\n%s", target, b.String())
}

func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
