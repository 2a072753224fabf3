package why

import (
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		raw, ns string
		want    Target
		err     string
	}{
		{raw: "/etc/kubernetes/manifests/../manifests/a.yaml", want: Target{Path: "/etc/kubernetes/manifests/a.yaml"}},
		{raw: "kube-system/etcd", want: Target{Namespace: "kube-system", Name: "etcd"}},
		{raw: "etcd", ns: "kube-system", want: Target{Namespace: "kube-system", Name: "etcd"}},
		{raw: "etcd", want: Target{Name: "etcd"}},
		{raw: "a/b/c", err: "want POD, NAMESPACE/POD"},
		{raw: "/", want: Target{Path: "/"}},
		{raw: "a/", err: "want POD"},
		{raw: "", err: "TARGET is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := ParseTarget(tc.raw, tc.ns)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			tc.want.Raw = tc.raw
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	etcd := staticPod("etcd")
	mirror := etcd
	mirror.Source, mirror.Static, mirror.Mirror, mirror.UID = v1alpha1.SourceAPI, false, true, "mirror"
	web, otherWeb := apiPod("default", "web"), apiPod("shop", "web")
	orphan := v1alpha1.PodInfo{Name: "gone", Namespace: "default", UID: "old", Runtime: running("gone")}
	pods := []v1alpha1.PodInfo{mirror, etcd, web, otherWeb, orphan}
	f := baseFacts()
	fileSource(f).RejectedFiles = []v1alpha1.RejectedFile{{Path: testDir + "/bad.yaml", Error: "yaml: line 1"}}
	tests := []struct {
		name   string
		target Target
		source string
		ns     string
		pod    string
		path   string
		err    string
	}{
		{name: "manifest path of a decoded pod", target: pathTarget(etcd.Origin), source: "file", ns: "kube-system", pod: etcd.Name, path: etcd.Origin},
		{name: "short static pod name, the static pod rather than its mirror", target: nameTarget("", "etcd"), source: "file", ns: "kube-system", pod: etcd.Name, path: etcd.Origin},
		{name: "full static pod name", target: nameTarget("kube-system", etcd.Name), source: "file", ns: "kube-system", pod: etcd.Name},
		{name: "a name in two namespaces", target: nameTarget("", "web"), err: "default/web, shop/web"},
		{name: "the namespace decides", target: nameTarget("shop", "web"), source: "api", ns: "shop", pod: "web"},
		{name: "a rejected manifest by file name", target: nameTarget("", "bad"), source: "file", path: testDir + "/bad.yaml"},
		{name: "a runtime orphan is no configured pod", target: nameTarget("", "gone"), source: "api", ns: "default", pod: "gone"},
		{name: "unknown name in the given namespace", target: nameTarget("ops", "x"), source: "api", ns: "ops", pod: "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Locate(tc.target, testNode, f.Sources, pods)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || s.Source != tc.source || s.Namespace != tc.ns || s.Name != tc.pod || (tc.path != "" && s.Path != tc.path) {
				t.Fatalf("got %+v, %v; want source %s pod %s/%s path %s", s, err, tc.source, tc.ns, tc.pod, tc.path)
			}
		})
	}
}
