package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/redact"
)

func testFileSource(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	name := "e2e-file-" + c.NodeName
	mark := e.rec.mark()
	path := c.WriteStaticPod(t, "e2e-file.yaml", staticManifest(c, "e2e-file", "one", "-sleep", "0"))

	// Added: an ADD from the file source and a row with source file.
	add := e.waitEvent(t, mark, "ADD file "+name, configEvent("ADD", v1alpha1.SourceFile, agentTestNS, name, ""))
	firstUID := string(add.Pods[0].UID)
	var hash1 string
	e.pollFor(t, "a file row for "+name, pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		ps := podsNamed(l, agentTestNS, name)
		for _, p := range ps {
			if p.Source == v1alpha1.SourceFile && p.Static && string(p.UID) == firstUID && p.ConfigHash == firstUID {
				hash1 = p.ConfigHash
				return true, "", nil
			}
		}
		return false, describePods(ps), nil
	})

	// Modified: the kubelet hashes the whole manifest into the UID, so a
	// changed label is a new pod: the old UID is removed, the new added.
	mark = e.rec.mark()
	c.WriteStaticPod(t, "e2e-file.yaml", staticManifest(c, "e2e-file", "two", "-sleep", "0"))
	e.waitEvent(t, mark, "REMOVE file of the old UID "+firstUID, configEvent("REMOVE", v1alpha1.SourceFile, "", "", firstUID))
	add2 := e.waitEvent(t, mark, "ADD file "+name+" with a new UID", func(ev *v1alpha1.Event) bool {
		return configEvent("ADD", v1alpha1.SourceFile, agentTestNS, name, "")(ev) && string(ev.Pods[0].UID) != firstUID
	})
	e.pollFor(t, "the file row of "+name+" to carry the new hash", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		ps := podsNamed(l, agentTestNS, name)
		return len(ps) == 1 && ps[0].UID == add2.Pods[0].UID && ps[0].ConfigHash != hash1, describePods(ps), nil
	})

	// Made invalid (a second file) and shadowing (a third with the same
	// name and namespace): both listed in sources. The kubelet's file
	// source keeps its pods in a store keyed by namespace/name, filled in
	// directory order, so the later file, e2e-shadow.yaml, wins and
	// e2e-file.yaml is the shadowed one; the kubelet runs the winner.
	bad := c.WriteStaticPod(t, "e2e-bad.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: e2e-bad\nspec:\n  containers: []\n"))
	shadow := c.WriteStaticPod(t, "e2e-shadow.yaml", staticManifest(c, "e2e-file", "shadow", "-sleep", "0"))
	var winner types.UID
	e.pollFor(t, "the file source to list "+bad+" as rejected and "+path+" as shadowed by "+shadow+", with the kubelet running the same pod", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		f := findSource(*l, v1alpha1.SourceFile)
		if f == nil {
			return false, "no file source", nil
		}
		pl, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		kp, err := kubeletPods(ctx, c)
		if err != nil {
			return false, "", err
		}
		var kubeletUID types.UID
		for uid, k := range kp {
			if k.Namespace == agentTestNS && k.Name == name {
				kubeletUID = uid
			}
		}
		ps := podsNamed(pl, agentTestNS, name)
		rejected := slices.ContainsFunc(f.RejectedFiles, func(r v1alpha1.RejectedFile) bool {
			return r.Path == bad && strings.Contains(r.Error, "spec.containers")
		})
		shadowed := slices.ContainsFunc(f.ShadowedFiles, func(s v1alpha1.ShadowedFile) bool { return s.Path == path && s.By == shadow })
		ok := rejected && shadowed && len(ps) == 1 && ps[0].UID != add2.Pods[0].UID && ps[0].UID == kubeletUID
		if ok {
			winner = ps[0].UID
		}
		return ok, fmt.Sprintf("rejected=%+v shadowed=%+v pods=%s kubelet's UID=%q", f.RejectedFiles, f.ShadowedFiles, describePods(ps), kubeletUID), nil
	})

	// The invalid manifest is made valid: it is no longer rejected.
	c.WriteStaticPod(t, "e2e-bad.yaml", staticManifest(c, "e2e-bad", "fixed", "-sleep", "0"))
	e.pollFor(t, bad+" to leave the rejected files and its pod to appear", pollTimeout, func(ctx context.Context) (bool, string, error) {
		s, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		f := findSource(*s, v1alpha1.SourceFile)
		l, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		rejected := slices.ContainsFunc(f.RejectedFiles, func(r v1alpha1.RejectedFile) bool { return r.Path == bad })
		ps := podsNamed(l, agentTestNS, "e2e-bad-"+c.NodeName)
		return !rejected && len(ps) == 1, fmt.Sprintf("rejected=%+v pods=%s", f.RejectedFiles, describePods(ps)), nil
	})

	// The shadowing file removed: e2e-file.yaml's pod is back.
	mark = e.rec.mark()
	if err := os.Remove(shadow); err != nil {
		t.Fatal(err)
	}
	removed := e.waitEvent(t, mark, "REMOVE file of the shadowing pod "+string(winner), configEvent("REMOVE", v1alpha1.SourceFile, "", "", string(winner)))
	added := e.waitEvent(t, mark, "ADD file of "+path+"'s pod again", configEvent("ADD", v1alpha1.SourceFile, "", "", string(add2.Pods[0].UID)))
	// Each names the manifest its pod came from.
	for _, o := range []struct {
		ev   *v1alpha1.Event
		uid  types.UID
		want string
	}{{removed, winner, shadow}, {added, add2.Pods[0].UID, path}} {
		for _, p := range o.ev.Pods {
			if p.UID == o.uid && p.Origin != o.want {
				t.Errorf("%s of %s: origin %q, want %q", o.ev.Op, p.UID, p.Origin, o.want)
			}
		}
	}

	// Removed: a REMOVE and no row.
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	mark = e.rec.mark()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "REMOVE file "+name, configEvent("REMOVE", v1alpha1.SourceFile, "", "", string(add2.Pods[0].UID)))
	e.pollFor(t, "no file rows and no shadowed files left of "+name, pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		s, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		f := findSource(*s, v1alpha1.SourceFile)
		ps := podsNamed(l, agentTestNS, name)
		// Only this test's files count: other static pods may be on the node.
		mine := slices.ContainsFunc(f.ShadowedFiles, func(s v1alpha1.ShadowedFile) bool {
			return s.Path == path || s.By == path || s.Path == shadow || s.By == shadow
		})
		return len(ps) == 0 && !mine, fmt.Sprintf("pods=%s shadowed=%+v", describePods(ps), f.ShadowedFiles), nil
	})
}

