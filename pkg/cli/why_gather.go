package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/why"
)

// gatherer holds what one node's agent said and asks the rest of the
// facts of each pod.
type gatherer struct {
	agent   *client.Agent
	cluster clusterFacts
	// analyze analyzes one pod's facts (WhyOptions.analyze).
	analyze func(ctx context.Context, f why.Facts) v1alpha1.WhyReport
	now     func() time.Time
	// nodeName is the node the report is about (see newGatherer).
	nodeName string
	sources  *v1alpha1.SourceList
	pods     *v1alpha1.PodList
	pleg     *v1alpha1.PLEGStatus
	// locator finds the targets among sources and pods.
	locator *why.Locator
	// history is the whole of the agent's history, for why --all
	// (wholeHistory); a single report asks for its pod's alone
	// (podHistory), so that the other pods' events never cross the proxy.
	history      why.Lookup[[]v1alpha1.Event]
	wholeHistory bool
	// readHistory reads the agent's history that passes a filter.
	readHistory func(ctx context.Context, filter v1alpha1.EventQuery) ([]v1alpha1.Event, bool, error)
	// nodeObject and nodeEvents are asked once per node.
	nodeObject why.Lookup[*corev1.Node]
	nodeEvents why.Lookup[[]corev1.Event]
}

// newGatherer asks the agent for its sources, pods and PLEG, and its whole
// history for why --all, and the API server for the node.
func (o *WhyOptions) newGatherer(ctx context.Context, a *client.Agent) (*gatherer, error) {
	g := &gatherer{agent: a, analyze: o.analyze, now: o.Now, wholeHistory: o.All}
	g.readHistory = func(ctx context.Context, filter v1alpha1.EventQuery) ([]v1alpha1.Event, bool, error) {
		return o.history(ctx, a, filter)
	}
	var err error
	if g.sources, err = a.Sources(ctx); err != nil {
		return nil, err
	}
	// The report, and every command it suggests, names the node asked
	// for; an agent that says it is another node is not taken at its word.
	// Only an agent reached by its URL alone, with no node asked for,
	// names the node (quoted wherever a command is suggested).
	g.nodeName = a.Node
	switch said := g.sources.NodeName; {
	case a.Node == "":
		g.nodeName = said
	case said != "" && said != a.Node:
		return nil, fmt.Errorf("the agent of node %s says it runs for node %q, not %s", a.Node, said, a.Node)
	}
	if g.pods, err = a.Pods(ctx, v1alpha1.PodQuery{}); err != nil {
		return nil, err
	}
	g.locator = why.NewLocator(g.node(), g.sources, g.pods.Items)
	if g.pleg, err = a.PLEG(ctx); err != nil {
		return nil, err
	}
	if g.wholeHistory {
		events, _, err := g.readHistory(ctx, v1alpha1.EventQuery{})
		g.history = why.Lookup[[]v1alpha1.Event]{Value: events, Err: err}
	}
	g.cluster = o.clusterFacts()
	g.nodeObject = g.cluster.node(ctx, g.node())
	if err := g.nodeObject.Err; unreachable(err) {
		// No answer from the API server at all: every lookup would fail
		// alike, and the stages would blame rights, not the connection.
		return nil, client.ClusterError(err, "getting node "+g.node()+" from the API server")
	}
	g.nodeEvents = g.cluster.events(ctx, "Node", "", g.node())
	return g, nil
}

// clusterFacts returns the API server's client; with --agent-url and no
// cluster configuration, none.
func (o *WhyOptions) clusterFacts() clusterFacts {
	if o.From != "" {
		return o.archiveFacts()
	}
	if o.Direct() && !o.hasClusterConfig() {
		return clusterFacts{skipped: "no cluster configuration (--kubeconfig, --context or --server) was given"}
	}
	cs, err := o.Clientset()
	if err != nil {
		return clusterFacts{skipped: "the API server was not asked: " + err.Error()}
	}
	return clusterFacts{cs: cs}
}

// unreachable reports whether err is a failure to reach the API server,
// rather than its answer or a request refused before it was sent.
func unreachable(err error) bool {
	var st apierrors.APIStatus
	var ue *url.Error
	return err != nil && !errors.As(err, &st) && errors.As(err, &ue)
}

// node is the node's name as it was asked for (its agent says the same).
func (g *gatherer) node() string { return g.nodeName }

// report analyzes the pod t names.
func (g *gatherer) report(ctx context.Context, t why.Target) (v1alpha1.WhyReport, error) {
	t = g.byUID(t)
	s, err := g.locator.Locate(t)
	if err != nil {
		return v1alpha1.WhyReport{}, err
	}
	f, err := g.facts(ctx, t, s)
	if err != nil {
		return v1alpha1.WhyReport{}, err
	}
	if err := nowhere(t, s, f); err != nil {
		return v1alpha1.WhyReport{}, err
	}
	return g.analyze(ctx, f), nil
}

// byUID returns t naming by namespace and name the pod whose UID it is, if
// it is a bare name that is one of the agent's pods' UIDs: why takes the
// forms pod and events --pod take.
func (g *gatherer) byUID(t why.Target) why.Target {
	if t.Path != "" || strings.Contains(t.Raw, "/") {
		return t
	}
	for _, p := range g.pods.Items {
		if string(p.UID) == t.Raw {
			return why.Target{Raw: t.Raw, Namespace: p.Namespace, Name: p.Name}
		}
	}
	return t
}

