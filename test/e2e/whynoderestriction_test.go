package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/test/cluster"
)

// whyNRNS is TestWhyNodeRestriction's namespace: one that exists, so that
// nothing but the API server's admission of references refuses the mirror
// pod.
const whyNRNS = "podsrc-e2e-why-nr"

// TestWhyNodeRestriction runs the node's kubelet with
// PreventStaticPodAPIReferences off, so that it accepts a static pod that
// references a secret and asks the API server for its mirror pod, which the API server's admission refuses
// (the ServiceAccount plugin, first; NodeRestriction would too). The agent,
// deployed after the restart, takes the gate from the kubelet's /configz and
// decodes the pod as the kubelet does; why must report the mirror stage
// failing, naming the admission plugins and the secret, with exit status 2, in
// JSON and in the checklist. The kubelet records no Event for the refusal,
// only a log line: the test reads it to prove the refusal real.
//
// v1.37 removed the gate (its kubelet refuses such a pod always), so the
// node runs the second node's kubelet (cluster.Node2KubeletVersion, v1.34),
// whose gate is on by default, with the gate off, and deploy gives it that
// minor's agent. The kubelet goes back to the cluster's own, with its
// defaults, when the test ends.
func TestWhyNodeRestriction(t *testing.T) {
	c := cluster.Get(t)
	root := repoRoot(t)
	e := &env{c: c, root: root}
	e.plugin = buildPlugin(t, root)
	version := cluster.Node2KubeletVersion
	minor, err := kubeletminor.Of(version)
	if err != nil {
		t.Fatal(err)
	}
	image := buildImage(t, root, agentMinor(minor))

	undeploy(t, c, e.plugin)
	own := nodeKubeletVersion(t, c)
	c.RunKubeletWithGates(t, version, "PreventStaticPodAPIReferences=false")
	// Registered first, so run last: after the static pod is gone and the
	// agent undeployed. The next test must see the cluster's own kubelet.
	t.Cleanup(func() {
		c.RunKubeletWithGates(t, "", "")
		awaitNodeKubelet(t, c, own)
	})
	awaitNodeKubelet(t, c, version)
	deployImage(t, c, e.plugin, image)
	e.follow(t)
	createWhyNamespace(t, e, whyNRNS)
	t.Cleanup(func() {
		if t.Failed() {
			e.agentLogs(t)
		}
	})

	name := e.staticName("why-nr")
	path := writeWhyStatic(t, e, "why-nr.yaml", whyNRNS, name, append(sleepingStaticPod(c, whyNRNS, "why-nr"), `  volumes:
    - name: creds
      secret:
        secretName: why-nr
        optional: true
`...))
	// The kubelet runs the pod (it did not reject the file) and logs the
	// API server's refusal of its mirror pod.
	e.waitKubeletPod(t, whyNRNS, name, true)
	// "a mirror pod may not reference secrets" (ServiceAccount) or "node
	// ... can not create pods that reference secrets" (NodeRestriction).
	refusal := []byte("reference secrets")
	e.pollFor(t, "the kubelet to log the API server's refusal of the mirror pod of "+name, pollTimeout, func(context.Context) (bool, string, error) {
		log, err := os.ReadFile(c.KubeletLog)
		if err != nil {
			return false, "", err
		}
		for _, line := range bytes.Split(log, []byte("\n")) {
			if bytes.Contains(line, []byte("Failed creating a mirror pod")) && bytes.Contains(line, []byte(name)) &&
				bytes.Contains(line, []byte("is forbidden")) && bytes.Contains(line, refusal) {
				return true, "", nil
			}
		}
		return false, "no such line in " + c.KubeletLog, nil
	})
	e.pollFor(t, "no mirror pod "+whyNRNS+"/"+name+" in the API server", pollTimeout, func(ctx context.Context) (bool, string, error) {
		_, err := c.Client.CoreV1().Pods(whyNRNS).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err), nil
	})

	want := whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageMirror, exit: whyExitFailing,
		says: []string{"(ServiceAccount, NodeRestriction) refuses mirror pods that reference secret"},
	}
	for _, target := range []string{path, whyNRNS + "/" + name} {
		r, status, stderr := e.whySettled(t, target, want)
		want.check(t, r, status)
		for _, s := range r.Stages {
			if s.Name == v1alpha1.StageDecode && s.Verdict != v1alpha1.VerdictOK {
				t.Errorf("stage decode is %s (%s): the agent did not follow the kubelet's PreventStaticPodAPIReferences=false", s.Verdict, s.Message)
			}
		}
		e.checkChecklist(t, target, want)
		if t.Failed() {
			t.Logf("kubectl podsrc why %s %s: exit %d, stderr:\n%s\nreport:\n%s", c.NodeName, target, status, stderr, jsonIndent(r))
		}
	}
}
