// Package cluster gives tests podsrc's real Kubernetes cluster of one node
// (hack/cluster.sh): it brings the cluster up once per test binary, or reuses
// one that is already running, and hands out a client and the node's facts.
// A test may add the second node for its own duration (StartNode2).
//
// The cluster needs root. When the test does not run as root, Get skips the
// test with a loud message, as it does when PODSRC_TEST_CLUSTER=off; every
// other failure fails the test. A cluster this
// package reused or started is left running: `hack/cluster.sh down` after the
// whole test run stops it.
package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RunDirEnv names the environment variable that, as for hack/cluster.sh,
// moves the directory where the running cluster keeps its state.
const RunDirEnv = "PODSRC_RUN_DIR"

// RunDir is where the running cluster keeps its state (its env file, PID
// files and containerd sockets): $PODSRC_RUN_DIR, by default
// /run/podsrc-cluster, the directory hack/cluster.sh uses.
func RunDir() string {
	if d := os.Getenv(RunDirEnv); d != "" {
		return d
	}
	return "/run/podsrc-cluster"
}

// EnvFile is where the running cluster describes itself, one KEY=value a
// line: env in RunDir.
func EnvFile() string {
	return filepath.Join(RunDir(), "env")
}

// upTimeout bounds `hack/cluster.sh up`, which may build the binaries cold.
const upTimeout = 15 * time.Minute

// Cluster describes a running cluster.
type Cluster struct {
	// Env holds every KEY=value of the cluster's env file.
	Env map[string]string
	// Kubeconfig is the path of an admin kubeconfig usable from the test.
	Kubeconfig string
	// Config is the admin client configuration.
	Config *rest.Config
	// Client is an admin clientset.
	Client kubernetes.Interface
	// NodeName and NodeIP identify the kubelet's node; NodeIP is reachable
	// from the test's network namespace.
	NodeName string
	NodeIP   string
	// StaticPodDir is the kubelet's staticPodPath.
	StaticPodDir string
	// CRIEndpoint is the kubelet's containerd (unix:///...).
	CRIEndpoint string
	// NetNSPath is the network namespace everything runs in.
	NetNSPath string
	// KubeletLog is the kubelet's log file (-v=4).
	KubeletLog string
	// KubeletConfig is the kubelet's configuration file.
	KubeletConfig string
	// PauseImage and TestImage are the local images every containerd has;
	// see hack/README.md for the test image's flags.
	PauseImage string
	TestImage  string

	script string
}

var (
	once   sync.Once
	shared *Cluster
	upErr  error
)

// OffEnv names the environment variable that, set to "off", makes Get skip
// every cluster test: `make flake` runs the unit packages that way, many
// times and beside other work, without taking turns on the one cluster.
const OffEnv = "PODSRC_TEST_CLUSTER"

// Get returns the cluster, starting it on first use in this test binary.
func Get(t testing.TB) *Cluster {
	t.Helper()
	if os.Getenv(OffEnv) == "off" {
		t.Skip("skipped: " + OffEnv + "=off (a run of the unit packages only)")
	}
	if os.Geteuid() != 0 {
		t.Skip("\n" + strings.Repeat("!", 72) + "\nSKIPPED: the podsrc test cluster needs root (network namespace, mounts,\ncgroups); run the tests as root to exercise the real kubelet.\n" + strings.Repeat("!", 72))
	}
	once.Do(func() { shared, upErr = up() })
	if upErr != nil {
		t.Fatalf("podsrc test cluster: %v", upErr)
	}
	return shared
}

func up() (*Cluster, error) {
	script, err := findScript()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
	defer cancel()
	// One node, whatever the caller's environment says: the tests that
	// want the second start it themselves (StartNode2).
	out, err := runEnv(ctx, []string{"PODSRC_NODES=1"}, script, "up")
	if err != nil {
		return nil, fmt.Errorf("bringing the cluster up: %w\n%s", err, out)
	}
	return load(script)
}

// Load describes the cluster that is already running, without starting one.
func Load() (*Cluster, error) {
	script, err := findScript()
	if err != nil {
		return nil, err
	}
	return load(script)
}

