package why

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// BenchmarkAnalyze analyzes one crash-looping static pod on a node of 500
// pods whose agent holds a full default buffer of events (10,000), the
// worst case of the history scans.
func BenchmarkAnalyze(b *testing.B) {
	f := baseFacts()
	target := staticPod("target")
	target.Runtime.Containers[0].State, target.Runtime.Containers[0].ExitCode = "exited", 1
	pods := []v1alpha1.PodInfo{target}
	for i := range 499 {
		pods = append(pods, apiPod("default", fmt.Sprintf("pod-%d", i)))
	}
	for i := range 10000 {
		p := pods[i%len(pods)]
		if i%2 == 0 {
			f.History.Value = append(f.History.Value, configEvent("UPDATE", "api", time.Duration(10000-i)*time.Second, p))
		} else {
			f.History.Value = append(f.History.Value, diedEvent(p, p.Name, 1, time.Duration(10000-i)*time.Second))
		}
	}
	f.APIPod = Lookup[*corev1.Pod]{Value: specOf(target, target.ConfigHash)}
	f = withPods(f, pathTarget(target.Origin), pods...)
	b.ReportAllocs()
	for b.Loop() {
		if r := Analyze(f); r.Stage != v1alpha1.StageContainers {
			b.Fatalf("stage %q", r.Stage)
		}
	}
}

// BenchmarkLocateAll locates every pod of a node of 10,000 pods with one
// Locator, as why --all does.
func BenchmarkLocateAll(b *testing.B) {
	f := baseFacts()
	var pods []v1alpha1.PodInfo
	for i := range 10000 {
		pods = append(pods, apiPod(fmt.Sprintf("ns-%d", i%10), fmt.Sprintf("pod-%d", i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		l := NewLocator(testNode, f.Sources, pods)
		for i := range pods {
			if s, err := l.Locate(nameTarget(pods[i].Namespace, pods[i].Name)); err != nil || s.Info != &pods[i] {
				b.Fatalf("pod %d: %+v, %v", i, s, err)
			}
		}
	}
}
