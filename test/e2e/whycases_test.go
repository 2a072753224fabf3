package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// whyCase is one pod kubectl podsrc why must explain.
type whyCase struct {
	name string
	// arrange makes the case in the cluster without waiting, registers
	// its removal (awaited) for when the test ends, and returns why's
	// TARGET and a function that awaits the facts that make the case.
	arrange func(t *testing.T, e *env) (target string, await func(t *testing.T))
	want    whyWant
}

// whyCases are in the order they are checked: the slow to arrange last.
var whyCases = []whyCase{
	{name: "healthy static pod", arrange: arrangeHealthyStatic, want: whyWant{verdict: v1alpha1.VerdictOK, exit: whyExitOK}},
	{name: "healthy api pod", arrange: arrangeHealthyAPI, want: whyWant{verdict: v1alpha1.VerdictOK, exit: whyExitOK}},
	{name: "decode error", arrange: arrangeDecodeError, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageDecode, exit: whyExitFailing,
		says: []string{"cannot unmarshal object into Go struct field PodSpec.spec.containers"},
	}},
	{name: "validation error", arrange: arrangeValidationError, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageDecode, exit: whyExitFailing,
		says: []string{"spec.containers: Required value"},
	}},
	// The kubelet (PreventStaticPodAPIReferences, on since 1.34) refuses a
	// static pod that references a secret itself, before the API server
	// could refuse its mirror pod (TestWhyNodeRestriction turns the gate
	// off for that).
	{name: "static pod referencing a secret", arrange: arrangeSecretRef, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageDecode, exit: whyExitFailing,
		says: []string{"static pods may not reference secrets"},
	}},
	{name: "shadowed by a backup", arrange: arrangeShadowed, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageShadow, exit: whyExitFailing,
		says: []string{"why-backup.yaml.bak"},
	}},
	{name: "mirror pod refused", arrange: arrangeMirrorRefused, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageMirror, exit: whyExitFailing,
		says: []string{whyAbsentNS},
	}},
	{name: "mirror pod recreated in a loop", arrange: arrangeMirrorLoop, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageMirror, exit: whyExitFailing,
		says: []string{whyTamperedHash},
	}},
	{name: "not scheduled", arrange: arrangeUnscheduled, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageBinding, exit: whyExitFailing,
	}},
	{name: "image never pulled", arrange: arrangeImageNever, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageContainers, exit: whyExitFailing,
		says: []string{"ErrImageNeverPull"},
	}},
	{name: "crash loop", arrange: arrangeCrashLoop, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageContainers, exit: whyExitFailing,
		says: []string{"exited with code 3"},
	}},
	// The pod is gone from the API server: the binding fails, with the
	// agent's DELETE and REMOVE as evidence.
	{name: "namespace deleted", arrange: arrangeNamespaceDeleted, want: whyWant{
		verdict: v1alpha1.VerdictFailing, stage: v1alpha1.StageBinding, exit: whyExitFailing,
		says: []string{"REMOVE from api"},
	}},
}

// staticName is the name the kubelet gives the pod of a static manifest.
func (e *env) staticName(name string) string { return name + "-" + e.c.NodeName }

// writeWhyStatic writes a static pod file; when the test ends it removes
// it and, for a manifest that decodes to namespace/podName, waits until
// the kubelet has dropped that pod.
func writeWhyStatic(t *testing.T, e *env, file, namespace, podName string, manifest []byte) string {
	t.Helper()
	if podName != "" {
		// Cleanups run last-registered first: this one after
		// WriteStaticPod's has removed the file.
		t.Cleanup(func() { e.waitKubeletPod(t, namespace, podName, false) })
	}
	return e.c.WriteStaticPod(t, file, manifest)
}

// waitKubeletPod waits until the kubelet's own /pods holds namespace/name
// (or, with want false, no longer does).
func (e *env) waitKubeletPod(t *testing.T, namespace, name string, want bool) {
	t.Helper()
	what := fmt.Sprintf("the kubelet to hold pod %s/%s", namespace, name)
	if !want {
		what = fmt.Sprintf("the kubelet to drop pod %s/%s", namespace, name)
	}
	e.pollFor(t, what, pollTimeout, func(ctx context.Context) (bool, string, error) {
		pods, err := e.c.KubeletPods(ctx)
		if err != nil {
			return false, "", err
		}
		has := slices.ContainsFunc(pods.Items, func(p corev1.Pod) bool { return p.Namespace == namespace && p.Name == name })
		return has == want, fmt.Sprintf("held: %v", has), nil
	})
}

