//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge/mergebench"
	"github.com/podsrc/podsrc/pkg/staticpod"
	"github.com/podsrc/podsrc/test/bench/internal/procstat"
)

// rssConfig are the flags of "agent rss".
type rssConfig struct {
	agentBin   string
	pods       []int
	source     string
	period     time.Duration
	settle     time.Duration
	profileDir string
	goalMiB    float64
	goalPods   int
}

// rssResult is one agent run.
type rssResult struct {
	pods                         int
	ready                        time.Duration
	rss, rssMax, hwm, anon, file int64
	cpu                          time.Duration
	heapInuse, heapAlloc         float64
	goSys, goroutines, gcs       float64
	manifestBytes                int
	stop                         time.Duration
}

// stopLimit bounds the wait for the agent to exit on SIGTERM.
const stopLimit = 30 * time.Second

// runRSS is "agent rss": see the package documentation.
func runRSS(ctx context.Context, args []string) error {
	var c rssConfig
	var podList string
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	fs.StringVar(&c.agentBin, "agent", "", "the podsrc-agent binary; required")
	fs.StringVar(&podList, "pods", "110,5000", "comma-separated pod counts, one agent run each (0 is the empty source)")
	fs.StringVar(&c.source, "source", "file", "where the static pods come from: file (a manifest directory) or url (a loopback server; the kubelet limits the body to 10 MiB)")
	fs.DurationVar(&c.period, "check-frequency", 5*time.Second, "--file-check-frequency or --http-check-frequency")
	fs.DurationVar(&c.settle, "settle", 15*time.Second, "how long to let the agent run once it has every pod before the RSS is read")
	fs.StringVar(&c.profileDir, "profile-dir", "", "save each run's heap profile (heap-<pods>.pprof) here")
	fs.Float64Var(&c.goalMiB, "goal-mib", 40, "the RSS goal")
	fs.IntVar(&c.goalPods, "goal-pods", 110, "the pod count the RSS goal is for")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.agentBin == "" {
		return errors.New("-agent is required")
	}
	if c.source != "file" && c.source != "url" {
		return fmt.Errorf("-source %q: want file or url", c.source)
	}
	for _, s := range strings.Split(podList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return fmt.Errorf("-pods: %q is not a pod count", s)
		}
		c.pods = append(c.pods, n)
	}

	var results []rssResult
	for _, n := range c.pods {
		r, err := rssRun(ctx, c, n)
		if err != nil {
			return fmt.Errorf("%d pods: %w", n, err)
		}
		results = append(results, r)
	}

	fmt.Printf("\nagent RSS: podsrc-agent with a %s source of N static pods, no API source, no PLEG, settled %v (%s every %v)\n",
		c.source, c.settle, map[string]string{"file": "relist", "url": "fetch"}[c.source], c.period)
	fmt.Printf("  %6s %10s %11s %11s %11s %11s %11s %11s %11s %10s %9s %8s %14s\n", "pods", "manifests", "VmRSS", "RssAnon", "RssFile", "max VmRSS", "VmHWM", "heap inuse", "Go sys", "CPU total", "ready in", "GCs", "SIGTERM->exit")
	verdict := ""
	for _, r := range results {
		fmt.Printf("  %6d %10s %11s %11s %11s %11s %11s %11s %11s %9.2fs %9s %8.0f %14s\n", r.pods, mib(int64(r.manifestBytes)), mib(r.rss), mib(r.anon), mib(r.file), mib(r.rssMax), mib(r.hwm),
			mib(int64(r.heapInuse)), mib(int64(r.goSys)), r.cpu.Seconds(), r.ready.Round(10*time.Millisecond), r.gcs, r.stop.Round(10*time.Millisecond))
		if r.pods == c.goalPods {
			worst := max(r.rss, r.rssMax)
			if float64(worst) <= c.goalMiB*(1<<20) {
				verdict = fmt.Sprintf("PASS: %s at %d pods, goal <= %.0f MiB", mib(worst), r.pods, c.goalMiB)
			} else {
				verdict = fmt.Sprintf("FAIL: %s at %d pods, goal <= %.0f MiB", mib(worst), r.pods, c.goalMiB)
			}
		}
	}
	for _, r := range results {
		if r.stop > time.Second {
			fmt.Printf("  slow stop        %d pods: SIGTERM to exit took %v; docs/agent.md promises within a second\n", r.pods, r.stop.Round(10*time.Millisecond))
		}
	}
	if verdict != "" {
		fmt.Printf("  verdict          %s\n", verdict)
		if strings.HasPrefix(verdict, "FAIL") {
			return errors.New("the RSS goal is missed")
		}
	}
	return nil
}

