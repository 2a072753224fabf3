package kubelet136

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"

	"github.com/podsrc/podsrc/internal/conformance/staticpodtrace"
)

// TestMatchesKubelet compares the decoder with kubelet v1.36's own file and
// URL sources on every scenario's manifests.
func TestMatchesKubelet(t *testing.T) {
	staticpodtrace.CompareWithKubelet(t, New(), staticpodtrace.KubeletSources{
		File: func(path, nodeName string, pods chan<- []*v1.Pod) {
			start(reflect.ValueOf(config.NewSourceFile), pods,
				reflect.ValueOf(klog.Background()), reflect.ValueOf(path), reflect.ValueOf(types.NodeName(nodeName)), reflect.ValueOf(time.Hour))
		},
		URL: func(url, nodeName string, pods chan<- []*v1.Pod) {
			start(reflect.ValueOf(config.NewSourceURL), pods,
				reflect.ValueOf(klog.Background()), reflect.ValueOf(url), reflect.ValueOf(http.Header(nil)), reflect.ValueOf(types.NodeName(nodeName)), reflect.ValueOf(time.Hour))
		},
	})
}

// start calls a v1.36 source constructor with args and a channel of its
// update type, which v1.36 does not export (config.sourceUpdate, a struct
// with the field Pods), and hands the pods of every update to pods.
func start(newSource reflect.Value, pods chan<- []*v1.Pod, args ...reflect.Value) {
	last := newSource.Type().In(newSource.Type().NumIn() - 1)
	ch := reflect.MakeChan(reflect.ChanOf(reflect.BothDir, last.Elem()), 0)
	go func() {
		for {
			u, ok := ch.Recv()
			if !ok {
				return
			}
			pods <- u.FieldByName("Pods").Interface().([]*v1.Pod)
		}
	}()
	newSource.Call(append(args, ch.Convert(last)))
}
