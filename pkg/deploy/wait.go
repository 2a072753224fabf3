package deploy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Rollout is what Wait waits for: the DaemonSets deploy applied, the nodes
// they cover and the image each node's agent runs.
type Rollout struct {
	Namespace  string
	DaemonSets []string
	Nodes      []string
	// Images is the agent image of each node, by node name.
	Images map[string]string
	// AgentSelector selects the agents' pods; AgentPort is where their
	// readiness endpoint answers.
	AgentSelector string
	AgentPort     int
}

// Wait waits until every DaemonSet has rolled out and every agent runs the
// image and is ready, printing "N/M agents ready" whenever that changes.
// When ctx ends first, the error says, for every node whose agent is not
// ready, why.
func (c *Cluster) Wait(ctx context.Context, r Rollout, interval time.Duration, out io.Writer) error {
	last := ""
	var state rolloutState
	err := wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
		s, err := c.observe(ctx, r)
		if err != nil {
			if ctx.Err() != nil {
				return false, nil
			}
			return false, err
		}
		state = s
		line := fmt.Sprintf("%d/%d agents ready", len(s.ready), len(r.Nodes))
		if line != last {
			fmt.Fprintln(out, line)
			last = line
		}
		return s.done && len(s.ready) == len(r.Nodes), nil
	})
	if err == nil {
		return nil
	}
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	// The reasons are looked up with a fresh, short deadline: ctx is over.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	var why []string
	for _, node := range r.Nodes {
		if state.ready[node] {
			continue
		}
		why = append(why, fmt.Sprintf("node %s: %s", node, c.notReadyReason(rctx, r, node, state.pods[node])))
	}
	return fmt.Errorf("%d/%d agents ready when the wait ended (%v):\n  %s\nsee kubectl -n %s get pods -l %s -o wide, and deploy again with a longer --timeout if they are only slow", len(state.ready), len(r.Nodes), err, strings.Join(why, "\n  "), r.Namespace, r.AgentSelector)
}

// rolloutState is one look at the rollout.
type rolloutState struct {
	// done: every DaemonSet's controller has seen its spec and updated
	// all its pods.
	done  bool
	ready map[string]bool
	// pods: the newest agent pod of each node.
	pods map[string]*corev1.Pod
}

func (c *Cluster) observe(ctx context.Context, r Rollout) (rolloutState, error) {
	s := rolloutState{done: true, ready: map[string]bool{}, pods: map[string]*corev1.Pod{}}
	for _, name := range r.DaemonSets {
		ds, err := c.Client.AppsV1().DaemonSets(r.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return s, fmt.Errorf("reading daemonset %s/%s: %w", r.Namespace, name, err)
		}
		if !rolledOut(ds) {
			s.done = false
		}
	}
	pods, err := c.Client.CoreV1().Pods(r.Namespace).List(ctx, metav1.ListOptions{LabelSelector: r.AgentSelector})
	if err != nil {
		return s, fmt.Errorf("listing the agent pods (%s) in namespace %s: %w", r.AgentSelector, r.Namespace, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		node := podNode(p)
		if node == "" || p.DeletionTimestamp != nil {
			continue
		}
		if cur := s.pods[node]; cur == nil || cur.CreationTimestamp.Before(&p.CreationTimestamp) {
			s.pods[node] = p
		}
	}
	for node, p := range s.pods {
		if podReady(p) && runsImage(p, r.Images[node]) {
			s.ready[node] = true
		}
	}
	return s, nil
}

// rolledOut reports whether the DaemonSet controller has seen the latest
// spec and every scheduled pod is updated and available.
func rolledOut(ds *appsv1.DaemonSet) bool {
	st := ds.Status
	return st.ObservedGeneration >= ds.Generation &&
		st.UpdatedNumberScheduled == st.DesiredNumberScheduled &&
		st.NumberAvailable == st.DesiredNumberScheduled
}

// podNode is the pod's node, or for a pod not yet scheduled the node its
// DaemonSet controller pinned it to.
func podNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func runsImage(p *corev1.Pod, image string) bool {
	for _, c := range p.Spec.Containers {
		if c.Name == agentContainer {
			return c.Image == image
		}
	}
	return false
}

// imagePullReasons are the kubelet's waiting reasons for images it cannot
// get.
var imagePullReasons = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true}

// notReadyReason says why the node's agent is not ready: no pod, not
// scheduled, an image it cannot pull, a crash loop with its last log line,
// or the source its readiness endpoint is waiting for.
func (c *Cluster) notReadyReason(ctx context.Context, r Rollout, node string, p *corev1.Pod) string {
	image := r.Images[node]
	if p == nil {
		return "no agent pod yet (the DaemonSet controller has not made one for this node)"
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			return fmt.Sprintf("pod %s is unschedulable: %s", p.Name, cond.Message)
		}
	}
	if !runsImage(p, image) {
		return fmt.Sprintf("pod %s still runs the previous image; the rollout has not reached this node", p.Name)
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != agentContainer {
			continue
		}
		if w := cs.State.Waiting; w != nil {
			switch {
			case imagePullReasons[w.Reason]:
				return fmt.Sprintf("pod %s cannot pull image %s: %s: %s", p.Name, image, w.Reason, w.Message)
			case w.Reason == "CrashLoopBackOff":
				return fmt.Sprintf("pod %s is in a crash loop (%d restarts); the agent's last log line: %s", p.Name, cs.RestartCount, c.lastLogLine(ctx, p, true))
			case w.Reason != "":
				return fmt.Sprintf("pod %s is waiting: %s %s%s", p.Name, w.Reason, w.Message, c.lastWarning(ctx, p))
			}
		}
		if cs.State.Running != nil && !cs.Ready {
			return fmt.Sprintf("pod %s runs but is not ready: /readyz says %s", p.Name, c.readyz(ctx, r, p))
		}
	}
	return fmt.Sprintf("pod %s is %s%s", p.Name, p.Status.Phase, c.lastWarning(ctx, p))
}

// lastLogLine is the last line the agent logged (in its previous run when
// previous is set), or why it could not be read.
func (c *Cluster) lastLogLine(ctx context.Context, p *corev1.Pod, previous bool) string {
	b, err := c.Client.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: agentContainer, Previous: previous, TailLines: ptr.To[int64](1)}).DoRaw(ctx)
	if err != nil {
		return fmt.Sprintf("(could not read it: %v)", err)
	}
	return strings.TrimSpace(string(b))
}

// lastWarning is the newest Warning event of the pod (failed mounts, for
// example), or "".
func (c *Cluster) lastWarning(ctx context.Context, p *corev1.Pod) string {
	evs, err := c.Client.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + p.Name + ",type=Warning"})
	if err != nil || len(evs.Items) == 0 {
		return ""
	}
	sort.Slice(evs.Items, func(i, j int) bool {
		return evs.Items[i].LastTimestamp.Before(&evs.Items[j].LastTimestamp)
	})
	e := evs.Items[len(evs.Items)-1]
	return fmt.Sprintf("; last warning: %s: %s", e.Reason, e.Message)
}

// readyz reads the agent's readiness endpoint through its pod's proxy: the
// sources it has not seen yet.
func (c *Cluster) readyz(ctx context.Context, r Rollout, p *corev1.Pod) string {
	b, err := c.Client.CoreV1().Pods(p.Namespace).ProxyGet("http", p.Name, fmt.Sprint(r.AgentPort), v1alpha1.ReadyzPath, nil).DoRaw(ctx)
	if err != nil && len(b) == 0 {
		return fmt.Sprintf("(could not read it: %v)", err)
	}
	return strings.TrimSpace(string(b))
}
