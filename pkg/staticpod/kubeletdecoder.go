package staticpod

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/podsrc/podsrc/pkg/redact"
)

// NewDecoder returns the Decoder that reads files and URL bodies as the
// kubelet's file and URL sources do, with k's code for each pod.
func NewDecoder(k Kubelet) Decoder { return kubeletDecoder{k} }

type kubeletDecoder struct{ k Kubelet }

func (d kubeletDecoder) KubeletVersion() string { return d.k.KubeletVersion() }

// DecodeFile decodes one manifest file (YAML or JSON; only the first YAML
// document counts). Its errors are the kubelet's without the manifest's
// content (redact.Unredacted has them in full), or podsrc's for a quantity
// whose decoding would not finish (checkQuantities).
func (d kubeletDecoder) DecodeFile(data []byte, hostPath, nodeName string) (*v1.Pod, []string, error) {
	if err := checkQuantities(data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", hostPath, err)
	}
	parsed, pod, warnings, err := d.decodePod(data, Location{Source: hostPath, File: true, NodeName: nodeName})
	if !parsed {
		return nil, nil, redact.Errorf("%v: couldn't parse as pod(%w), please check config file", hostPath, err)
	}
	if err != nil {
		return nil, nil, redact.Errorf("%w", err)
	}
	return pod, warnings, nil
}

// DecodeURL decodes a URL body: first as a single pod, then as a pod list.
// Its errors are the kubelet's without the body's content, as DecodeFile's.
func (d kubeletDecoder) DecodeURL(data []byte, url, nodeName string) ([]*v1.Pod, []string, error) {
	if err := checkQuantities(data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", url, err)
	}
	loc := Location{Source: url, NodeName: nodeName}
	parsed, pod, warnings, singleErr := d.decodePod(data, loc)
	if parsed {
		if singleErr != nil {
			return nil, nil, redact.Errorf("%w", singleErr)
		}
		return []*v1.Pod{pod}, warnings, nil
	}
	parsed, pods, listErr := d.k.DecodePodList(data, loc)
	if parsed {
		if listErr != nil {
			return nil, nil, redact.Errorf("%w", listErr)
		}
		return pods, nil, nil
	}
	return nil, nil, redact.Errorf("%v: received '%v', but couldn't parse as single (%w) or multiple pods (%w)",
		url, redact.Body(data), singleErr, listErr)
}

// decodePod turns YAML into JSON first, as the kubelet does for a single pod.
func (d kubeletDecoder) decodePod(data []byte, loc Location) (bool, *v1.Pod, []string, error) {
	asJSON, err := utilyaml.ToJSON(data)
	if err != nil {
		return false, nil, nil, err
	}
	return d.k.DecodePod(asJSON, loc)
}
