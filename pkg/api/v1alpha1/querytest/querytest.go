// Package querytest holds the cases of the event and pod filters, for
// tests that run them against the agent and against the fake agent: both
// must filter as v1alpha1.EventQuery and v1alpha1.PodQuery say.
package querytest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Events returns the events the cases filter, to be published in this order
// after the sequence number base that Run is given.
func Events() []v1alpha1.Event {
	web := map[string]string{"app": "web"}
	etcd := map[string]string{"tier": "control-plane", "component": "etcd"}
	pod := func(ns, name string, l map[string]string) v1alpha1.PodRef {
		return v1alpha1.PodRef{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: l}
	}
	pleg := func(typ, ns, name, container string, l map[string]string) v1alpha1.Event {
		return v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: typ, Namespace: ns, PodName: name, PodUID: types.UID("uid-" + name),
			ContainerName: container, Sandbox: container == "", Labels: l, Handler: v1alpha1.SyncHandlerPodSyncs}
	}
	ignored := pleg("PodSync", "monitoring", "agent-x", "", nil)
	ignored.Handler, ignored.Ignored = v1alpha1.SyncHandlerIgnored, "pod not in the pod manager"
	return []v1alpha1.Event{
		{Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpAdd, Source: v1alpha1.SourceFile, Pods: []v1alpha1.PodRef{pod("kube-system", "etcd-node", etcd)}, Handler: v1alpha1.SyncHandlerPodAdditions},
		{Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpAdd, Source: v1alpha1.SourceAPI, Pods: []v1alpha1.PodRef{pod("default", "web-1", web), pod("default", "db-1", map[string]string{"app": "db"})}, Handler: v1alpha1.SyncHandlerPodAdditions},
		{Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpUpdate, Source: v1alpha1.SourceAPI, Pods: []v1alpha1.PodRef{pod("default", "web-1", web)}, Handler: v1alpha1.SyncHandlerPodUpdates},
		pleg("ContainerStarted", "default", "web-1", "nginx", web),
		pleg("ContainerDied", "default", "web-1", "istio-proxy", web),
		pleg("ContainerStarted", "kube-system", "etcd-node", "", etcd),
		{Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpRemove, Source: v1alpha1.SourceHTTP, Pods: []v1alpha1.PodRef{pod("monitoring", "agent-x", nil)}, Handler: v1alpha1.SyncHandlerPodRemoves},
		ignored,
		{Kind: v1alpha1.EventKindInput, Input: &v1alpha1.Input{Update: &v1alpha1.InputUpdate{Source: v1alpha1.SourceFile, Op: v1alpha1.OpSet}}},
	}
}

// Case is a filter and what it keeps of Events, each event as Describe
// says it.
type Case struct {
	Name  string
	Query v1alpha1.EventQuery
	Want  []string
}

// input describes the input of Events, which only a query naming its
// kind keeps.
const input = "9 input file SET"

// Every event of Events but the input, described.
var all = []string{
	"1 ADD file kube-system/etcd-node",
	"2 ADD api default/web-1,default/db-1",
	"3 UPDATE api default/web-1",
	"4 ContainerStarted default/web-1 nginx",
	"5 ContainerDied default/web-1 istio-proxy",
	"6 ContainerStarted kube-system/etcd-node",
	"7 REMOVE http monitoring/agent-x",
	"8 PodSync monitoring/agent-x",
}

// pick returns the events of all numbered n (from 1).
func pick(n ...int) []string {
	var out []string
	for _, i := range n {
		out = append(out, all[i-1])
	}
	return out
}