func testAPISource(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	ctx := context.Background()
	pods := c.Client.CoreV1().Pods(agentTestNS)

	s, err := a.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range s.Items {
		if !src.Seen {
			t.Errorf("source %s is not seen, yet allSourcesSeen=%v", src.Name, s.AllSourcesSeen)
		}
	}
	if !s.AllSourcesSeen {
		t.Errorf("allSourcesSeen is false with sources %+v", s.Items)
	}

	mark := e.rec.mark()
	p, err := pods.Create(ctx, apiPod(c, "e2e-api", corev1.RestartPolicyAlways, "-sleep", "0"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uid := string(p.UID)
	e.waitEvent(t, mark, "ADD api e2e-api", configEvent("ADD", v1alpha1.SourceAPI, "", "", uid))

	mark = e.rec.mark()
	patch := []byte(`{"metadata":{"labels":{"e2e":"relabelled"}}}`)
	if _, err := pods.Patch(ctx, "e2e-api", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "UPDATE api e2e-api after relabelling", configEvent("UPDATE", v1alpha1.SourceAPI, "", "", uid))

	// A graceful delete sets the deletion timestamp (DELETE); the kubelet
	// stops the pod and removes the object (REMOVE).
	mark = e.rec.mark()
	grace := int64(5)
	if err := pods.Delete(ctx, "e2e-api", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "DELETE api e2e-api", configEvent("DELETE", v1alpha1.SourceAPI, "", "", uid))
	e.waitEvent(t, mark, "REMOVE api e2e-api", configEvent("REMOVE", v1alpha1.SourceAPI, "", "", uid))
	// No configured row is left. The runtime still holds the pod's exited
	// sandbox until the kubelet's garbage collection (about a minute), and
	// pods lists it until then as a runtime-only row, with no source: that
	// is the kubelet's state, not a duplicate.
	e.pollFor(t, "no configured row of the removed e2e-api", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		var left []v1alpha1.PodInfo
		for _, p := range l.Items {
			if string(p.UID) == uid && (p.Source != "" || p.Runtime == nil) {
				left = append(left, p)
			}
		}
		return len(left) == 0, describePods(left), nil
	})
}

// patchAgentArgs appends args to the agent container's and waits for the
// new pod.
func patchAgentArgs(t *testing.T, e *env, args ...string) {
	t.Helper()
	var ops []string
	for _, a := range args {
		ops = append(ops, fmt.Sprintf(`{"op":"add","path":"/spec/template/spec/containers/0/args/-","value":%q}`, a))
	}
	_, err := e.c.Client.AppsV1().DaemonSets(client.AgentNamespace).Patch(context.Background(), "podsrc-agent",
		types.JSONPatchType, []byte("["+strings.Join(ops, ",")+"]"), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patching the DaemonSet's args: %v", err)
	}
}

func testURLSource(t *testing.T, e *env, s *urlServer) {
	c := e.c
	a := e.agent(t)
	// Secrets in the URL's user info and query, and in the body's pod
	// (env value, annotation), that no archive recorded without
	// --expose-pod-specs holds.
	secrets := []string{plantedSecret("url-userinfo"), plantedSecret("url-query"), plantedSecret("url-body-env"), plantedSecret("url-body-annotation")}
	secretURL := strings.Replace(s.url, "://", "://podsrc:"+secrets[0]+"@", 1) + "?token=" + secrets[1]
	s.setPods(t, fmt.Sprintf(`{"apiVersion":"v1","kind":"PodList","items":[
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"e2e-url","namespace":%q,"annotations":{"team":%q}},"spec":{"containers":[{"name":"main","image":%q,"imagePullPolicy":"Never","env":[{"name":"TOKEN","value":%q}]}]}}]}`,
		agentTestNS, secrets[3], c.TestImage, secrets[2]))
	// The server fails from the start: the new agent has an unseen http
	// source, so it is not ready and says so.
	s.setFail(t, true)
	mark := e.rec.mark()
	patchAgentArgs(t, e, "--static-pod-url="+secretURL, "--http-check-frequency=2s")
	e.pollFor(t, "the new agent to report its http source unseen with the server's error, and not ready", restartTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		h := findSource(*l, v1alpha1.SourceHTTP)
		if h == nil {
			return false, fmt.Sprintf("no http source: %+v", l.Items), nil
		}
		return !h.Seen && !l.AllSourcesSeen && strings.Contains(h.LastError, "500"), fmt.Sprintf("http=%+v allSeen=%v", *h, l.AllSourcesSeen), nil
	})
	// /readyz through the node proxy: "ok", or the agent's 503 text.
	readyz := func(ctx context.Context) string {
		body, err := c.Client.CoreV1().RESTClient().Get().
			AbsPath("/api/v1/nodes", fmt.Sprintf("%s:%d", c.NodeName, v1alpha1.DefaultAgentPort), "proxy", "readyz").
			DoRaw(ctx)
		if err != nil {
			return fmt.Sprintf("%v: %s", err, body)
		}
		return strings.TrimSpace(string(body))
	}
	// The api source may be unseen too, that early: "sources not seen
	// yet: api, http".
	if got := readyz(context.Background()); !strings.Contains(got, "sources not seen yet:") || !strings.Contains(got, "http") {
		t.Errorf("/readyz with the http source unseen: %q, want a 503 naming the http source", got)
	}

	s.setFail(t, false)
	name := "e2e-url-" + c.NodeName
	e.waitEvent(t, mark, "ADD http "+name, configEvent("ADD", v1alpha1.SourceHTTP, agentTestNS, name, ""))
	e.pollFor(t, "the http pod and every source seen", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		pl, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceHTTP})
		if err != nil {
			return false, "", err
		}
		ps := podsNamed(pl, agentTestNS, name)
		ready := readyz(ctx)
		return l.AllSourcesSeen && len(ps) == 1 && ps[0].Static && ready == "ok", fmt.Sprintf("allSeen=%v readyz=%q pods=%s", l.AllSourcesSeen, ready, describePods(ps)), nil
	})
	waitAgentReady(t, c)

	// A 500 after that leaves the pods as they were and shows the error.
	s.setFail(t, true)
	e.pollFor(t, "the http source to show the 500 and keep its pod", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		pl, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceHTTP})
		if err != nil {
			return false, "", err
		}
		h := findSource(*l, v1alpha1.SourceHTTP)
		ps := podsNamed(pl, agentTestNS, name)
		return strings.Contains(h.LastError, "500") && h.Seen && h.Pods == 1 && len(ps) == 1, fmt.Sprintf("http=%+v pods=%s", *h, describePods(ps)), nil
	})
	out, err := e.runPlugin(t, false, nil, "sources", c.NodeName, "--kubeconfig="+c.Kubeconfig)
	if err != nil || !strings.Contains(out, redact.MaskURL(secretURL)) {
		t.Errorf("kubectl-podsrc sources with the URL source: %v\n%s\nwant its URL masked, %s", err, out, redact.MaskURL(secretURL))
	}
	out, err = e.runPlugin(t, false, nil, "pods", c.NodeName, "--source=http", "--kubeconfig="+c.Kubeconfig)
	if err != nil || !strings.Contains(out, name) {
		t.Errorf("kubectl-podsrc pods --source=http: %v\n%s", err, out)
	}
	// Recorded while the source fails (its error in the sources) and has
	// its pod.
	file := filepath.Join(t.TempDir(), c.NodeName+".tar.gz")
	if out, err := e.runPlugin(t, false, nil, "record", c.NodeName, "-o", file, "--kubeconfig="+c.Kubeconfig); err != nil {
		t.Errorf("kubectl-podsrc record: %v\n%s", err, out)
	} else {
		checkNoSecret(t, file, secrets)
	}
	s.setFail(t, false)
}