// fileSourceCond waits for cond to hold of the agent's file source.
func (e *env) fileSourceCond(t *testing.T, what string, cond func(f *v1alpha1.Source) (bool, string)) {
	t.Helper()
	a := e.agent(t)
	e.pollFor(t, what, pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		f := findSource(*l, v1alpha1.SourceFile)
		if f == nil {
			return false, "no file source", nil
		}
		ok, seen := cond(f)
		return ok, seen, nil
	})
}

// rejectedStatic writes a manifest the kubelet rejects and awaits the
// file source listing it as rejected.
func rejectedStatic(t *testing.T, e *env, file string, manifest []byte) (string, func(t *testing.T)) {
	path := writeWhyStatic(t, e, file, "", "", manifest)
	return path, func(t *testing.T) {
		e.fileSourceCond(t, "the file source to reject "+path, func(f *v1alpha1.Source) (bool, string) {
			return slices.ContainsFunc(f.RejectedFiles, func(r v1alpha1.RejectedFile) bool { return r.Path == path }),
				fmt.Sprintf("rejected: %+v", f.RejectedFiles)
		})
	}
}

func arrangeDecodeError(t *testing.T, e *env) (string, func(t *testing.T)) {
	// containers must be a list.
	return rejectedStatic(t, e, "why-decode.yaml", []byte(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: why-decode
  namespace: %s
spec:
  containers:
    name: main
    image: %s
`, whyNS, e.c.TestImage)))
}

func arrangeValidationError(t *testing.T, e *env) (string, func(t *testing.T)) {
	return rejectedStatic(t, e, "why-invalid.yaml", []byte(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: why-invalid
  namespace: %s
spec:
  containers: []
`, whyNS)))
}

func arrangeSecretRef(t *testing.T, e *env) (string, func(t *testing.T)) {
	return rejectedStatic(t, e, "why-secret.yaml", append(sleepingStaticPod(e.c, whyNS, "why-secret"), `  volumes:
    - name: creds
      secret:
        secretName: why-secret
        optional: true
`...))
}

func arrangeShadowed(t *testing.T, e *env) (string, func(t *testing.T)) {
	name := e.staticName("why-backup")
	// The kubelet reads the directory in name order and keeps the last
	// file of a pod: the backup.
	path := writeWhyStatic(t, e, "why-backup.yaml", whyNS, name, sleepingStaticPod(e.c, whyNS, "why-backup"))
	bak := writeWhyStatic(t, e, "why-backup.yaml.bak", whyNS, name, sleepingStaticPod(e.c, whyNS, "why-backup"))
	return path, func(t *testing.T) {
		e.fileSourceCond(t, "the file source to list "+path+" as shadowed by "+bak, func(f *v1alpha1.Source) (bool, string) {
			return slices.ContainsFunc(f.ShadowedFiles, func(s v1alpha1.ShadowedFile) bool { return s.Path == path && s.By == bak }),
				fmt.Sprintf("shadowed: %+v", f.ShadowedFiles)
		})
	}
}

// whyAbsentNS is a namespace that does not exist: the API server refuses
// the mirror pod of a static pod in it.
const whyAbsentNS = "podsrc-e2e-why-absent"

func arrangeMirrorRefused(t *testing.T, e *env) (string, func(t *testing.T)) {
	name := e.staticName("why-refused")
	path := writeWhyStatic(t, e, "why-refused.yaml", whyAbsentNS, name, sleepingStaticPod(e.c, whyAbsentNS, "why-refused"))
	return path, func(t *testing.T) { e.waitKubeletPod(t, whyAbsentNS, name, true) }
}

// whyTamperedHash is what an admission policy writes into the mirror pod
// of the loop case in place of the static pod's hash.
const whyTamperedHash = "tampered-by-an-admission-policy"