// Cases are the filter's cases.
var Cases = []Case{
	{Name: "no filter", Query: v1alpha1.EventQuery{}, Want: all},
	{Name: "an op leaves PLEG events out", Query: v1alpha1.EventQuery{Ops: []string{"ADD"}}, Want: pick(1, 2)},
	{Name: "an excluded op keeps PLEG events", Query: v1alpha1.EventQuery{Ops: []string{"!UPDATE"}}, Want: pick(1, 2, 4, 5, 6, 7, 8)},
	{Name: "an op and a type filter each kind", Query: v1alpha1.EventQuery{Ops: []string{"ADD"}, Types: []string{"ContainerDied"}}, Want: pick(1, 2, 5)},
	{Name: "a type", Query: v1alpha1.EventQuery{Types: []string{"ContainerStarted"}}, Want: pick(4, 6)},
	{Name: "two types", Query: v1alpha1.EventQuery{Types: []string{"ContainerDied", "PodSync"}}, Want: pick(5, 8)},
	{Name: "a kind", Query: v1alpha1.EventQuery{Kinds: []string{"pleg"}}, Want: pick(4, 5, 6, 8)},
	{Name: "an excluded kind", Query: v1alpha1.EventQuery{Kinds: []string{"!pleg"}}, Want: pick(1, 2, 3, 7)},
	{Name: "a kind beats the other kind's filter", Query: v1alpha1.EventQuery{Kinds: []string{"config", "pleg"}, Ops: []string{"REMOVE"}}, Want: pick(4, 5, 6, 7, 8)},
	{Name: "two sources", Query: v1alpha1.EventQuery{Sources: []string{"api", "http"}}, Want: pick(2, 3, 7)},
	{Name: "a namespace", Query: v1alpha1.EventQuery{Namespaces: []string{"default"}}, Want: pick(2, 3, 4, 5)},
	{Name: "a pod glob trims config events", Query: v1alpha1.EventQuery{Pods: []string{"web-*"}}, Want: []string{"2 ADD api default/web-1", all[2], all[3], all[4]}},
	{Name: "a pod glob with a namespace", Query: v1alpha1.EventQuery{Pods: []string{"kube-system/*"}}, Want: pick(1, 6)},
	{Name: "an excluded namespace's pods", Query: v1alpha1.EventQuery{Pods: []string{"!default/*"}}, Want: pick(1, 6, 7, 8)},
	{Name: "a container leaves config events out", Query: v1alpha1.EventQuery{Containers: []string{"nginx"}}, Want: pick(4)},
	{Name: "an excluded container", Query: v1alpha1.EventQuery{Containers: []string{"!istio-*"}}, Want: pick(1, 2, 3, 4, 6, 7, 8)},
	{Name: "a label selector", Query: v1alpha1.EventQuery{Selector: "app=web"}, Want: []string{"2 ADD api default/web-1", all[2], all[3], all[4]}},
	{Name: "a negative label selector", Query: v1alpha1.EventQuery{Selector: "app!=web"}, Want: []string{all[0], "2 ADD api default/db-1", all[5], all[6], all[7]}},
	{Name: "a selector and a kind", Query: v1alpha1.EventQuery{Selector: "tier=control-plane", Kinds: []string{"pleg"}}, Want: pick(6)},
	{Name: "a handler, in any case", Query: v1alpha1.EventQuery{Handlers: []string{"handlepodsyncs"}}, Want: pick(4, 5, 6)},
	{Name: "handlers of both kinds", Query: v1alpha1.EventQuery{Handlers: []string{v1alpha1.SyncHandlerPodAdditions, v1alpha1.SyncHandlerIgnored}}, Want: pick(1, 2, 8)},
	{Name: "an excluded handler", Query: v1alpha1.EventQuery{Handlers: []string{"!" + v1alpha1.SyncHandlerPodSyncs}}, Want: pick(1, 2, 3, 7, 8)},
	{Name: "a tail", Query: v1alpha1.EventQuery{Tail: 2}, Want: pick(7, 8)},
	{Name: "a tail of the filtered events", Query: v1alpha1.EventQuery{Tail: 2, Kinds: []string{"config"}}, Want: pick(3, 7)},
	{Name: "a tail longer than the history", Query: v1alpha1.EventQuery{Tail: 100, Ops: []string{"ADD"}}, Want: pick(1, 2)},
	{Name: "inputs by their kind", Query: v1alpha1.EventQuery{Kinds: []string{"input"}}, Want: []string{input}},
	{Name: "inputs and another kind", Query: v1alpha1.EventQuery{Kinds: []string{"input", "pleg"}}, Want: append(pick(4, 5, 6, 8), input)},
	{Name: "no input past an excluded kind", Query: v1alpha1.EventQuery{Kinds: []string{"!pleg"}}, Want: pick(1, 2, 3, 7)},
	{Name: "no input past a source filter", Query: v1alpha1.EventQuery{Sources: []string{"file"}}, Want: pick(1)},
}

// Describe describes an event for Want: its sequence number after base,
// then its op, source and pods (config) or its type, pod and container
// (pleg), or its source update (input).
func Describe(base uint64, e v1alpha1.Event) string {
	if e.Kind == v1alpha1.EventKindInput && e.Input != nil && e.Input.Update != nil {
		return fmt.Sprintf("%d input %s %s", e.Seq-base, e.Input.Update.Source, e.Input.Update.Op)
	}
	if e.Kind == v1alpha1.EventKindConfig {
		var pods []string
		for _, p := range e.Pods {
			pods = append(pods, p.Namespace+"/"+p.Name)
		}
		return fmt.Sprintf("%d %s %s %s", e.Seq-base, e.Op, e.Source, strings.Join(pods, ","))
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s %s/%s %s", e.Seq-base, e.Type, e.Namespace, e.PodName, e.ContainerName))
}

// Run runs every case: stream gets the case's query, bounded by Since base
// and Until base+len(Events()), and returns the events of the stream, which
// must end on its own.
func Run(t *testing.T, base uint64, stream func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.Event) {
	t.Helper()
	for _, c := range Cases {
		t.Run(c.Name, func(t *testing.T) {
			q := c.Query
			q.Since, q.Until = v1alpha1.SeqMark(base), v1alpha1.SeqMark(base+uint64(len(Events())))
			var got []string
			for _, e := range stream(t, q) {
				got = append(got, Describe(base, e))
			}
			if !slices.Equal(got, c.Want) {
				t.Fatalf("query %s kept\n\t%s\nwant\n\t%s", q.Encode().Encode(), strings.Join(got, "\n\t"), strings.Join(c.Want, "\n\t"))
			}
		})
	}
}
