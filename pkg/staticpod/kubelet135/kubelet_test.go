package kubelet135

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsrc/podsrc/internal/conformance/staticpodtrace"
)

// TestMatchesKubelet compares the decoder with kubelet v1.35's own file and
// URL sources on every scenario's manifests.
func TestMatchesKubelet(t *testing.T) {
	staticpodtrace.CompareWithKubelet(t, New(), staticpodtrace.KubeletSources{
		File: func(path, nodeName string, pods chan<- []*v1.Pod) {
			config.NewSourceFile(klog.Background(), path, types.NodeName(nodeName), time.Hour, forward(pods))
		},
		URL: func(url, nodeName string, pods chan<- []*v1.Pod) {
			config.NewSourceURL(klog.Background(), url, nil, types.NodeName(nodeName), time.Hour, forward(pods))
		},
	})
}

// forward hands the pods of the kubelet's updates to pods.
func forward(pods chan<- []*v1.Pod) chan<- interface{} {
	ch := make(chan interface{})
	go func() {
		for u := range ch {
			pods <- u.(kubetypes.PodUpdate).Pods
		}
	}()
	return ch
}
