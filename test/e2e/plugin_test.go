package e2e

import (
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/client"
)

func testPluginCommands(t *testing.T, e *env) {
	c := e.c
	kc := "--kubeconfig=" + c.Kubeconfig
	for _, via := range []string{"node-proxy", "pod-proxy"} {
		for _, cmd := range [][]string{
			{"sources", c.NodeName},
			{"pods", c.NodeName, "-n", client.AgentNamespace},
			{"pleg", c.NodeName},
			{"version", c.NodeName},
		} {
			args := append(append([]string{}, cmd...), kc, "--via="+via)
			out, err := e.runPlugin(t, false, nil, args...)
			if err != nil {
				t.Errorf("kubectl-podsrc %s: %v\n%s", strings.Join(args, " "), err, out)
				continue
			}
			// pods names a node in a NODE column only for many nodes; the
			// agent's own pod in its list shows it reached this one.
			if cmd[0] != "pods" && !strings.Contains(out, c.NodeName) {
				t.Errorf("kubectl-podsrc %s does not name node %s:\n%s", strings.Join(args, " "), c.NodeName, out)
			}
			if cmd[0] == "pods" && !strings.Contains(out, "podsrc-agent-") {
				t.Errorf("kubectl-podsrc %s does not list the agent's own pod:\n%s", strings.Join(args, " "), out)
			}
		}
	}

	// The agent's own pod: its name from the flat List of pods, its labels
	// as a column, then the pod by name with its source and runtime state.
	name, err := e.runPlugin(t, false, nil, "pods", c.NodeName, kc, "-n", client.AgentNamespace, "-o", "jsonpath={.items[0].metadata.name}")
	if err != nil || !strings.HasPrefix(name, "podsrc-agent-") {
		t.Fatalf("kubectl-podsrc pods -o jsonpath={.items[0].metadata.name}: %v\n%s", err, name)
	}
	out, err := e.runPlugin(t, false, nil, "pods", c.NodeName, kc, "-n", client.AgentNamespace, "-L", client.AgentLabelKey)
	if err != nil || !strings.Contains(out, strings.ToUpper(client.AgentLabelKey[strings.LastIndex(client.AgentLabelKey, "/")+1:])) || !strings.Contains(out, client.AgentLabelValue) {
		t.Errorf("kubectl-podsrc pods -L %s does not show the label:\n%s", client.AgentLabelKey, out)
	}
	out, err = e.runPlugin(t, false, nil, "pod", c.NodeName, client.AgentNamespace+"/"+name, kc)
	for _, want := range []string{"Name:", name, "Source:", "api", client.AgentSelector, "Sandbox:", "ready", "Containers:", "Events"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("kubectl-podsrc pod %s %s/%s lacks %q: %v\n%s", c.NodeName, client.AgentNamespace, name, want, err, out)
			break
		}
	}

	// kubectl finds the plugin on PATH.
	kubeconfigEnv := []string{"KUBECONFIG=" + c.Kubeconfig}
	out, err = e.runPlugin(t, true, kubeconfigEnv, "sources", c.NodeName)
	if err != nil || !strings.Contains(out, c.StaticPodDir) {
		t.Errorf("%s podsrc sources %s: %v\n%s", c.Env["KUBECTL"], c.NodeName, err, out)
	}
	out, err = e.runPlugin(t, true, kubeconfigEnv, "pods", c.NodeName, "--via=pod-proxy", "-n", client.AgentNamespace)
	if err != nil || !strings.Contains(out, "podsrc-agent-") {
		t.Errorf("%s podsrc pods --via=pod-proxy: %v\n%s", c.Env["KUBECTL"], err, out)
	}
}
