package agent

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// reproducedKubeletVersion is the kubelet version the agent reproduces: its
// decoder's, or without one its minor.
func (a *Agent) reproducedKubeletVersion() string {
	if a.decoder != nil {
		return a.decoder.KubeletVersion()
	}
	return a.kubelet.String()
}

// Sources returns every configured source's state.
func (a *Agent) Sources() v1alpha1.SourceList {
	stats := map[string]*merge.SourceStats{}
	for _, st := range a.podConfig.Stats() {
		stats[st.Source] = &st
	}
	out := v1alpha1.SourceList{
		TypeMeta:                 v1alpha1.TypeMetaFor(v1alpha1.KindSourceList),
		NodeName:                 a.cfg.Node.NodeName,
		Mode:                     a.cfg.Mode.String(),
		AllSourcesSeen:           a.podConfig.Ready(),
		AgentVersion:             version.Version,
		ReproducedKubeletVersion: a.reproducedKubeletVersion(),
		Items:                    []v1alpha1.Source{},
	}
	out.NodeKubeletVersion = a.nodeKubelet()
	out.KubeletSkew = a.kubeletSkew(out.NodeKubeletVersion)
	out.Journal = a.journalStatus()
	for _, s := range a.sources {
		st := s.src.Status()
		out.Items = append(out.Items, sourceInfo(s.name, &st, stats[s.name], a.cfg.ExposePodSpecs))
	}
	slices.SortFunc(out.Items, func(x, y v1alpha1.Source) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// runtimeView returns the PLEG's last listing by pod UID, nil without a PLEG.
func (a *Agent) runtimeView() map[types.UID]pleg.RuntimePod {
	if a.pleg == nil {
		return nil
	}
	pods, _ := a.pleg.Pods()
	out := make(map[types.UID]pleg.RuntimePod, len(pods))
	for _, p := range pods {
		out[p.ID] = p
	}
	return out
}

// withRuntime joins the PLEG's view of the pod into info.
func (a *Agent) withRuntime(info *v1alpha1.PodInfo, rp pleg.RuntimePod) {
	cached, ok := a.pleg.Cache().Get(rp.ID)
	info.Runtime = runtimePod(rp, cached, ok)
}

// podListHead is a pod list without its items.
func (a *Agent) podListHead() v1alpha1.PodList {
	return v1alpha1.PodList{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPodList), NodeName: a.cfg.Node.NodeName}
}

// eachPodInfo yields, one at a time, the items of a pod list that q
// keeps: the configured pods joined with the runtime's view, then the
// runtime's pods that no source configures, sorted. It stops at the first
// error yield returns. q must be validated.
func (a *Agent) eachPodInfo(configured []syncloop.Sourced, q *v1alpha1.PodQuery, yield func(v1alpha1.PodInfo) error) error {
	rt := a.runtimeView()
	uids := syncloop.NewKubeletUIDs(configured, rt)
	configuredInRuntime := map[types.UID]bool{}
	for _, p := range configured {
		if _, ok := rt[p.Pod.UID]; ok {
			configuredInRuntime[p.Pod.UID] = true
		}
		info := podInfo(p)
		if !q.Match(info) {
			continue
		}
		if rp, ok := rt[p.Pod.UID]; ok {
			a.withRuntime(&info, rp)
		}
		uids.Set(&info)
		if err := yield(info); err != nil {
			return err
		}
	}
	if q.Source != "" {
		// Pods only the runtime has come from no source.
		return nil
	}
	var orphans []v1alpha1.PodInfo
	for uid, rp := range rt {
		if configuredInRuntime[uid] {
			continue
		}
		info := v1alpha1.PodInfo{Name: rp.Name, Namespace: rp.Namespace, UID: uid}
		if !q.Match(info) {
			continue
		}
		orphans = append(orphans, info)
	}
	slices.SortFunc(orphans, func(x, y v1alpha1.PodInfo) int {
		return strings.Compare(x.Namespace+"/"+x.Name+"/"+string(x.UID), y.Namespace+"/"+y.Name+"/"+string(y.UID))
	})
	for _, info := range orphans {
		a.withRuntime(&info, rt[info.UID])
		if err := yield(info); err != nil {
			return err
		}
	}
	return nil
}

// Pods is the answer of /pods: the pods that q keeps, one at a time (see
// eachPodInfo).
func (a *Agent) Pods(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	configured := a.syncLoop.List()
	return a.podListHead(), func(yield func(v1alpha1.PodInfo) error) error {
		return a.eachPodInfo(configured, q, yield)
	}
}

// Snapshot is the start of a stream that starts with a snapshot: the
// view's pods that q keeps, at the ring's last event, which the view's
// lock orders with them.
func (a *Agent) Snapshot(q *v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	seq, configured := a.syncLoop.Snapshot()
	return seq, a.podListHead(), func(yield func(v1alpha1.PodInfo) error) error {
		return a.eachPodInfo(configured, q, yield)
	}
}

// Pod is the answer of /pods/{uid}: the pod of any source or of the
// runtime.
func (a *Agent) Pod(uid types.UID) (v1alpha1.PodInfo, error) {
	// Only the pods of the same name can be its mirror pod (KubeletUIDs).
	p, sameName, ok := a.syncLoop.Pod(uid)
	rt := a.runtimeView()
	rp, inRuntime := rt[uid]
	if !ok && !inRuntime {
		return v1alpha1.PodInfo{}, fmt.Errorf("no pod with UID %q in any source or in the runtime of node %s", uid, a.cfg.Node.NodeName)
	}
	var info v1alpha1.PodInfo
	if ok {
		info = podInfo(p)
		info.Pod = servedPod(p.Pod, a.cfg.ExposePodSpecs)
	} else {
		info = v1alpha1.PodInfo{Name: rp.Name, Namespace: rp.Namespace, UID: rp.ID}
	}
	if inRuntime {
		a.withRuntime(&info, rp)
	}
	syncloop.NewKubeletUIDs(sameName, rt).Set(&info)
	info.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPod)
	return info, nil
}