// arrangeMirrorLoop makes the kubelet recreate a mirror pod in a loop: a
// mutating admission policy (as a webhook could) rewrites the mirror pod's
// kubernetes.io/config.mirror, so that it never matches the static pod's
// hash, and the kubelet deletes and recreates it at every sync.
func arrangeMirrorLoop(t *testing.T, e *env) (string, func(t *testing.T)) {
	const policy = "podsrc-e2e-why-loop"
	adm := e.c.Client.AdmissionregistrationV1()
	p := &admissionv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: policy},
		Spec: admissionv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{
				ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				}}},
			},
			MatchConditions: []admissionv1.MatchCondition{{
				Name:       "the-loop-case-mirror-pod",
				Expression: fmt.Sprintf(`request.namespace == %q && object.metadata.name == %q`, whyNS, e.staticName("why-loop")),
			}},
			FailurePolicy:      ptr.To(admissionv1.Fail),
			ReinvocationPolicy: admissionv1.NeverReinvocationPolicy,
			Mutations: []admissionv1.Mutation{{
				PatchType: admissionv1.PatchTypeJSONPatch,
				JSONPatch: &admissionv1.JSONPatch{Expression: fmt.Sprintf(
					`[JSONPatch{op: "replace", path: "/metadata/annotations/kubernetes.io~1config.mirror", value: %q}]`, whyTamperedHash)},
			}},
		},
	}
	e.pollFor(t, "MutatingAdmissionPolicy "+policy+" to be created", pollTimeout, func(ctx context.Context) (bool, string, error) {
		_, err := adm.MutatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{})
		return err == nil || apierrors.IsAlreadyExists(err), "", err
	})
	b := &admissionv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy},
		Spec:       admissionv1.MutatingAdmissionPolicyBindingSpec{PolicyName: policy},
	}
	e.pollFor(t, "MutatingAdmissionPolicyBinding "+policy+" to be created", pollTimeout, func(ctx context.Context) (bool, string, error) {
		_, err := adm.MutatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{})
		return err == nil || apierrors.IsAlreadyExists(err), "", err
	})
	t.Cleanup(func() {
		bindings, policies := adm.MutatingAdmissionPolicyBindings(), adm.MutatingAdmissionPolicies()
		e.removeObject(t, "MutatingAdmissionPolicyBinding "+policy,
			func(ctx context.Context) error { return bindings.Delete(ctx, policy, metav1.DeleteOptions{}) },
			func(ctx context.Context) error { _, err := bindings.Get(ctx, policy, metav1.GetOptions{}); return err })
		e.removeObject(t, "MutatingAdmissionPolicy "+policy,
			func(ctx context.Context) error { return policies.Delete(ctx, policy, metav1.DeleteOptions{}) },
			func(ctx context.Context) error { _, err := policies.Get(ctx, policy, metav1.GetOptions{}); return err })
	})
	// The static pod goes in only once the policy applies, or its first
	// mirror pod would be a genuine one, and no loop would start.
	name := e.staticName("why-loop")
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: whyNS, Annotations: map[string]string{"kubernetes.io/config.mirror": "probe"}},
		Spec:       corev1.PodSpec{NodeName: e.c.NodeName, Containers: []corev1.Container{{Name: "main", Image: e.c.TestImage}}},
	}
	e.pollFor(t, "MutatingAdmissionPolicy "+policy+" to apply (a dry-run create)", pollTimeout, func(ctx context.Context) (bool, string, error) {
		got, err := e.c.Client.CoreV1().Pods(whyNS).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, "", err
		}
		m := got.Annotations["kubernetes.io/config.mirror"]
		return m == whyTamperedHash, "config.mirror " + m, nil
	})
	path := writeWhyStatic(t, e, "why-loop.yaml", whyNS, name, sleepingStaticPod(e.c, whyNS, "why-loop"))
	return path, func(t *testing.T) {
		// Three mirror pods, one after the other, carrying the tampered
		// hash: a loop, not one replacement.
		e.pollFor(t, "the kubelet to recreate the mirror pod of "+name+" three times", pollTimeout, func(context.Context) (bool, string, error) {
			uids := map[types.UID]bool{}
			for _, m := range e.rec.since(0) {
				if ev := m.Event; ev != nil && configEvent("ADD", v1alpha1.SourceAPI, whyNS, name, "")(ev) {
					for _, p := range ev.Pods {
						uids[p.UID] = true
					}
				}
			}
			return len(uids) >= 3, fmt.Sprintf("%d mirror pods added", len(uids)), nil
		})
	}
}

