package agent

import (
	"reflect"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/pkg/staticpod"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// TestPodInfoContainers: a pod's info lists the containers its spec runs,
// sidecars first as kubectl counts them, so that a pod whose containers
// never started still counts them.
func TestPodInfoContainers(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	for _, tc := range []struct {
		name string
		spec v1.PodSpec
		want []string
	}{
		{"one", v1.PodSpec{Containers: []v1.Container{{Name: "web"}}, RestartPolicy: v1.RestartPolicyAlways}, []string{"web"}},
		{"init containers are not counted, sidecars are", v1.PodSpec{
			InitContainers: []v1.Container{{Name: "setup"}, {Name: "proxy", RestartPolicy: &always}},
			Containers:     []v1.Container{{Name: "web"}, {Name: "log"}}, RestartPolicy: v1.RestartPolicyAlways,
		}, []string{"proxy", "web", "log"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := podInfo(syncloop.Sourced{Pod: &v1.Pod{Spec: tc.spec}, Source: v1alpha1.SourceAPI})
			if !slices.Equal(info.Containers, tc.want) || info.RestartPolicy != string(tc.spec.RestartPolicy) {
				t.Errorf("containers %q, restart policy %q; want %q, %q", info.Containers, info.RestartPolicy, tc.want, tc.spec.RestartPolicy)
			}
		})
	}
}

// TestSourceInfoWarnedFiles: the files a source warns about are served
// with every warning, in their own copy.
func TestSourceInfoWarnedFiles(t *testing.T) {
	const w = "kubelet v1.37 warns: priority 1000 without a priorityClassName"
	st := &source.Status{Warned: []staticpod.WarnedFile{{Path: "/etc/kubernetes/manifests/etcd.yaml", Pod: "kube-system/etcd-node-1", Warnings: []string{w}}}}
	got := sourceInfo(v1alpha1.SourceFile, st, nil, false).WarnedFiles
	want := []v1alpha1.WarnedFile{{Path: "/etc/kubernetes/manifests/etcd.yaml", Pod: "kube-system/etcd-node-1", Warnings: []string{w}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("warned files %+v, want %+v", got, want)
	}
	st.Warned[0].Warnings[0] = "changed"
	if got[0].Warnings[0] != w {
		t.Errorf("the served warnings share the status's slice")
	}
}
