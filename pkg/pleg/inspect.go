package pleg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	crierrors "k8s.io/cri-api/pkg/errors"
	netutils "k8s.io/utils/net"

	"github.com/podsrc/podsrc/pkg/cri"
)

// inspect reads the status of every sandbox and container of a pod, as the
// kubelet's GetPodStatus does for the listed IDs: an object the runtime no
// longer knows is skipped, any other error fails the whole inspection. It
// returns the number of CRI calls made.
func (g *GenericPLEG) inspect(ctx context.Context, rec *podRecord, ts time.Time) (*PodStatus, int, error) {
	p := &rec.cur
	st := &PodStatus{
		ID:         rec.uid,
		Name:       p.name,
		Namespace:  p.namespace,
		Sandboxes:  make([]SandboxStatus, 0, len(p.sandboxes)),
		Containers: make([]ContainerStatus, 0, len(p.containers)),
		Timestamp:  ts,
	}
	calls := 0
	for i := range p.sandboxes {
		id := p.sandboxes[i].id
		start := g.clock.Now()
		resp, err := g.runtime.PodSandboxStatus(ctx, id)
		calls++
		notFound := crierrors.IsNotFound(err)
		g.opts.Observer.CallDone(CallPodSandboxStatus, g.clock.Since(start), err != nil && !notFound)
		if notFound {
			continue
		}
		if err != nil {
			return nil, calls, fmt.Errorf("inspecting sandbox %s: %w", id, err)
		}
		s := resp.GetStatus()
		if s == nil {
			return nil, calls, fmt.Errorf("inspecting sandbox %s: runtime returned no status", id)
		}
		ss := SandboxStatus{ID: s.Id, State: s.State.String(), CreatedAt: nanos(s.CreatedAt), IPs: sandboxIPs(s)}
		if s.Metadata != nil {
			ss.Attempt = s.Metadata.Attempt
		}
		st.Sandboxes = append(st.Sandboxes, ss)
		if i == 0 && s.State == runtimeapi.PodSandboxState_SANDBOX_READY {
			st.IPs = podIPs(s)
		}
	}
	for i := range p.containers {
		e := &p.containers[i]
		start := g.clock.Now()
		resp, err := g.runtime.ContainerStatus(ctx, e.id)
		calls++
		notFound := crierrors.IsNotFound(err)
		g.opts.Observer.CallDone(CallContainerStatus, g.clock.Since(start), err != nil && !notFound)
		if notFound {
			continue
		}
		if err != nil {
			return nil, calls, fmt.Errorf("inspecting container %s: %w", e.id, err)
		}
		s := resp.GetStatus()
		if s == nil {
			return nil, calls, fmt.Errorf("inspecting container %s: runtime returned no status", e.id)
		}
		st.Containers = append(st.Containers, containerStatus(s, e.sandboxID))
	}
	slices.SortStableFunc(st.Containers, func(a, b ContainerStatus) int { return b.CreatedAt.Compare(a.CreatedAt) })
	if len(st.IPs) == 0 {
		st.IPs = g.keptIPs(st)
	}
	return st, calls, nil
}

// keptIPs keeps a pod's previous IPs when its new status has none and none of
// its sandboxes is ready, so that a finished pod still shows its IP.
func (g *GenericPLEG) keptIPs(st *PodStatus) []string {
	for _, s := range st.Sandboxes {
		if s.State == runtimeapi.PodSandboxState_SANDBOX_READY.String() {
			return st.IPs
		}
	}
	return g.cache.lastIPs(st.ID)
}

// podIPs returns the primary and additional IPs of a ready sandbox; none when
// one of them does not parse, as in the kubelet (which also answers an empty,
// not nil, list when the sandbox has no IP).
func podIPs(s *runtimeapi.PodSandboxStatus) []string {
	ips := sandboxIPs(s)
	for _, ip := range ips {
		if netutils.ParseIPSloppy(ip) == nil {
			return nil
		}
	}
	if ips == nil {
		return []string{}
	}
	return ips
}

// sandboxIPs returns every IP a sandbox status carries, unchecked.
func sandboxIPs(s *runtimeapi.PodSandboxStatus) []string {
	if s.Network == nil {
		return nil
	}
	var ips []string
	if s.Network.Ip != "" {
		ips = append(ips, s.Network.Ip)
	}
	for _, a := range s.Network.AdditionalIps {
		ips = append(ips, a.Ip)
	}
	return ips
}

// containerStatus converts a CRI container status the way the kubelet reads
// it (the termination message file and log fallback are not read). Where the
// kubelet's container-name label is missing, the name is the CRI metadata's,
// which the kubelet leaves empty.
func containerStatus(s *runtimeapi.ContainerStatus, sandboxID string) ContainerStatus {
	cs := ContainerStatus{
		ID:        s.Id,
		Name:      s.Labels[cri.LabelContainerName],
		State:     containerState(s.State),
		SandboxID: sandboxID,
		ImageRef:  s.ImageRef,
		CreatedAt: nanos(s.CreatedAt),
	}
	if s.Metadata != nil {
		cs.Attempt = s.Metadata.Attempt
		if cs.Name == "" {
			cs.Name = s.Metadata.Name
		}
	}
	if s.Image != nil {
		cs.Image = s.Image.Image
	}
	if v, ok := s.Annotations[cri.AnnotationRestartCount]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			cs.RestartCount = n
		}
	}
	if s.State != runtimeapi.ContainerState_CONTAINER_CREATED {
		cs.StartedAt = nanos(s.StartedAt)
	}
	if s.State == runtimeapi.ContainerState_CONTAINER_EXITED {
		cs.Reason = s.Reason
		cs.Message = s.Message
		cs.ExitCode = int(s.ExitCode)
		cs.FinishedAt = nanos(s.FinishedAt)
	}
	return cs
}

// nanos converts CRI nanoseconds since the epoch; zero stays the zero time.
func nanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
