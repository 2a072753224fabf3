// Package kubelet implements staticpod.Decoder with the kubelet's own
// internal API machinery from k8s.io/kubernetes, so that the pods podsrc
// builds from static pod manifests, their UIDs included, are those the
// kubelet of the same version builds.
//
// This package is a module of its own because k8s.io/kubernetes can only be
// required together with replace directives for its staging modules; the
// root podsrc module must stay free of them.
package kubelet

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime/debug"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
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

// defaultKubeletVersion is the k8s.io/kubernetes version this module pins in
// its go.mod; KubeletVersion falls back to it when the binary carries no
// module information.
const defaultKubeletVersion = "v1.36.3"

// ErrClusterTrustBundle is the kubelet's rejection of a static pod with a
// ClusterTrustBundle projected volume when PreventStaticPodAPIReferences is
// disabled.
var ErrClusterTrustBundle = errors.New("static pods may not use ClusterTrustBundle projected volume sources")

// ErrResourceClaims is the kubelet's rejection of a static pod with resource
// claims when PreventStaticPodAPIReferences is disabled.
var ErrResourceClaims = errors.New("static pods may not use ResourceClaims")

// Decoder is the k8s.io/kubernetes-backed staticpod.Decoder. The zero value
// is ready to use; it follows the process-wide default feature gates, as the
// kubelet does.
type Decoder struct{}

var _ staticpod.Decoder = Decoder{}

// New returns a Decoder.
func New() Decoder { return Decoder{} }

// KubeletVersion returns the version of k8s.io/kubernetes linked into the
// binary, the kubelet version whose behaviour the decoder reproduces.
func (Decoder) KubeletVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path != "k8s.io/kubernetes" {
				continue
			}
			if dep.Replace != nil && dep.Replace.Version != "" {
				return dep.Replace.Version
			}
			if dep.Version != "" && dep.Version != "(devel)" {
				return dep.Version
			}
		}
	}
	return defaultKubeletVersion
}

// DecodeFile decodes one static pod manifest file (YAML or JSON; only the
// first YAML document counts).
func (Decoder) DecodeFile(data []byte, hostPath, nodeName string) (*v1.Pod, error) {
	origin := podOrigin{source: hostPath, file: true, nodeName: nodeName}
	usable, pod, err := decodeOne(data, origin)
	if !usable {
		return nil, fmt.Errorf("%v: couldn't parse as pod(%w), please check config file", hostPath, err)
	}
	if err != nil {
		return nil, err
	}
	return pod, nil
}

// DecodeURL decodes a static pod URL body: first as a single pod, then as a
// pod list. One invalid pod in a list rejects the whole body.
func (Decoder) DecodeURL(data []byte, url, nodeName string) ([]*v1.Pod, error) {
	origin := podOrigin{source: url, nodeName: nodeName}
	usable, pod, singleErr := decodeOne(data, origin)
	if usable {
		if singleErr != nil {
			return nil, singleErr
		}
		return []*v1.Pod{pod}, nil
	}
	usable, pods, listErr := decodeList(data, origin)
	if usable {
		if listErr != nil {
			return nil, listErr
		}
		return pods, nil
	}
	return nil, fmt.Errorf("%v: received '%v', but couldn't parse as single (%w) or multiple pods (%w)",
		url, string(data), singleErr, listErr)
}

// podOrigin says where a static pod came from; it enters the UID hash.
type podOrigin struct {
	source   string // the host path of the file, or the URL
	file     bool
	nodeName string
}

// decodeOne decodes a single pod. usable reports whether the data was a pod
// at all; a usable pod can still be rejected by err.
func decodeOne(data []byte, origin podOrigin) (usable bool, pod *v1.Pod, err error) {
	asJSON, err := utilyaml.ToJSON(data)
	if err != nil {
		return false, nil, err
	}
	obj, err := runtime.Decode(legacyscheme.Codecs.UniversalDecoder(), asJSON)
	if err != nil {
		return false, nil, err
	}
	internal, ok := obj.(*api.Pod)
	if !ok {
		return false, nil, fmt.Errorf("invalid pod: %#v", obj)
	}
	if err := prepare(internal, origin); err != nil {
		return true, nil, err
	}
	out := &v1.Pod{}
	if err := corev1conv.Convert_core_Pod_To_v1_Pod(internal, out, nil); err != nil {
		return true, nil, err
	}
	if err := checkReferences(internal, out); err != nil {
		return true, nil, err
	}
	return true, out, nil
}

// decodeList decodes a pod list; every pod must be valid.
func decodeList(data []byte, origin podOrigin) (usable bool, pods []*v1.Pod, err error) {
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
		// The kubelet applies only the API-reference rule to list items, not
		// the gate-off fallback checks.
		if err := checkReferences(item, nil); err != nil {
			return true, nil, err
		}
	}
	out := &v1.PodList{}
	if err := corev1conv.Convert_core_PodList_To_v1_PodList(list, out, nil); err != nil {
		return true, nil, err
	}
	pods = make([]*v1.Pod, 0, len(out.Items))
	for i := range out.Items {
		pods = append(pods, &out.Items[i])
	}
	return true, pods, nil
}

// prepare checks the name, applies the static pod defaults and validates the
// pod as the API server would on create.
func prepare(pod *api.Pod, origin podOrigin) error {
	if pod.Name == "" {
		return fmt.Errorf("invalid pod: name is needed for the pod")
	}
	applyStaticDefaults(pod, origin)
	opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&pod.Spec, nil, &pod.ObjectMeta, nil)
	if errs := validation.ValidatePodCreate(pod, opts); len(errs) > 0 {
		return fmt.Errorf("invalid pod: %v", errs)
	}
	return nil
}

// applyStaticDefaults sets what the kubelet sets on every static pod. The UID,
// unless the manifest gives one, hashes the decoded internal pod before any
// other change, followed by the origin.
func applyStaticDefaults(pod *api.Pod, origin podOrigin) {
	if pod.UID == "" {
		h := fnv.New128a()
		// DeepHashObject resets h first, so the origin goes in afterwards.
		hash.DeepHashObject(h, pod)
		if origin.file {
			fmt.Fprintf(h, "host:%s", origin.nodeName)
			fmt.Fprintf(h, "file:%s", origin.source)
		} else {
			fmt.Fprintf(h, "url:%s", origin.source)
		}
		pod.UID = types.UID(hex.EncodeToString(h.Sum(nil)))
	}
	pod.Name = pod.Name + "-" + strings.ToLower(origin.nodeName)
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	pod.Spec.NodeName = origin.nodeName
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[kubetypes.ConfigHashAnnotationKey] = string(pod.UID)
	if origin.file {
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
	for _, vol := range converted.Spec.Volumes {
		if vol.Projected == nil {
			continue
		}
		for _, src := range vol.Projected.Sources {
			if src.ClusterTrustBundle != nil {
				return ErrClusterTrustBundle
			}
		}
	}
	if len(converted.Spec.ResourceClaims) > 0 {
		return ErrResourceClaims
	}
	return nil
}
