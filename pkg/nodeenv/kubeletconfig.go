package nodeenv

import (
	"fmt"
	"os"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"
)

// LoadKubeletConfig reads a kubelet configuration file (YAML or JSON,
// kubelet.config.k8s.io/v1beta1 KubeletConfiguration) at the given path.
// Field names are matched case-sensitively and unknown fields are ignored,
// as the kubelet's lenient decoding does. The drop-in files of the kubelet's
// --config-dir are not read.
func LoadKubeletConfig(path string) (*kubeletv1beta1.KubeletConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading kubelet config %s: %w", path, err)
	}
	kc := &kubeletv1beta1.KubeletConfiguration{}
	// sigs.k8s.io/yaml's Unmarshal would match "StaticPodPath" to
	// staticPodPath, a field the kubelet does not see.
	js, err := yaml.YAMLToJSON(data)
	if err == nil {
		err = utiljson.Unmarshal(js, kc)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding kubelet config %s: %w", path, err)
	}
	if kc.Kind != "KubeletConfiguration" || kc.APIVersion != kubeletv1beta1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("kubelet config %s: kind %q apiVersion %q, want KubeletConfiguration %s",
			path, kc.Kind, kc.APIVersion, kubeletv1beta1.SchemeGroupVersion)
	}
	return kc, nil
}
