// Package admission builds kubelet v1.35's admit handlers, from the
// kubelet's own lifecycle, sysctl and preemption packages, as the
// admission.AdmitHandler podsrc judges added pods with.
package admission

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/kubelet/preemption"
	"k8s.io/kubernetes/pkg/kubelet/sysctl"
	schedulerframework "k8s.io/kubernetes/pkg/scheduler/framework"

	admit "github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/staticpod/internalpod"
)

// KubeletVersion is the kubelet whose handlers New builds: the
// k8s.io/kubernetes this module links.
func KubeletVersion() string { return internalpod.LinkedKubernetesVersion("v1.35.4") }

// New returns the handlers cfg names, chained in the order v1.35's
// NewMainKubelet chains them, podsrc's eviction handler (which judges from the
// Node's pressure conditions) in the place of the eviction manager's; the
// pods critical pod preemption would kill are recorded as the verdict's
// victims instead, and a pod they admit that a handler judging from what
// podsrc cannot see (cfg.Unseen) may refuse is unknown.
func New(ctx context.Context, cfg admit.Config) (admit.AdmitHandler, error) {
	h := &admit.Hooks{}
	funcs, err := kubeletHandlers(ctx, cfg.AllowedUnsafeSysctls, h.Callbacks())
	if err != nil {
		return nil, err
	}
	return h.Build(KubeletVersion(), funcs, cfg, podClass())
}

// kubeletHandlers builds v1.35's admit handlers by name as its
// NewMainKubelet does, on the kubelet's callbacks k: the sysctl allowlist
// (the safe sysctls the running kernel has, and the allowed unsafe ones),
// the general predicates with critical pod preemption as their failure
// handler, and the pod features handler.
func kubeletHandlers(ctx context.Context, allowedUnsafeSysctls []string, k admit.Callbacks) (map[string]admit.AdmitFunc, error) {
	allowlist, err := sysctl.NewAllowlist(append(sysctl.SafeSysctlAllowlist(ctx), allowedUnsafeSysctls...))
	if err != nil {
		return nil, fmt.Errorf("building the sysctl allowlist of kubelet %s: %w", KubeletVersion(), err)
	}
	preempt := preemption.NewCriticalPodAdmissionHandler(k.ActivePods, k.Kill, &record.FakeRecorder{})
	node := func(context.Context, bool) (*v1.Node, error) { return k.Node() }
	return map[string]admit.AdmitFunc{
		v1alpha1.AdmitHandlerSysctl:      admitFunc(allowlist),
		v1alpha1.AdmitHandlerPredicate:   admitFunc(lifecycle.NewPredicateAdmitHandler(node, preempt, keepPluginResources)),
		v1alpha1.AdmitHandlerPodFeatures: admitFunc(lifecycle.NewPodFeaturesAdmitHandler()),
	}, nil
}

// admitFunc calls one of the kubelet's admit handlers with what the kubelet's allocation manager
// hands them for an added pod.
func admitFunc(h lifecycle.PodAdmitHandler) admit.AdmitFunc {
	return func(in admit.AdmitAttributes) (bool, string, string) {
		r := h.Admit(&lifecycle.PodAdmitAttributes{Pod: in.Pod, OtherPods: in.OtherPods})
		return r.Admit, r.Reason, r.Message
	}
}

// keepPluginResources stands for the container manager's
// UpdatePluginResources, which corrects the node's allocatable of device
// plugin resources from the devices the device manager has allocated;
// podsrc does not see those, and keeps the Node's.
func keepPluginResources(*schedulerframework.NodeInfo, *lifecycle.PodAdmitAttributes) error {
	return nil
}
