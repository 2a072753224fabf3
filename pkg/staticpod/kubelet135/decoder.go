// Package kubelet135 decodes static pods with the code of kubelet v1.35
// (k8s.io/kubernetes v1.35.4): its internal Pod type, defaults, validation
// with options derived from the pod, FNV-128a UIDs and the
// PreventStaticPodAPIReferences gate. pkg/staticpod.NewDecoder adds the
// file and URL flow all minors share.
//
// It is a module of its own because k8s.io/kubernetes can only be required
// with replace directives for its staging modules; the root module must stay
// free of them, and each kubelet minor needs its own k8s.io/kubernetes.
package kubelet135

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"

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
	"k8s.io/kubernetes/pkg/features"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"k8s.io/kubernetes/pkg/util/hash"

	"github.com/podsrc/podsrc/pkg/staticpod"
)

// pinnedVersion is the k8s.io/kubernetes version go.mod pins, for binaries
// without module information.
const pinnedVersion = "v1.35.4"

// New returns the static pod decoder of kubelet v1.35. It follows the
// process-wide feature gates, as the kubelet does.
func New() staticpod.Decoder { return staticpod.NewDecoder(code{}) }

// code is kubelet v1.35's part of the decoding (staticpod.Kubelet).
type code struct{}

func (code) KubeletVersion() string { return staticpod.LinkedKubernetesVersion(pinnedVersion) }

func (code) DecodePod(data []byte, origin staticpod.Origin) (bool, *v1.Pod, error) {
	obj, err := runtime.Decode(legacyscheme.Codecs.UniversalDecoder(), data)
	if err != nil {
		return false, nil, err
	}
	pod, ok := obj.(*api.Pod)
	if !ok {
		return false, nil, fmt.Errorf("invalid pod: %#v", obj)
	}
	if err := prepare(pod, origin); err != nil {
		return true, nil, err
	}
	out := &v1.Pod{}
	if err := corev1conv.Convert_core_Pod_To_v1_Pod(pod, out, nil); err != nil {
		return true, nil, err
	}
	if err := checkReferences(pod, out); err != nil {
		return true, nil, err
	}
	return true, out, nil
}

func (code) DecodePodList(data []byte, origin staticpod.Origin) (bool, []*v1.Pod, error) {
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
		if err := prepare(item, origin); err != nil {
			return true, nil, err
		}
		// List items meet only the API-reference rule, not the gate-off
		// fallback checks.
		if err := checkReferences(item, nil); err != nil {
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
// pod with options derived from it, as the API server would on create.
func prepare(pod *api.Pod, origin staticpod.Origin) error {
	if pod.Name == "" {
		return fmt.Errorf("invalid pod: name is needed for the pod")
	}
	applyDefaults(pod, origin)
	opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&pod.Spec, nil, &pod.ObjectMeta, nil)
	if errs := validation.ValidatePodCreate(pod, opts); len(errs) > 0 {
		return fmt.Errorf("invalid pod: %v", errs)
	}
	return nil
}

// applyDefaults sets what the kubelet sets on every static pod. The UID,
// unless the manifest gives one, is the FNV-128a hash of the decoded
// internal pod followed by the origin.
func applyDefaults(pod *api.Pod, origin staticpod.Origin) {
	if pod.UID == "" {
		h := fnv.New128a()
		// DeepHashObject resets h first, so the origin goes in afterwards.
		hash.DeepHashObject(h, pod)
		origin.WriteHash(h)
		pod.UID = types.UID(hex.EncodeToString(h.Sum(nil)))
	}
	pod.Name = origin.PodName(pod.Name)
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	pod.Spec.NodeName = origin.NodeName
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[kubetypes.ConfigHashAnnotationKey] = string(pod.UID)
	if origin.File {
		helper.AddOrUpdateTolerationInPod(pod, &api.Toleration{
			Operator: api.TolerationOpExists,
			Effect:   api.TaintEffectNoExecute,
		})
	}
	pod.Status.Phase = api.PodPending
}

// checkReferences applies PreventStaticPodAPIReferences or, with the gate
// off, the older ClusterTrustBundle and ResourceClaims checks on the
// converted pod; a nil converted pod (a list item) skips those.
func checkReferences(pod *api.Pod, converted *v1.Pod) error {
	if utilfeature.DefaultFeatureGate.Enabled(features.PreventStaticPodAPIReferences) {
		_, resource, err := podutil.HasAPIObjectReference(pod)
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
	return staticpod.CheckTrustBundlesAndClaims(converted)
}
