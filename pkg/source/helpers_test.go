package source

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// fakeDecoder stands in for the kubelet decoder in unit tests. A manifest is
// "pod <name>" (optionally followed by more words, which change the UID);
// anything else is rejected; a word warn=<text> is a warning of the
// decoder's about a file's pod or a URL's single pod. A URL body is one or
// more such lines.
type fakeDecoder struct{}

func (fakeDecoder) KubeletVersion() string { return "v0.0.0-fake" }

func (fakeDecoder) DecodeFile(data []byte, hostPath, nodeName string) (*v1.Pod, []string, error) {
	text := strings.TrimSpace(string(data))
	pod, err := fakePod(text, "file:"+hostPath, nodeName)
	if err != nil {
		return nil, nil, err
	}
	return pod, fakeWarnings(text), nil
}

// fakeWarnings are the warn=<text> words of a fake manifest.
func fakeWarnings(text string) []string {
	var warnings []string
	for _, f := range strings.Fields(text) {
		if w, ok := strings.CutPrefix(f, "warn="); ok {
			warnings = append(warnings, w)
		}
	}
	return warnings
}

func (fakeDecoder) DecodeURL(data []byte, url, nodeName string) ([]*v1.Pod, []string, error) {
	var pods []*v1.Pod
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		p, err := fakePod(line, "url:"+url, nodeName)
		if err != nil {
			// As the kubelet decoder's message, it quotes the URL and
			// the body's size (staticpod.Decoder leaves the body out).
			return nil, nil, fmt.Errorf("%s: received '<the %d-byte body>', but couldn't parse as single or multiple pods (%w)", url, len(data), err)
		}
		pods = append(pods, p)
	}
	if len(pods) == 1 {
		return pods, fakeWarnings(string(data)), nil
	}
	return pods, nil, nil
}

func fakePod(text, origin, nodeName string) (*v1.Pod, error) {
	fields := strings.Fields(text)
	if len(fields) < 2 || fields[0] != "pod" {
		return nil, errors.New("invalid pod: not a fake manifest")
	}
	sum := sha256.Sum256([]byte(text + "\x00" + origin))
	uid := hex.EncodeToString(sum[:16])
	return &v1.Pod{
		ObjectMeta: metav1ObjectMeta(fields[1]+"-"+strings.ToLower(nodeName), uid, origin),
		Spec:       v1.PodSpec{NodeName: nodeName},
		Status:     v1.PodStatus{Phase: v1.PodPending},
	}, nil
}

func metav1ObjectMeta(name, uid, origin string) (m metav1.ObjectMeta) {
	m.Name = name
	m.Namespace = "default"
	m.UID = types.UID(uid)
	m.Annotations = map[string]string{"kubernetes.io/config.hash": uid, "test/origin": origin}
	return m
}