func load(script string) (*Cluster, error) {
	env, err := readEnv(EnvFile())
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		Env:           env,
		Kubeconfig:    env["KUBECONFIG"],
		NodeName:      env["NODE_NAME"],
		NodeIP:        env["NODE_IP"],
		StaticPodDir:  env["STATIC_POD_DIR"],
		CRIEndpoint:   env["CRI_ENDPOINT"],
		NetNSPath:     env["NETNS_PATH"],
		KubeletLog:    env["KUBELET_LOG"],
		KubeletConfig: env["KUBELET_CONFIG"],
		PauseImage:    env["PAUSE_IMAGE"],
		TestImage:     env["TEST_IMAGE"],
		script:        script,
	}
	c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", c.Kubeconfig, err)
	}
	c.Config.QPS, c.Config.Burst = 100, 200
	c.Client, err = kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, fmt.Errorf("making a client: %w", err)
	}
	return c, nil
}

// readEnv parses the env file.
func readEnv(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading cluster env: %w", err)
	}
	env, err := parseEnv(string(data))
	if err != nil {
		return nil, fmt.Errorf("cluster env %s: %w", path, err)
	}
	return env, nil
}

// parseEnv parses KEY=value lines, as the env file holds them and as
// hack/cluster.sh prints them on its standard output; blank lines and
// comments are skipped.
func parseEnv(text string) (map[string]string, error) {
	env := map[string]string{}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("bad line %q", line)
		}
		env[k] = v
	}
	return env, nil
}

// findScript locates hack/cluster.sh: $PODSRC_CLUSTER_SCRIPT, or the one in
// the module that contains the working directory.
func findScript() (string, error) {
	if s := os.Getenv("PODSRC_CLUSTER_SCRIPT"); s != "" {
		return s, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding hack/cluster.sh: %w", err)
	}
	for {
		s := filepath.Join(dir, "hack", "cluster.sh")
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(s); err == nil {
				return s, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("hack/cluster.sh not found above the working directory; set PODSRC_CLUSTER_SCRIPT")
		}
		dir = parent
	}
}

// run runs the cluster script and returns its standard output; its standard
// error, where it logs, comes with the error when it fails.
func run(ctx context.Context, script string, args ...string) (string, error) {
	return runEnv(ctx, nil, script, args...)
}

// runEnv is run with these KEY=value added to the script's environment.
func runEnv(ctx context.Context, env []string, script string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, script, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w\n%s", script, strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.String(), nil
}

// RestartKubelet restarts the kubelet and waits until the node is usable.
func (c *Cluster) RestartKubelet(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := run(ctx, c.script, "restart-kubelet"); err != nil {
		t.Fatalf("restarting the kubelet: %v\n%s", err, out)
	}
}

// RunKubelet restarts the kubelet as kubelet version (hack/cluster.sh
// restart-kubelet VERSION, which builds it on first use: minutes when cold)
// and waits until the node is usable; "" goes back to the cluster's own.
func (c *Cluster) RunKubelet(t testing.TB, version string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	args := []string{"restart-kubelet"}
	if version != "" {
		args = append(args, version)
	}
	if out, err := run(ctx, c.script, args...); err != nil {
		t.Fatalf("running kubelet %q: %v\n%s", version, err, out)
	}
}

// RestartKubeletWithGates restarts the cluster's own kubelet with gates
// (Name=bool,..., hack/cluster.sh's PODSRC_KUBELET_FEATURE_GATES) as the
// featureGates of its configuration file and waits until the node is
// usable; "" restores the defaults.
func (c *Cluster) RestartKubeletWithGates(t testing.TB, gates string) {
	t.Helper()
	c.RunKubeletWithGates(t, "", gates)
}

// RunKubeletWithGates is RunKubelet of version with gates as
// RestartKubeletWithGates has them; "", "" goes back to the cluster's own
// kubelet and its defaults.
func (c *Cluster) RunKubeletWithGates(t testing.TB, version, gates string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	args := []string{"restart-kubelet"}
	if version != "" {
		args = append(args, version)
	}
	if out, err := runEnv(ctx, []string{"PODSRC_KUBELET_FEATURE_GATES=" + gates}, c.script, args...); err != nil {
		t.Fatalf("running kubelet %q with feature gates %q: %v\n%s", version, gates, err, out)
	}
}

// RestartContainerd restarts the kubelet's containerd; containers keep
// running.
func (c *Cluster) RestartContainerd(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := run(ctx, c.script, "restart-containerd"); err != nil {
		t.Fatalf("restarting containerd: %v\n%s", err, out)
	}
}

// RestartAPIServer restarts kube-apiserver and waits until it is ready
// again; open watches end.
func (c *Cluster) RestartAPIServer(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := run(ctx, c.script, "restart-apiserver"); err != nil {
		t.Fatalf("restarting kube-apiserver: %v\n%s", err, out)
	}
}