// staticPod is the i-th pod of the merge benchmark's workload made a valid
// static pod: no UID, owner, status, service account or token volume, which
// the kubelet rejects or sets itself.
func staticPod(i int) *v1.Pod {
	p := mergebench.Pod(i, 1)
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	p.UID, p.ResourceVersion, p.Generation, p.GenerateName = "", "", 0, ""
	p.CreationTimestamp = metav1.Time{}
	p.OwnerReferences = nil
	p.Namespace = "kube-system"
	p.Status = v1.PodStatus{}
	p.Spec.NodeName, p.Spec.ServiceAccountName = "", ""
	p.Spec.Volumes = []v1.Volume{{Name: "config", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: fmt.Sprintf("/etc/web-%d", i)}}}}
	p.Spec.Priority, p.Spec.PreemptionPolicy = nil, nil
	for j := range p.Spec.Containers {
		c := &p.Spec.Containers[j]
		c.VolumeMounts = []v1.VolumeMount{{Name: "config", MountPath: "/etc/web", ReadOnly: true}}
		c.Ports[0].Name = fmt.Sprintf("port-%d", j)
	}
	return p
}

// rssRun runs the agent with n pods and measures it.
func rssRun(ctx context.Context, c rssConfig, n int) (res rssResult, err error) {
	res.pods = n
	tmp, err := os.MkdirTemp("", "bench-agent-rss-")
	if err != nil {
		return res, fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	port, err := freePort()
	if err != nil {
		return res, err
	}
	profilingPort, err := freePort()
	if err != nil {
		return res, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	args := []string{"--node-name=bench", "--api-source=false", "--runtime-endpoint=", "--enable-profiling",
		"--listen-address=127.0.0.1:" + strconv.Itoa(port), "--profiling-address=127.0.0.1:" + strconv.Itoa(profilingPort),
		"--journal-dir=" + filepath.Join(tmp, "journal")}
	sourceName := v1alpha1.SourceFile
	switch c.source {
	case "file":
		dir := filepath.Join(tmp, "manifests")
		if err := os.Mkdir(dir, 0o755); err != nil {
			return res, fmt.Errorf("manifest directory: %w", err)
		}
		for i := range n {
			data, err := yaml.Marshal(staticPod(i))
			if err != nil {
				return res, fmt.Errorf("encoding pod %d: %w", i, err)
			}
			res.manifestBytes += len(data)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("web-%d.yaml", i)), data, 0o644); err != nil {
				return res, fmt.Errorf("writing pod %d: %w", i, err)
			}
		}
		args = append(args, "--static-pod-path="+dir, "--file-check-frequency="+c.period.String())
	case "url":
		sourceName = v1alpha1.SourceHTTP
		list := v1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}}
		for i := range n {
			list.Items = append(list.Items, *staticPod(i))
		}
		body, err := json.Marshal(list)
		if err != nil {
			return res, fmt.Errorf("encoding the pod list: %w", err)
		}
		res.manifestBytes = len(body)
		if len(body) > staticpod.MaxManifestBytes {
			return res, fmt.Errorf("the pod list is %s, over the kubelet's %s limit for the URL body; use -source=file", mib(int64(len(body))), mib(staticpod.MaxManifestBytes))
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return res, fmt.Errorf("listening for the pod URL: %w", err)
		}
		srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		})}
		go func() { _ = srv.Serve(lis) }()
		defer srv.Close()
		args = append(args, "--static-pod-url=http://"+lis.Addr().String()+"/pods", "--http-check-frequency="+c.period.String())
	}

	logPath := filepath.Join(tmp, "agent.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return res, fmt.Errorf("agent log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(c.agentBin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("starting %s: %w", c.agentBin, err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		// SIGTERM, then SIGKILL after a bounded wait; the agent exits
		// within a second on SIGTERM.
		stopping := time.Now()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case werr := <-exited:
			res.stop = time.Since(stopping)
			if werr != nil && err == nil {
				err = fmt.Errorf("agent exited: %w", werr)
			}
		case <-time.After(stopLimit):
			_ = cmd.Process.Kill()
			<-exited
			res.stop = time.Since(stopping)
			if err == nil {
				err = fmt.Errorf("agent %d did not stop on SIGTERM within %v", pid, stopLimit)
			}
		}
		if err != nil {
			if log, rerr := os.ReadFile(logPath); rerr == nil {
				fmt.Fprintf(os.Stderr, "--- agent log (%d pods) ---\n%s\n", n, tail(string(log), 40))
			}
		}
	}()
	fmt.Fprintf(os.Stderr, "bench-agent: agent %d with %d pods (%s source) on %s\n", pid, n, c.source, base)

	if err := waitSourcePods(ctx, base, sourceName, n, exited, 3*time.Minute); err != nil {
		return res, err
	}
	res.ready = time.Since(start)
	settle := time.NewTimer(c.settle)
	defer settle.Stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		m, err := procstat.ReadMem(pid)
		if err != nil {
			return res, err
		}
		res.rssMax = max(res.rssMax, m.RSS)
		select {
		case <-settle.C:
			done = true
		case <-tick.C:
		case werr := <-exited:
			exited <- werr
			return res, fmt.Errorf("agent exited while settling: %v", werr)
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
	m, err := procstat.ReadMem(pid)
	if err != nil {
		return res, err
	}
	res.rss, res.hwm, res.anon, res.file = m.RSS, m.HWM, m.Anon, m.File
	res.rssMax = max(res.rssMax, m.RSS)
	if res.cpu, err = procstat.CPUTime(pid); err != nil {
		return res, err
	}
	met := scrape(base + v1alpha1.MetricsPath)
	res.heapInuse, res.heapAlloc = met["go_memstats_heap_inuse_bytes"], met["go_memstats_heap_alloc_bytes"]
	res.goSys, res.goroutines, res.gcs = met["go_memstats_sys_bytes"], met["go_goroutines"], met["go_gc_duration_seconds_count"]
	if c.profileDir != "" {
		if err := fetchTo(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", profilingPort), filepath.Join(c.profileDir, fmt.Sprintf("heap-%d.pprof", n))); err != nil {
			return res, err
		}
	}
	return res, nil
}

// waitSourcePods waits until the agent's source has every pod.
func waitSourcePods(ctx context.Context, base, name string, n int, exited chan error, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 10 * time.Second}
	var last string
	for time.Now().Before(deadline) {
		select {
		case werr := <-exited:
			exited <- werr
			return fmt.Errorf("agent exited before it had the pods: %v", werr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		resp, err := client.Get(base + v1alpha1.SourcesPath)
		if err != nil {
			last = err.Error()
			continue
		}
		var list v1alpha1.SourceList
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil {
			last = err.Error()
			continue
		}
		for _, s := range list.Items {
			if s.Name != name {
				continue
			}
			if s.Seen && s.Pods == n {
				return nil
			}
			last = fmt.Sprintf("%s source: seen %v, %d pods, %d rejected files, last error %q", name, s.Seen, s.Pods, len(s.RejectedFiles), s.LastError)
			if len(s.RejectedFiles) > 0 {
				return fmt.Errorf("the agent rejected a manifest: %s: %s", s.RejectedFiles[0].Path, s.RejectedFiles[0].Error)
			}
		}
	}
	return fmt.Errorf("the agent did not have %d pods within %v: %s", n, limit, last)
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer lis.Close()
	return lis.Addr().(*net.TCPAddr).Port, nil
}

// fetchTo saves url's body in path.
func fetchTo(url, path string) error {
	resp, err := http.Get(url)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", url, err)
	}
	defer resp.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("saving %s: %w", url, err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("saving %s: %w", url, err)
	}
	return f.Close()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// mib formats bytes as MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
