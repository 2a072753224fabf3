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
			s, err := NewLocator(testNode, f.Sources, pods).Locate(tc.target)
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

// TestLocatorIndex locates many targets with one Locator, as why --all
// does: each answer is the one a scan of every pod and manifest gives.
func TestLocatorIndex(t *testing.T) {
	etcd := staticPod("etcd")
	mirror := etcd
	mirror.Source, mirror.Static, mirror.Mirror, mirror.UID = v1alpha1.SourceAPI, false, true, "mirror"
	// A second pod of the same manifest path is never the one found.
	later := staticPod("etcd")
	later.Name, later.UID = "later", "later"
	upper := staticPod("proxy")
	web, otherWeb, webAgain := apiPod("default", "web"), apiPod("shop", "web"), apiPod("shop", "web")
	webAgain.UID = "again"
	orphan := v1alpha1.PodInfo{Name: "gone", Namespace: "default", UID: "old", Runtime: running("gone")}
	orphanFile := v1alpha1.PodInfo{Name: "ghost", Namespace: "default", UID: "ghost", Origin: testDir + "/ghost.yaml"}
	pods := []v1alpha1.PodInfo{mirror, etcd, later, upper, web, otherWeb, webAgain, orphan, orphanFile}
	f := baseFacts()
	fileSource(f).RejectedFiles = []v1alpha1.RejectedFile{
		{Path: testDir + "/bad.yaml", Error: "yaml: line 1"},
		{Path: testDir + "/bad.json", Error: "invalid character"},
		{Path: testDir + "/gone.yaml", Error: "no name"},
	}
	fileSource(f).ShadowedFiles = []v1alpha1.ShadowedFile{
		{Path: testDir + "/copy.yaml", Pod: "kube-system/old"},
		{Path: testDir + "/copy.yaml", Pod: "kube-system/etcd-" + testNode},
	}
	l := NewLocator(strings.ToUpper(testNode), f.Sources, pods)
	tests := []struct {
		name   string
		target Target
		want   Subject
		err    string
	}{
		{name: "path of a decoded pod, the first of that path", target: pathTarget(etcd.Origin),
			want: Subject{Source: "file", Namespace: "kube-system", Name: etcd.Name, Path: etcd.Origin, Info: &pods[1]}},
		{name: "path of a shadowed manifest, its last pod", target: pathTarget(testDir + "/copy.yaml"),
			want: Subject{Source: "file", Namespace: "kube-system", Name: "etcd-" + testNode, Path: testDir + "/copy.yaml"}},
		{name: "path of a rejected manifest", target: pathTarget(testDir + "/bad.yaml"), want: Subject{Source: "file", Path: testDir + "/bad.yaml"}},
		{name: "path of a pod in no source", target: pathTarget(orphanFile.Origin), want: Subject{Source: "file", Path: orphanFile.Origin}},
		{name: "short static pod name, the node's name in lower case", target: nameTarget("", "proxy"),
			want: Subject{Source: "file", Namespace: "kube-system", Name: upper.Name, Path: upper.Origin, Info: &pods[3]}},
		{name: "the static pod rather than its mirror listed first", target: nameTarget("kube-system", "etcd"),
			want: Subject{Source: "file", Namespace: "kube-system", Name: etcd.Name, Path: etcd.Origin, Info: &pods[1]}},
		{name: "the short name in another namespace", target: nameTarget("default", "etcd"), want: Subject{Source: "api", Namespace: "default", Name: "etcd"}},
		{name: "a name in two namespaces", target: Target{Raw: "web", Name: "web"}, err: `"web" names several pods on node NODE-1: default/web, shop/web, shop/web; say NAMESPACE/POD`},
		{name: "the namespace decides", target: nameTarget("shop", "web"), want: Subject{Source: "api", Namespace: "shop", Name: "web", Info: &pods[5]}},
		{name: "the first rejected manifest of a file name", target: nameTarget("", "bad"), want: Subject{Source: "file", Path: testDir + "/bad.yaml"}},
		{name: "a runtime orphan is no configured pod, a rejected manifest is", target: nameTarget("", "gone"), want: Subject{Source: "file", Path: testDir + "/gone.yaml"}},
		{name: "unknown name, namespace default", target: nameTarget("", "x"), want: Subject{Source: "api", Namespace: "default", Name: "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := l.Locate(tc.target)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || s != tc.want {
				t.Errorf("got %+v, %v; want %+v", s, err, tc.want)
			}
		})
	}
	t.Run("a failing static pod URL takes unknown names", func(t *testing.T) {
		f := baseFacts()
		f.Sources.Items = append(f.Sources.Items, v1alpha1.Source{Name: v1alpha1.SourceHTTP, Target: "http://10.0.0.2/pods", LastError: "connection refused"})
		s, err := NewLocator(testNode, f.Sources, pods).Locate(nameTarget("ops", "x"))
		if want := (Subject{Source: "http", Namespace: "ops", Name: "x"}); err != nil || s != want {
			t.Fatalf("got %+v, %v; want %+v", s, err, want)
		}
	})
}