// facts gathers the facts of one subject. It fails when ctx ends: a
// lookup the deadline cut short is no fact to judge by.
func (g *gatherer) facts(ctx context.Context, t why.Target, s why.Subject) (why.Facts, error) {
	f := why.Facts{
		Node: g.node(), Target: t, Subject: s, Now: g.now(),
		Sources: g.sources, Pods: g.pods.Items, PLEG: g.pleg, History: g.podHistory(ctx, s),
		NodeObject: g.nodeObject, NodeEvents: g.nodeEvents,
	}
	if s.Info != nil {
		// An agent that cannot answer leaves the spec to the API server;
		// the report says why.
		d, err := g.agent.Pod(ctx, string(s.Info.UID))
		f.Detail = why.Lookup[*v1alpha1.PodInfo]{Value: d, Err: err}
	}
	if s.Name == "" {
		skipped := "the manifest defines no pod the agent knows"
		f.APIPod = why.Lookup[*corev1.Pod]{Skipped: skipped}
		f.Namespace = why.Lookup[*corev1.Namespace]{Skipped: skipped}
		f.PodEvents = why.Lookup[[]corev1.Event]{Skipped: skipped}
		return f, ctx.Err()
	}
	f.APIPod = g.cluster.pod(ctx, s.Namespace, s.Name)
	if apierrors.IsNotFound(f.APIPod.Err) {
		f.Namespace = g.cluster.namespace(ctx, s.Namespace)
	} else {
		f.Namespace = why.Lookup[*corev1.Namespace]{Skipped: "the pod's lookup says enough"}
	}
	f.PodEvents = g.cluster.events(ctx, "Pod", s.Namespace, s.Name)
	return f, ctx.Err()
}

// podHistory returns the agent's history as far as it concerns the pod of
// s: the whole history why --all read, or the events of the pod's
// namespace/name and UID alone, which the agent filters.
func (g *gatherer) podHistory(ctx context.Context, s why.Subject) why.Lookup[[]v1alpha1.Event] {
	if g.wholeHistory {
		return g.history
	}
	var pods []string
	if s.Name != "" {
		pods = append(pods, s.Namespace+"/"+s.Name)
	}
	if s.Info != nil && s.Info.UID != "" {
		pods = append(pods, string(s.Info.UID))
	}
	if len(pods) == 0 {
		// No pod: no event can be about it.
		return why.Lookup[[]v1alpha1.Event]{Value: []v1alpha1.Event{}}
	}
	events, _, err := g.readHistory(ctx, v1alpha1.EventQuery{Pods: pods})
	return why.Lookup[[]v1alpha1.Event]{Value: events, Err: err}
}

// whyAllConcurrency bounds the pods whose facts why --all asks at once.
const whyAllConcurrency = 4

// all analyzes every pod of the node and returns those that are not ok:
// the configured pods (mirror pods with their static pod), the rejected
// and shadowed manifests, and the pods the API server binds to the node
// that the kubelet's configuration lacks. It asks the facts of
// whyAllConcurrency pods at once, and fails when ctx ends first, however
// far it got.
func (g *gatherer) all(ctx context.Context) ([]v1alpha1.WhyReport, error) {
	out := []v1alpha1.WhyReport{}
	configured, asked := map[string]bool{}, map[string]bool{}
	var targets []why.Target
	for _, p := range g.pods.Items {
		if p.Source == "" {
			continue
		}
		key := p.Namespace + "/" + p.Name
		configured[key] = true
		// A mirror pod is a stage of its static pod's report, whichever
		// of the two the list has first.
		if !p.Mirror && !asked[key] {
			asked[key] = true
			targets = append(targets, why.Target{Raw: key, Namespace: p.Namespace, Name: p.Name})
		}
	}
	for _, src := range g.sources.Items {
		for _, r := range src.RejectedFiles {
			targets = append(targets, why.Target{Raw: r.Path, Path: r.Path})
		}
		for _, sh := range src.ShadowedFiles {
			targets = append(targets, why.Target{Raw: sh.Path, Path: sh.Path})
		}
	}
	if l := g.cluster.nodePods(ctx, g.node()); l.Known() {
		for _, p := range l.Value {
			if key := p.Namespace + "/" + p.Name; !configured[key] {
				targets = append(targets, why.Target{Raw: key, Namespace: p.Namespace, Name: p.Name})
			}
		}
	}
	reports := make([]*v1alpha1.WhyReport, len(targets))
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(whyAllConcurrency)
	for i, t := range targets {
		if ectx.Err() != nil {
			// The deadline bounds the analysis too, not only the
			// lookups: a node of many pods takes long to analyze.
			break
		}
		eg.Go(func() error {
			if err := ectx.Err(); err != nil {
				return err
			}
			s, err := g.locator.Locate(t)
			if err != nil {
				return nil
			}
			f, err := g.facts(ectx, t, s)
			if err != nil {
				return err
			}
			if r := g.analyze(ectx, f); r.Verdict != v1alpha1.VerdictOK {
				reports[i] = &r
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, r := range reports {
		if r != nil {
			out = append(out, *r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out, nil
}