// createWhyPod creates an API pod and, when the test ends, deletes it and
// waits until it is gone.
func createWhyPod(t *testing.T, e *env, p *corev1.Pod) {
	t.Helper()
	pods := e.c.Client.CoreV1().Pods(p.Namespace)
	e.pollFor(t, "pod "+p.Namespace+"/"+p.Name+" to be created", pollTimeout, func(ctx context.Context) (bool, string, error) {
		_, err := pods.Create(ctx, p, metav1.CreateOptions{})
		return err == nil || apierrors.IsAlreadyExists(err), "", err
	})
	t.Cleanup(func() {
		e.removeObject(t, "pod "+p.Namespace+"/"+p.Name,
			func(ctx context.Context) error {
				return pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
			},
			func(ctx context.Context) error { _, err := pods.Get(ctx, p.Name, metav1.GetOptions{}); return err })
	})
}

// removeObject deletes an API object with del and waits until get finds
// it no more, trying again through errors: the shared cluster's API server
// may be restarting.
func (e *env) removeObject(t *testing.T, what string, del, get func(ctx context.Context) error) {
	t.Helper()
	e.pollFor(t, what+" to be deleted", pollTimeout, func(ctx context.Context) (bool, string, error) {
		if err := del(ctx); err != nil && !apierrors.IsNotFound(err) {
			return false, "", err
		}
		switch err := get(ctx); {
		case apierrors.IsNotFound(err):
			return true, "", nil
		case err != nil:
			return false, "", err
		}
		return false, "still there", nil
	})
}

// createWhyNamespace creates a namespace and, when the test ends, deletes
// it and waits until it is gone.
func createWhyNamespace(t *testing.T, e *env, name string) {
	t.Helper()
	nss := e.c.Client.CoreV1().Namespaces()
	remove := func(t *testing.T) {
		e.removeObject(t, "namespace "+name,
			func(ctx context.Context) error { return nss.Delete(ctx, name, metav1.DeleteOptions{}) },
			func(ctx context.Context) error { _, err := nss.Get(ctx, name, metav1.GetOptions{}); return err })
	}
	// A previous run's namespace may be left, or still terminating.
	remove(t)
	e.pollFor(t, "namespace "+name+" to be created", pollTimeout, func(ctx context.Context) (bool, string, error) {
		_, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		return err == nil || apierrors.IsAlreadyExists(err), "", err
	})
	t.Cleanup(func() { remove(t) })
}

// whyPod is an API pod of namespace bound to the node, running image with
// args and restart policy Always.
func whyPod(e *env, namespace, name, image string, args ...string) *corev1.Pod {
	p := apiPod(e.c, name, corev1.RestartPolicyAlways, args...)
	p.Namespace = namespace
	p.Labels = nil
	p.Spec.Containers[0].Image = image
	return p
}

// waitPodStatus waits for cond to hold of the API pod.
func (e *env) waitPodStatus(t *testing.T, namespace, name, what string, cond func(p *corev1.Pod) (bool, string)) {
	t.Helper()
	e.pollFor(t, "pod "+namespace+"/"+name+" to be "+what, pollTimeout, func(ctx context.Context) (bool, string, error) {
		p, err := e.c.Client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		ok, seen := cond(p)
		return ok, seen, nil
	})
}

// waitAgentRunning waits until the agent's row of namespace/name from a
// source has its containers running: its PLEG follows the runtime a relist
// behind the kubelet's status.
func (e *env) waitAgentRunning(t *testing.T, namespace, name string) {
	t.Helper()
	a := e.agent(t)
	e.pollFor(t, "the agent to see the containers of "+namespace+"/"+name+" running", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		for _, p := range podsNamed(l, namespace, name) {
			if p.Source == "" || p.Runtime == nil || len(p.Runtime.Containers) == 0 {
				continue
			}
			if !slices.ContainsFunc(p.Runtime.Containers, func(c v1alpha1.RuntimeContainer) bool { return c.State != "running" }) {
				return true, "", nil
			}
		}
		return false, describePods(podsNamed(l, namespace, name)), nil
	})
}

// ready is cond for waitPodStatus: the pod is Ready.
func ready(p *corev1.Pod) (bool, string) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true, ""
		}
	}
	return false, fmt.Sprintf("phase %s, conditions %+v", p.Status.Phase, p.Status.Conditions)
}