// PLEG returns the PLEG's health and statistics.
func (a *Agent) PLEG() v1alpha1.PLEGStatus {
	out := v1alpha1.PLEGStatus{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPLEGStatus), NodeName: a.cfg.Node.NodeName}
	if a.pleg == nil {
		out.Message = "the PLEG is off: the agent has no --runtime-endpoint"
		return out
	}
	h := a.pleg.Health()
	st, events := a.plegStats.Stats(), a.pleg.RuntimeEvents()
	out.Enabled = true
	out.RuntimeEndpoint = a.cfg.RuntimeEndpoint
	out.Healthy, out.Message = h.Healthy, h.Message
	out.LastError, out.ConsecutiveFailures = h.LastError, h.ConsecutiveFailures
	out.LastRelist = timePtr(h.LastRelist)
	out.Relists, out.RelistFailures = st.Relists, st.RelistFailures
	out.RelistDuration = latency(st.RelistDuration)
	out.RelistInterval = latency(st.RelistInterval)
	out.Calls = map[string]v1alpha1.Latency{}
	for name, l := range st.Calls {
		out.Calls[name] = latency(l)
	}
	for _, p := range st.SlowestPods {
		out.SlowestPods = append(out.SlowestPods, v1alpha1.SlowPod{UID: p.PodID, Name: p.Name, Namespace: p.Namespace, Seconds: p.DurationSeconds, Time: metav1.NewTime(p.Time), Error: p.Error})
	}
	out.EventsSent = map[string]uint64{}
	for t, n := range st.EventsSent {
		out.EventsSent[string(t)] = n
	}
	out.EventsComputed = map[string]uint64{}
	for t, n := range st.EventsComputed {
		out.EventsComputed[string(t)] = n
	}
	out.EventsDropped = st.EventsDropped
	out.RuntimeEvents, out.RuntimeEventsError, out.EventRelists = events.State, events.Error, events.Relists
	out.Pods, out.RunningPods = st.Pods, st.RunningPods
	out.Containers = map[string]int{}
	for s, n := range st.Containers {
		out.Containers[string(s)] = n
	}
	return out
}

// Version is the answer of /version.
func (a *Agent) Version() v1alpha1.Version {
	return v1alpha1.Version{
		TypeMeta:                 v1alpha1.TypeMetaFor(v1alpha1.KindVersion),
		AgentVersion:             version.Version,
		ServedVersion:            v1alpha1.VersionName,
		ReproducedKubeletVersion: a.reproducedKubeletVersion(),
		NodeKubeletVersion:       a.nodeKubelet(),
		NodeName:                 a.cfg.Node.NodeName,
		GoVersion:                runtime.Version(),
	}
}

// Live applies the kubelet's PLEG health rule.
func (a *Agent) Live() error {
	if a.pleg != nil {
		if ok, err := a.pleg.Healthy(); !ok {
			return fmt.Errorf("PLEG is not healthy: %w", err)
		}
	}
	return nil
}

// Ready is nil once every configured source has sent a full list,
// and not while the node's kubelet is of another minor than the one the
// agent reproduces: then what it serves is not what the kubelet does, and
// a DaemonSet rollout of the wrong agent stops instead of spreading.
func (a *Agent) Ready() error {
	if skew := a.kubeletSkew(a.nodeKubelet()); skew != "" {
		return errors.New(skew)
	}
	var unseen []string
	for _, name := range a.podConfig.Sources() {
		if !a.podConfig.HasSeen(name) {
			unseen = append(unseen, name)
		}
	}
	if len(unseen) > 0 {
		return errors.New("sources not seen yet: " + strings.Join(unseen, ", "))
	}
	return nil
}
