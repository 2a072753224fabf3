package deploy

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/podsrc/podsrc/pkg/redact"
)

// The Secret that holds a layout's static pod URL and its headers, which
// may carry credentials: the agent reads them from its files rather than
// from flags anyone who may read DaemonSets could read.
const (
	urlSecretVol    = "static-pod-url"
	urlSecretDir    = "/etc/podsrc/static-pod-url"
	urlSecretKey    = "url"
	headerSecretKey = "headers"
	// urlSecretSuffix ends the Secret's name, its DaemonSet's name before.
	urlSecretSuffix = "-static-pod-url"
)

// URLSecretName is the name of the Secret of a group's static pod URL.
func URLSecretName(g Group) string { return DaemonSetName(g) + urlSecretSuffix }

// urlSecret is the Secret of the group's static pod URL in namespace, nil
// when its layout has none; with mask, its credentials are
// redact.Masked, for printing.
func urlSecret(g Group, namespace string, mask bool) (*unstructured.Unstructured, error) {
	l := g.Layout
	if l.StaticPodURL == "" {
		return nil, nil
	}
	url := l.StaticPodURL
	if mask {
		url = redact.MaskURL(url)
	}
	lbls, err := labels.ConvertSelectorToLabelsMap(PartOfLabel)
	if err != nil {
		return nil, fmt.Errorf("labelling the static pod URL's Secret: %w", err)
	}
	lbls[instanceLabel] = DaemonSetName(g)
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: URLSecretName(g), Namespace: namespace, Labels: lbls},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{urlSecretKey: []byte(url)},
	}
	if lines := l.headerLines(mask); len(lines) > 0 {
		s.Data[headerSecretKey] = []byte(strings.Join(lines, "\n") + "\n")
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return nil, fmt.Errorf("Secret %s: %w", URLSecretName(g), err)
	}
	unstructured.RemoveNestedField(u, "metadata", "creationTimestamp")
	return &unstructured.Unstructured{Object: u}, nil
}

// mountURLSecret mounts the group's Secret, when its layout has a static
// pod URL, read-only at urlSecretDir in container c.
func mountURLSecret(spec *corev1.PodSpec, c *corev1.Container, g Group) {
	if g.Layout.StaticPodURL == "" {
		return
	}
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: urlSecretVol, VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: URLSecretName(g), DefaultMode: ptr.To[int32](0o400)},
	}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: urlSecretVol, MountPath: urlSecretDir, ReadOnly: true})
}
