// Package internalpod decodes static pods the way every kubelet minor does,
// through the kubelet's internal Pod type: decoding with API defaulting, the
// generated UID, the static pod defaults, validation, conversion to v1 and the
// API-reference rules. What differs between minors comes in a Specifics, from
// each minor's module (cmd/podsrc-agent/kubelet1NN for v1.NN).
//
// The package is built against the k8s.io/kubernetes of whichever minor's
// module links it: this module requires the oldest supported minor, so Go's
// minimal version selection takes each minor module's own pin, and only calls
// what every supported minor has. It is a module of its own because
// k8s.io/kubernetes needs replace directives, which the root module must not
// have.
package internalpod

import (
	"encoding/hex"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/helper"
	// Registers the core API group, its defaulting and conversions in the
	// legacy scheme.
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	corev1conv "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"k8s.io/kubernetes/pkg/util/hash"

	"github.com/podsrc/podsrc/pkg/staticpod"
)

// NewDecoder returns the static pod decoder of the kubelet minor m
// describes. It follows the process-wide feature gates, as the kubelet does.
func NewDecoder(m Specifics) staticpod.Decoder { return staticpod.NewDecoder(kubelet{m}) }

// kubelet is one minor's part of static pod decoding (staticpod.Kubelet).
type kubelet struct{ m Specifics }

func (k kubelet) KubeletVersion() string { return LinkedKubernetesVersion(k.m.Version) }

func (k kubelet) DecodePod(data []byte, loc staticpod.Location) (bool, *v1.Pod, []string, error) {
	obj, err := runtime.Decode(legacyscheme.Codecs.UniversalDecoder(), data)
	if err != nil {
		return false, nil, nil, err
	}
	pod, ok := obj.(*api.Pod)
	if !ok {
		return false, nil, nil, fmt.Errorf("invalid pod: %#v", obj)
	}
	if err := k.prepare(pod, loc); err != nil {
		return true, nil, nil, err
	}
	out := &v1.Pod{}
	if err := corev1conv.Convert_core_Pod_To_v1_Pod(pod, out, nil); err != nil {
		return true, nil, nil, err
	}
	if err := k.checkReferences(pod, out); err != nil {
		return true, nil, nil, err
	}
	return true, out, k.warnings(pod), nil
}

func (k kubelet) DecodePodList(data []byte, loc staticpod.Location) (bool, []*v1.Pod, error) {
	obj, err := runtime.Decode(legacyscheme.Codecs.UniversalDecoder(), data)
	if err != nil {
		return false, nil, err
	}
	list, ok := obj.(*api.PodList)
	if !ok {
		return false, nil, fmt.Errorf("invalid pods list: %#v", obj)
	}
	for i := range list.Items {
		item := &list.Items[i]
		if err := k.prepare(item, loc); err != nil {
			return true, nil, err
		}
		// List items meet only the API-reference rule (where the gate is
		// on), never the older checks of a single pod.
		if err := k.checkReferences(item, nil); err != nil {
			return true, nil, err
		}
	}
	out := &v1.PodList{}
	if err := corev1conv.Convert_core_PodList_To_v1_PodList(list, out, nil); err != nil {
		return true, nil, err
	}
	pods := make([]*v1.Pod, 0, len(out.Items))
	for i := range out.Items {
		pods = append(pods, &out.Items[i])
	}
	return true, pods, nil
}

// prepare checks the name, applies the static pod defaults and validates the
// pod as the minor does.
func (k kubelet) prepare(pod *api.Pod, loc staticpod.Location) error {
	if pod.Name == "" {
		return fmt.Errorf("invalid pod: name is needed for the pod")
	}
	k.applyDefaults(pod, loc)
	opts := validation.PodValidationOptions{}
	if k.m.DeriveValidationOptions {
		opts = podutil.GetValidationOptionsFromPodSpecAndMeta(&pod.Spec, nil, &pod.ObjectMeta, nil)
	}
	if errs := validation.ValidatePodCreate(pod, opts); len(errs) > 0 {
		return fmt.Errorf("invalid pod: %v", errs)
	}
	return nil
}

// applyDefaults sets what the kubelet sets on every static pod. The UID,
// unless the manifest gives one, is the minor's hash of the decoded internal
// pod followed by its location.
func (k kubelet) applyDefaults(pod *api.Pod, loc staticpod.Location) {
	if pod.UID == "" {
		h := k.m.NewUIDHash()
		// DeepHashObject resets h first, so the location goes in afterwards.
		hash.DeepHashObject(h, pod)
		loc.WriteHash(h)
		pod.UID = types.UID(hex.EncodeToString(h.Sum(nil)))
	}
	pod.Name = loc.PodName(pod.Name)
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	pod.Spec.NodeName = loc.NodeName
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[kubetypes.ConfigHashAnnotationKey] = string(pod.UID)
	if loc.File {
		helper.AddOrUpdateTolerationInPod(pod, &api.Toleration{
			Operator: api.TolerationOpExists,
			Effect:   api.TaintEffectNoExecute,
		})
	}
	pod.Status.Phase = api.PodPending
}

// checkReferences bans every API object reference where the minor bans
// them, or its gate is on. Otherwise (gate off, or a minor without it) a
// single pod meets the older ClusterTrustBundle and ResourceClaims checks
// on its converted form; a nil converted pod (a list item) meets none.
func (k kubelet) checkReferences(pod *api.Pod, converted *v1.Pod) error {
	if k.m.ReferencesBanned || k.m.ReferenceGate != "" && utilfeature.DefaultFeatureGate.Enabled(k.m.ReferenceGate) {
		_, resource, err := k.m.FindAPIReference(pod)
		if err != nil {
			return err
		}
		if resource != "" {
			return fmt.Errorf("static pods may not reference %s", resource)
		}
		return nil
	}
	if converted == nil {
		return nil
	}
	return CheckTrustBundlesAndClaims(converted)
}

// warnings are the minor's warnings about an accepted single pod: its
// priority check where it has one.
func (k kubelet) warnings(pod *api.Pod) []string {
	if k.m.PriorityWarning == nil {
		return nil
	}
	if w := k.m.PriorityWarning(pod); w != "" {
		return []string{w}
	}
	return nil
}