func arrangeHealthyStatic(t *testing.T, e *env) (string, func(t *testing.T)) {
	name := e.staticName("why-static")
	writeWhyStatic(t, e, "why-static.yaml", whyNS, name, sleepingStaticPod(e.c, whyNS, "why-static"))
	return whyNS + "/" + name, func(t *testing.T) {
		e.waitPodStatus(t, whyNS, name, "Ready (its mirror pod)", ready)
		e.waitAgentRunning(t, whyNS, name)
	}
}

func arrangeHealthyAPI(t *testing.T, e *env) (string, func(t *testing.T)) {
	createWhyPod(t, e, whyPod(e, whyNS, "why-api", e.c.TestImage, "-sleep", "0"))
	return whyNS + "/why-api", func(t *testing.T) {
		e.waitPodStatus(t, whyNS, "why-api", "Ready", ready)
		e.waitAgentRunning(t, whyNS, "why-api")
	}
}

func arrangeImageNever(t *testing.T, e *env) (string, func(t *testing.T)) {
	createWhyPod(t, e, whyPod(e, whyNS, "why-never", "podsrc.local/absent:v1", "-sleep", "0"))
	return whyNS + "/why-never", func(t *testing.T) {
		e.waitPodStatus(t, whyNS, "why-never", "waiting with ErrImageNeverPull", func(p *corev1.Pod) (bool, string) {
			for _, s := range p.Status.ContainerStatuses {
				if s.State.Waiting != nil && s.State.Waiting.Reason == "ErrImageNeverPull" {
					return true, ""
				}
			}
			return false, fmt.Sprintf("phase %s, containers %+v", p.Status.Phase, p.Status.ContainerStatuses)
		})
	}
}

func arrangeCrashLoop(t *testing.T, e *env) (string, func(t *testing.T)) {
	createWhyPod(t, e, whyPod(e, whyNS, "why-crash", e.c.TestImage, "-exit", "3"))
	return whyNS + "/why-crash", func(t *testing.T) {
		// Two restarts: the kubelet has backed off at least once.
		e.waitPodStatus(t, whyNS, "why-crash", "restarted twice after exiting with 3", func(p *corev1.Pod) (bool, string) {
			for _, s := range p.Status.ContainerStatuses {
				if last := s.LastTerminationState.Terminated; s.RestartCount >= 2 && last != nil && last.ExitCode == 3 {
					return true, ""
				}
			}
			return false, fmt.Sprintf("containers %+v", p.Status.ContainerStatuses)
		})
	}
}

// whyGoneNS is the namespace the namespace-deleted case deletes.
const whyGoneNS = "podsrc-e2e-why-gone"

func arrangeNamespaceDeleted(t *testing.T, e *env) (string, func(t *testing.T)) {
	createWhyNamespace(t, e, whyGoneNS)
	createWhyPod(t, e, whyPod(e, whyGoneNS, "why-gone", e.c.TestImage, "-sleep", "0"))
	nss := e.c.Client.CoreV1().Namespaces()
	return whyGoneNS + "/why-gone", func(t *testing.T) {
		e.waitPodStatus(t, whyGoneNS, "why-gone", "Ready", ready)
		e.removeObject(t, "namespace "+whyGoneNS,
			func(ctx context.Context) error { return nss.Delete(ctx, whyGoneNS, metav1.DeleteOptions{}) },
			func(ctx context.Context) error { _, err := nss.Get(ctx, whyGoneNS, metav1.GetOptions{}); return err })
	}
}

func arrangeUnscheduled(t *testing.T, e *env) (string, func(t *testing.T)) {
	p := whyPod(e, whyNS, "why-unbound", e.c.TestImage, "-sleep", "0")
	p.Spec.NodeName = ""
	p.Spec.NodeSelector = map[string]string{"podsrc-e2e": "no-such-node"}
	createWhyPod(t, e, p)
	return whyNS + "/why-unbound", func(t *testing.T) {
		e.waitPodStatus(t, whyNS, "why-unbound", "unschedulable", func(p *corev1.Pod) (bool, string) {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
					return true, ""
				}
			}
			return false, fmt.Sprintf("conditions %+v", p.Status.Conditions)
		})
	}
}
