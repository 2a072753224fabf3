// Package kubelet133 decodes static pods with the code of kubelet v1.33
// (k8s.io/kubernetes v1.33.13): its internal Pod type, defaults, validation
// with empty options, and MD5 UIDs. v1.33 has no
// PreventStaticPodAPIReferences gate. pkg/staticpod.NewDecoder adds the
// file and URL flow all minors share.
//
// It is a module of its own because k8s.io/kubernetes can only be required
// with replace directives for its staging modules; the root module must stay
// free of them, and each kubelet minor needs its own k8s.io/kubernetes.
package kubelet133

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
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

// pinnedVersion is the k8s.io/kubernetes version go.mod pins, for binaries
// without module information.
const pinnedVersion = "v1.33.13"

// New returns the static pod decoder of kubelet v1.33. It follows the
// process-wide feature gates, as the kubelet does.
func New() staticpod.Decoder { return staticpod.NewDecoder(code{}) }

// code is kubelet v1.33's part of the decoding (staticpod.Kubelet).
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
		// List items meet no API-reference check.
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
// pod with empty validation options, as kubelet v1.33 does.
func prepare(pod *api.Pod, origin staticpod.Origin) error {
	if pod.Name == "" {
		return fmt.Errorf("invalid pod: name is needed for the pod")
	}
	applyDefaults(pod, origin)
	if errs := validation.ValidatePodCreate(pod, validation.PodValidationOptions{}); len(errs) > 0 {
		return fmt.Errorf("invalid pod: %v", errs)
	}
	return nil
}

// applyDefaults sets what the kubelet sets on every static pod. The UID,
// unless the manifest gives one, is the MD5 hash of the decoded
// internal pod followed by the origin.
func applyDefaults(pod *api.Pod, origin staticpod.Origin) {
	if pod.UID == "" {
		h := md5.New()
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

// checkReferences applies v1.33's checks of a single pod on the converted
// pod; a nil converted pod (a list item) meets none.
func checkReferences(_ *api.Pod, converted *v1.Pod) error {
	if converted == nil {
		return nil
	}
	return staticpod.CheckTrustBundlesAndClaims(converted)
}
