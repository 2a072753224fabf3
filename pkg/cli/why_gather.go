package cli

import (
	"context"
	"fmt"
	"sort"
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
	now     func() time.Time
	sources *v1alpha1.SourceList
	pods    *v1alpha1.PodList
	pleg    *v1alpha1.PLEGStatus
	history why.Lookup[[]v1alpha1.Event]
	// nodeObject and nodeEvents are asked once per node.
	nodeObject why.Lookup[*corev1.Node]
	nodeEvents why.Lookup[[]corev1.Event]
}

// newGatherer asks the agent for its sources, pods, PLEG and history, and
// the API server for the node.
func (o *WhyOptions) newGatherer(ctx context.Context, a *client.Agent) (*gatherer, error) {
	g := &gatherer{agent: a, now: o.Now}
	var err error
	if g.sources, err = a.Sources(ctx); err != nil {
		return nil, err
	}
	// The report, and every command it suggests, names the node asked
	// for; an agent that says it is another node is not taken at its word.
	if said := g.sources.NodeName; said != "" && said != a.Node {
		return nil, fmt.Errorf("the agent of node %s says it runs for node %q, not %s", a.Node, said, a.Node)
	}
	if g.pods, err = a.Pods(ctx, v1alpha1.PodQuery{}); err != nil {
		return nil, err
	}
	if g.pleg, err = a.PLEG(ctx); err != nil {
		return nil, err
	}
	events, _, err := o.history(ctx, a)
	g.history = why.Lookup[[]v1alpha1.Event]{Value: events, Err: err}
	g.cluster = o.clusterFacts()
	g.nodeObject = g.cluster.node(ctx, g.node())
	g.nodeEvents = g.cluster.events(ctx, "Node", "", g.node())
	return g, nil
}

// clusterFacts returns the API server's client; with --agent-url and no
// cluster configuration, none.
func (o *WhyOptions) clusterFacts() clusterFacts {
	cs, err := o.Clientset()
	if err != nil {
		return clusterFacts{skipped: "the API server was not asked: " + err.Error()}
	}
	return clusterFacts{cs: cs}
}

// node is the node's name as it was asked for (its agent says the same).
func (g *gatherer) node() string { return g.agent.Node }

// report analyzes the pod t names.
func (g *gatherer) report(ctx context.Context, t why.Target) (v1alpha1.WhyReport, error) {
	s, err := why.Locate(t, g.node(), g.sources, g.pods.Items)
	if err != nil {
		return v1alpha1.WhyReport{}, err
	}
	f, err := g.facts(ctx, t, s)
	if err != nil {
		return v1alpha1.WhyReport{}, err
	}
	return why.Analyze(f), nil
}

// facts gathers the facts of one subject. It fails when ctx ends: a
// lookup the deadline cut short is no fact to judge by.
func (g *gatherer) facts(ctx context.Context, t why.Target, s why.Subject) (why.Facts, error) {
	f := why.Facts{
		Node: g.node(), Target: t, Subject: s, Now: g.now(),
		Sources: g.sources, Pods: g.pods.Items, PLEG: g.pleg, History: g.history,
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

// whyAllConcurrency bounds the pods whose facts why --all asks at once.
const whyAllConcurrency = 4

// all analyzes every pod of the node and returns those that are not ok:
// the configured pods (mirror pods with their static pod), the rejected
// and shadowed manifests, and the pods the API server binds to the node
// that the kubelet's configuration lacks. It asks the facts of
// whyAllConcurrency pods at once, and fails when ctx ends first.
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
		s, err := why.Locate(t, g.node(), g.sources, g.pods.Items)
		if err != nil {
			continue
		}
		eg.Go(func() error {
			f, err := g.facts(ectx, t, s)
			if err != nil {
				return err
			}
			if r := why.Analyze(f); r.Verdict != v1alpha1.VerdictOK {
				reports[i] = &r
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
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
