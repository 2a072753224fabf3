// Package smoke checks, against the real components of the podsrc test
// cluster, the things every other cluster test stands on.
package smoke

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/test/cluster"
	"github.com/podsrc/podsrc/test/cri"
)

const (
	configHash   = "kubernetes.io/config.hash"
	configMirror = "kubernetes.io/config.mirror"
	hostNetPort  = 18080
)

// poll calls cond every interval until it returns true, it returns an error,
// or timeout passes; the last error or state is reported on timeout.
func poll(t *testing.T, what string, timeout time.Duration, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		ok, err := cond()
		if ok {
			return
		}
		lastErr = err
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (last error: %v)", timeout, what, lastErr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func testPod(name string, c *cluster.Cluster, args ...string) *corev1.Pod {
	grace := int64(2)
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name:            "main",
				Image:           c.TestImage,
				ImagePullPolicy: corev1.PullNever,
				Args:            args,
			}},
		},
	}
}

func waitRunning(t *testing.T, c *cluster.Cluster, name string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	poll(t, "pod "+name+" to run", 60*time.Second, func() (bool, error) {
		p, err := c.Client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pod = p
		return p.Status.Phase == corev1.PodRunning, fmt.Errorf("phase %s", p.Status.Phase)
	})
	return pod
}

func createPod(t *testing.T, c *cluster.Cluster, pod *corev1.Pod) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s: %v", pod.Name, err)
	}
	t.Cleanup(func() {
		err := c.Client.CoreV1().Pods("default").Delete(context.Background(), pod.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting pod %s: %v", pod.Name, err)
		}
	})
}

func TestStaticPodGetsMirror(t *testing.T) {
	c := cluster.Get(t)
	pod := testPod("smoke-static", c, "-sleep", "0")
	data, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	c.WriteStaticPod(t, "smoke-static.json", data)

	mirrorName := "smoke-static-" + c.NodeName
	mirror := waitRunning(t, c, mirrorName)
	hash, mirrorHash := mirror.Annotations[configHash], mirror.Annotations[configMirror]
	if hash == "" || mirrorHash != hash {
		t.Fatalf("mirror pod %s: %s=%q, %s=%q; want equal and non-empty", mirrorName, configMirror, mirrorHash, configHash, hash)
	}
	if mirror.Spec.NodeName != c.NodeName {
		t.Errorf("mirror pod on node %q, want %q", mirror.Spec.NodeName, c.NodeName)
	}

	// The kubelet's own view: its pod UID is the config hash.
	poll(t, "kubelet /pods to list "+mirrorName, 30*time.Second, func() (bool, error) {
		pods, err := c.KubeletPods(context.Background())
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Name == mirrorName {
				if string(p.UID) != hash {
					return false, fmt.Errorf("kubelet UID %s, want config hash %s", p.UID, hash)
				}
				return true, nil
			}
		}
		return false, fmt.Errorf("%s not among %d pods", mirrorName, len(pods.Items))
	})
}

func TestAPIPodRunsAndKubeletListsIt(t *testing.T) {
	c := cluster.Get(t)
	createPod(t, c, testPod("smoke-api", c, "-listen", ":8080"))
	pod := waitRunning(t, c, "smoke-api")
	if pod.Status.PodIP == "" {
		t.Errorf("pod smoke-api has no IP")
	}
	poll(t, "kubelet /pods to list smoke-api", 30*time.Second, func() (bool, error) {
		pods, err := c.KubeletPods(context.Background())
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Name == "smoke-api" && p.UID == pod.UID {
				return true, nil
			}
		}
		return false, fmt.Errorf("smoke-api (%s) not among %d pods", pod.UID, len(pods.Items))
	})

	// Pod IPs are reachable only from inside the cluster's namespace.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	poll(t, "pod smoke-api to answer HTTP inside the namespace", 20*time.Second, func() (bool, error) {
		out, err := c.InNetNS(ctx, "curl", "-sf", "--max-time", "2", fmt.Sprintf("http://%s:8080/", pod.Status.PodIP)).CombinedOutput()
		if err != nil {
			return false, fmt.Errorf("curl: %w: %s", err, out)
		}
		return strings.Contains(string(out), "podsrc testimg"), fmt.Errorf("reply %q", out)
	})
}

func TestHostNetworkPodThroughNodeProxy(t *testing.T) {
	c := cluster.Get(t)
	pod := testPod("smoke-hostnet", c, "-listen", fmt.Sprintf("%s:%d", c.NodeIP, hostNetPort), "-message", "hello from the node")
	pod.Spec.HostNetwork = true
	createPod(t, c, pod)
	waitRunning(t, c, "smoke-hostnet")

	poll(t, "the node proxy to reach the hostNetwork pod", 30*time.Second, func() (bool, error) {
		raw, err := c.Client.CoreV1().RESTClient().Get().
			AbsPath("/api/v1/nodes", fmt.Sprintf("%s:%d", c.NodeName, hostNetPort), "proxy/").DoRaw(context.Background())
		if err != nil {
			return false, err
		}
		return strings.Contains(string(raw), "hello from the node"), fmt.Errorf("reply %q", raw)
	})
}

func TestCRIContainerExitCode(t *testing.T) {
	d := cluster.StandaloneContainerd(t, "smoke")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := cri.Dial(ctx, d.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })

	events, errc, err := client.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.Get(t)
	podID, podCfg, err := client.RunPod(ctx, cri.Pod{Name: "smoke-cri", CgroupParent: d.CgroupParent + "/smoke-cri"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := client.StopPod(context.Background(), podID); err != nil {
			t.Error(err)
		}
		if err := client.RemovePod(context.Background(), podID); err != nil {
			t.Error(err)
		}
	})

	tests := []struct {
		name string
		args []string
		want int32
	}{
		{"exit-0", []string{"-exit", "0"}, 0},
		{"exit-7", []string{"-exit", "7"}, 7},
		{"sleep-then-exit-3", []string{"-sleep", "300ms", "-exit", "3"}, 3},
	}
	ids := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := client.CreateContainer(ctx, podID, podCfg, cri.Container{Name: tt.name, Image: c.TestImage, Args: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			ids[id] = true
			if err := client.StartContainer(ctx, id); err != nil {
				t.Fatal(err)
			}
			code, err := client.WaitExited(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if code != tt.want {
				t.Errorf("exit code %d, want %d", code, tt.want)
			}
			ctrs, err := client.ListContainers(ctx, &runtimeapi.ContainerFilter{Id: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(ctrs) != 1 || ctrs[0].Labels[cri.LabelContainerName] != tt.name || ctrs[0].Labels[cri.LabelPodName] != "smoke-cri" {
				t.Errorf("ListContainers(%s) = %v, want one container labelled %s in pod smoke-cri", id, ctrs, tt.name)
			}
		})
	}

	// Every container started and stopped shows up in the event stream.
	seen := map[string]map[runtimeapi.ContainerEventType]bool{}
	complete := func() bool {
		for id := range ids {
			if !seen[id][runtimeapi.ContainerEventType_CONTAINER_STARTED_EVENT] || !seen[id][runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT] {
				return false
			}
		}
		return true
	}
	timeout := time.After(20 * time.Second)
	for !complete() {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("event stream ended: %v", <-errc)
			}
			if seen[ev.ContainerId] == nil {
				seen[ev.ContainerId] = map[runtimeapi.ContainerEventType]bool{}
			}
			seen[ev.ContainerId][ev.ContainerEventType] = true
		case <-timeout:
			t.Fatalf("timed out waiting for start and stop events of %v; saw %v", ids, seen)
		}
	}
}
