package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"
)

// Paths of the monitoring manifests and of promtool's tool module, from this
// package's directory.
const (
	prometheusRuleFile = "../../manifests/monitoring/prometheusrule.yaml"
	dashboardFile      = "../../manifests/monitoring/grafana-dashboard.json"
	promtoolModule     = "../../hack/tools/promtool"
)

// promtoolBuildLimit bounds building promtool: minutes on a busy machine
// with a cold build cache, seconds with a warm one.
const promtoolBuildLimit = 25 * time.Minute

// buildPromtool builds promtool from its Go module (hack/tools/promtool, so
// that the root module does not require prometheus/prometheus) into dir,
// without the network: its modules must be in the module cache already, as
// `go mod download` in the tool module (or the lint's go mod tidy) leaves
// them. remove_all_sd leaves out the service discoveries, which no check
// here uses.
func buildPromtool(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "promtool")
	ctx, cancel := context.WithTimeout(t.Context(), promtoolBuildLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "remove_all_sd", "-o", bin, "github.com/prometheus/prometheus/cmd/promtool")
	cmd.Dir = promtoolModule
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building promtool in %s (offline; `go mod download` there fetches its modules): %v\n%s", promtoolModule, err, out)
	}
	return bin
}

// promtool runs promtool with args and stdin and returns its output, or
// fails the test with it.
func promtool(t *testing.T, bin string, stdin []byte, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// scrapeMetrics returns the agent's /metrics.
func scrapeMetrics(t *testing.T, ta *testAgent) []byte {
	t.Helper()
	code, body := ta.get(t, "/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	return body
}

// awaitMetrics scrapes /metrics until every one of lines is a line of it,
// and returns that scrape.
func awaitMetrics(t *testing.T, ta *testAgent, lines ...string) []byte {
	t.Helper()
	var body []byte
	var missing []string
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, waitLimit, true, func(context.Context) (bool, error) {
		body, missing = scrapeMetrics(t, ta), nil
		for _, l := range lines {
			if !bytes.Contains(body, []byte("\n"+l+"\n")) {
				missing = append(missing, l)
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		t.Fatalf("/metrics has no %s within %v: %v\n%s", strings.Join(missing, ", "), waitLimit, err, body)
	}
	return body
}

// rulesFile writes the groups of the PrometheusRule in manifests/ as a
// Prometheus rules file into dir; without annotations, the alerts' texts,
// when bare (a unit test compares them too; check rules checks their
// templates).
func rulesFile(t *testing.T, dir string, bare bool) string {
	t.Helper()
	data, err := os.ReadFile(prometheusRuleFile)
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Kind string `json:"kind"`
		Spec struct {
			Groups []struct {
				Name  string           `json:"name"`
				Rules []map[string]any `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &rule); err != nil {
		t.Fatalf("%s: %v", prometheusRuleFile, err)
	}
	if rule.Kind != "PrometheusRule" || len(rule.Spec.Groups) == 0 {
		t.Fatalf("%s: kind %q with %d groups, want a PrometheusRule with groups", prometheusRuleFile, rule.Kind, len(rule.Spec.Groups))
	}
	if bare {
		for _, g := range rule.Spec.Groups {
			for _, r := range g.Rules {
				delete(r, "annotations")
			}
		}
	}
	out, err := yaml.Marshal(rule.Spec)
	if err != nil {
		t.Fatal(err)
	}
	name := "rules.yaml"
	if bare {
		name = "bare-rules.yaml"
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// seriesOf turns a scrape in the text format into promtool input series:
// every sample of it, with the labels a scrape by job podsrc-agent adds,
// constant for 15 minutes at one a minute.
func seriesOf(t *testing.T, scrape []byte, instance string) []map[string]string {
	t.Helper()
	target := fmt.Sprintf(`instance=%q,job="podsrc-agent"`, instance)
	var out []map[string]string
	for _, line := range strings.Split(string(scrape), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("/metrics line %q has no value", line)
		}
		name, value := line[:i], line[i+1:]
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("/metrics line %q: %v", line, err)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if strings.HasSuffix(name, "}") {
			name = name[:len(name)-1] + "," + target + "}"
		} else {
			name += "{" + target + "}"
		}
		out = append(out, map[string]string{"series": name, "values": value + "+0x15"})
	}
	return out
}

// TestPrometheusConventions runs an agent with every source, the PLEG and
// the runtime's event stream healthy, then breaks each of them, and checks
// both scrapes of its real /metrics with promtool: the metric names and
// help texts (check metrics); the PrometheusRule's rules (check rules); and
// that each alert fires on the broken scrape and none on the healthy one
// (test rules, with input series built from the scrapes).
func TestPrometheusConventions(t *testing.T) {
	dir := t.TempDir()
	bin := buildPromtool(t, dir)
	ta := startAgent(t, func(c *Config) {
		c.RelistOnRuntimeEvents = true
		c.PLEG.RelistThreshold = 2 * time.Second
		// The journal's series are checked too.
		c.Journal = DefaultJournalConfig()
		c.Journal.Dir = filepath.Join(dir, "journal")
	})
	healthy := awaitMetrics(t, ta,
		"podsrc_pleg_healthy 1",
		`podsrc_pleg_runtime_events_state{state="following"} 1`,
		`podsrc_source_seen{source="file"} 1`,
		`podsrc_source_rejected_manifests{source="file"} 0`)

	// A manifest that does not decode, a source never heard from, and a
	// runtime gone: relists fail and its event stream ends.
	ta.writeManifest(t, "bad.yaml", "not: a pod\n")
	ta.podConfig.Channel(t.Context(), "api")
	ta.runtime.Stop()
	broken := awaitMetrics(t, ta,
		"podsrc_pleg_healthy 0",
		`podsrc_pleg_runtime_events_state{state="broken"} 1`,
		`podsrc_source_seen{source="api"} 0`,
		`podsrc_source_rejected_manifests{source="file"} 1`)

	t.Run("build_info", func(t *testing.T) {
		re := regexp.MustCompile(`(?m)^podsrc_build_info\{goversion="go[^"]+",kubelet_minor="v1\.36",version="[^"]+"\} 1$`)
		if !re.Match(healthy) {
			t.Errorf("/metrics has no podsrc_build_info with goversion, kubelet_minor v1.36 and version:\n%s", healthy)
		}
	})

	t.Run("histograms", func(t *testing.T) {
		for _, want := range []string{
			"# TYPE podsrc_pleg_relist_duration_seconds histogram",
			"# TYPE podsrc_pleg_relist_interval_seconds histogram",
			"# TYPE podsrc_pleg_runtime_operations_duration_seconds histogram",
			// The kubelet's buckets: prometheus.DefBuckets for the relists,
			// ExponentialBuckets(.005, 2.5, 14) for its CRI calls.
			`podsrc_pleg_relist_duration_seconds_bucket{le="0.005"}`,
			`podsrc_pleg_relist_duration_seconds_bucket{le="10"}`,
			`podsrc_pleg_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="0.0125"}`,
			`podsrc_pleg_runtime_operations_duration_seconds_bucket{operation_type="container_status",le="745.0580596923828"}`,
		} {
			if !bytes.Contains(healthy, []byte(want)) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		if bytes.Contains(healthy, []byte(`podsrc_pleg_relist_duration_seconds{quantile`)) {
			t.Error("relist durations are still gauges with a quantile label")
		}
	})

	t.Run("check metrics", func(t *testing.T) {
		for name, scrape := range map[string][]byte{"healthy": healthy, "broken": broken} {
			if out := promtool(t, bin, scrape, "check", "metrics"); strings.TrimSpace(out) != "" {
				t.Errorf("promtool check metrics on the %s scrape: %s", name, out)
			}
		}
	})

	t.Run("check rules", func(t *testing.T) {
		promtool(t, bin, nil, "check", "rules", rulesFile(t, dir, false))
	})

	t.Run("alerts", func(t *testing.T) {
		rules := rulesFile(t, dir, true)
		instance := strings.TrimPrefix(ta.url, "http://")
		target := map[string]string{"instance": instance, "job": "podsrc-agent", "severity": "warning"}
		with := func(k, v string) map[string]string {
			m := map[string]string{k: v}
			for k, v := range target {
				m[k] = v
			}
			return m
		}
		alerts := []struct {
			name   string
			broken map[string]string // the labels of the alert on the broken scrape
		}{
			{"PodsrcPLEGUnhealthy", target},
			{"PodsrcSourceNotSeen", with("source", "api")},
			{"PodsrcManifestRejected", with("source", "file")},
			{"PodsrcRuntimeEventStreamBroken", with("state", "broken")},
		}
		type expAlert struct {
			ExpLabels map[string]string `json:"exp_labels"`
		}
		type alertTest struct {
			EvalTime  string     `json:"eval_time"`
			Alertname string     `json:"alertname"`
			ExpAlerts []expAlert `json:"exp_alerts"`
		}
		type testGroup struct {
			Name        string              `json:"name"`
			Interval    string              `json:"interval"`
			InputSeries []map[string]string `json:"input_series"`
			AlertTests  []alertTest         `json:"alert_rule_test"`
		}
		var groups []testGroup
		for _, scrape := range []struct {
			name   string
			body   []byte
			firing bool
		}{{"healthy", healthy, false}, {"broken", broken, true}} {
			g := testGroup{Name: scrape.name, Interval: "1m", InputSeries: seriesOf(t, scrape.body, instance)}
			for _, a := range alerts {
				at := alertTest{EvalTime: "10m", Alertname: a.name, ExpAlerts: []expAlert{}}
				if scrape.firing {
					at.ExpAlerts = []expAlert{{ExpLabels: a.broken}}
				}
				g.AlertTests = append(g.AlertTests, at)
			}
			groups = append(groups, g)
		}
		tests, err := yaml.Marshal(map[string]any{"rule_files": []string{rules}, "evaluation_interval": "1m", "tests": groups})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "alerts_test.yaml")
		if err := os.WriteFile(path, tests, 0o644); err != nil {
			t.Fatal(err)
		}
		promtool(t, bin, nil, "test", "rules", path)
	})

	t.Run("dashboard", func(t *testing.T) {
		data, err := os.ReadFile(dashboardFile)
		if err != nil {
			t.Fatal(err)
		}
		var dash struct {
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		if err := json.Unmarshal(data, &dash); err != nil {
			t.Fatalf("%s: %v", dashboardFile, err)
		}
		if len(dash.Panels) == 0 {
			t.Fatalf("%s has no panels", dashboardFile)
		}
		// Every metric a panel queries is one the agent serves (a vector
		// has no series before its first count, but is described).
		described := map[string]bool{}
		descs := make(chan *prometheus.Desc)
		go func() { ta.metrics.registry.Describe(descs); close(descs) }()
		fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
		for d := range descs {
			if m := fqName.FindStringSubmatch(d.String()); m != nil {
				described[m[1]] = true
			}
		}
		metric := regexp.MustCompile(`podsrc_[a-z_]+`)
		for _, p := range dash.Panels {
			for _, tg := range p.Targets {
				for _, name := range metric.FindAllString(tg.Expr, -1) {
					if !bytes.Contains(healthy, []byte("\n"+name)) && !described[name] {
						t.Errorf("panel %q queries %s, which /metrics does not have", p.Title, name)
					}
				}
			}
		}
	})
}