// KubeletPods reads the first node's kubelet's own pod list, its /pods,
// through the API server's node proxy.
func (c *Cluster) KubeletPods(ctx context.Context) (*corev1.PodList, error) {
	return c.KubeletPodsOn(ctx, c.NodeName)
}

// KubeletPodsOn reads the named node's kubelet's /pods through the API
// server's node proxy.
func (c *Cluster) KubeletPodsOn(ctx context.Context, node string) (*corev1.PodList, error) {
	raw, err := c.Client.CoreV1().RESTClient().Get().
		AbsPath("/api/v1/nodes", node, "proxy", "pods").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("GET nodes/%s/proxy/pods: %w: %s", node, err, raw)
	}
	var pods corev1.PodList
	if err := json.Unmarshal(raw, &pods); err != nil {
		return nil, fmt.Errorf("decoding the kubelet's /pods: %w", err)
	}
	return &pods, nil
}

// InNetNS returns a command that runs name in the cluster's network
// namespace, where pod IPs are reachable.
func (c *Cluster) InNetNS(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "nsenter", append([]string{"--net=" + c.NetNSPath, name}, args...)...)
}

// WriteStaticPod writes a manifest into the kubelet's static pod directory
// atomically (the kubelet must never see a half-written file) and removes it
// when the test ends.
func (c *Cluster) WriteStaticPod(t testing.TB, file string, manifest []byte) string {
	t.Helper()
	dst := filepath.Join(c.StaticPodDir, file)
	tmp, err := os.CreateTemp(filepath.Dir(c.StaticPodDir), ".staticpod-*")
	if err != nil {
		t.Fatalf("writing static pod %s: %v", file, err)
	}
	if _, err := tmp.Write(manifest); err != nil {
		tmp.Close()
		t.Fatalf("writing static pod %s: %v", file, err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatalf("writing static pod %s: %v", file, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		t.Fatalf("writing static pod %s: %v", file, err)
	}
	t.Cleanup(func() { os.Remove(dst) })
	return dst
}

// Containerd is a standalone containerd for tests that drive CRI directly.
type Containerd struct {
	// Name is the name hack/containerd.sh knows it by: the name given to
	// StandaloneContainerd and the test process's PID, so that two test
	// processes running the same test at once never share a containerd.
	Name string
	// Endpoint is its CRI endpoint (unix:///...); Socket is the bare path.
	Endpoint string
	Socket   string
	// CgroupParent is the cgroup its pods' cgroups must go under, so that
	// the cleanup finds them.
	CgroupParent string
	// Log is containerd's log file.
	Log string
	// Env holds every KEY=value hack/containerd.sh printed for it.
	Env    map[string]string
	script string
}

// StandaloneContainerd starts a containerd of the test's own, in the
// cluster's network namespace with its own root, state and socket, with the
// local images imported. The kubelet does not know it, so it leaves its
// sandboxes alone. It is stopped, and everything it made removed, when the
// test ends. name must be unique among the concurrent tests of one process
// ([a-z0-9-], at most 23 characters).
func StandaloneContainerd(t testing.TB, name string) *Containerd {
	t.Helper()
	c := Get(t)
	name = fmt.Sprintf("%s-%d", name, os.Getpid())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := run(ctx, c.script, "containerd-up", name)
	if err != nil {
		t.Fatalf("starting standalone containerd %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if out, err := run(ctx, c.script, "containerd-down", name); err != nil {
			t.Errorf("stopping standalone containerd %s: %v\n%s", name, err, out)
		}
	})
	env, err := parseEnv(out)
	if err != nil {
		t.Fatalf("standalone containerd %s: the output of containerd-up: %v", name, err)
	}
	return &Containerd{
		Name:         name,
		Endpoint:     env["CRI_ENDPOINT"],
		Socket:       env["CONTAINERD_SOCKET"],
		CgroupParent: env["CGROUP_PARENT"],
		Log:          env["CONTAINERD_LOG"],
		Env:          env,
		script:       c.script,
	}
}

// Restart stops this containerd and starts it again on the same root and
// state; running containers keep running, event streams end.
func (d *Containerd) Restart(ctx context.Context) error {
	if out, err := run(ctx, d.script, "containerd-restart", d.Name); err != nil {
		return fmt.Errorf("restarting standalone containerd %s: %w\n%s", d.Name, err, out)
	}
	return nil
}
