package cli

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/pkg/deploy"
)

// TestWarnAssumed checks that nodes whose layout was assumed for the same
// reason share one warning naming the distribution and the overrides, and
// that nodes read through /configz get none.
func TestWarnAssumed(t *testing.T) {
	var errOut bytes.Buffer
	o := &DeployOptions{CommonOptions: NewCommonOptions(genericiooptions.IOStreams{ErrOut: &errOut}), namespace: "podsrc-system"}
	forbidden := "reading /api/v1/nodes/%s/proxy/configz: forbidden: you may not get nodes/proxy"
	o.warnAssumed([]deploy.NodeLayout{
		{Node: "a", Assumed: "k3s", Reason: strings.ReplaceAll(forbidden, "%s", "a")},
		{Node: "b"},
		{Node: "c", Assumed: "k3s", Reason: strings.ReplaceAll(forbidden, "%s", "c")},
		{Node: "d", Assumed: "a CRI-O node (kubeadm paths)", Reason: "reading /api/v1/nodes/d/proxy/configz: the server is currently unable to handle the request"},
	})
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	want := []string{
		"Warning: could not read the kubelet configuration of nodes a and c (forbidden: you may not get nodes/proxy); assumed the layout of k3s. If that is wrong, pass --static-pod-path and --runtime-endpoint.",
		"Warning: could not read the kubelet configuration of node d (the server is currently unable to handle the request); assumed the layout of a CRI-O node (kubeadm paths). If that is wrong, pass --static-pod-path and --runtime-endpoint.",
	}
	if len(lines) != len(want) {
		t.Fatalf("warnings:\n%s\nwant:\n%s", errOut.String(), strings.Join(want, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("warning %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

// TestWarnUnsupported checks that nodes whose kubelet podsrc does not
// reproduce are named, one warning per kubelet version, and that a node
// whose version cannot be read is told apart from them.
func TestWarnUnsupported(t *testing.T) {
	var errOut bytes.Buffer
	o := &DeployOptions{CommonOptions: NewCommonOptions(genericiooptions.IOStreams{ErrOut: &errOut}), namespace: "podsrc-system"}
	o.warnUnsupported([]deploy.NodeLayout{
		{Node: "a", Kubelet: "v1.31.4", Minor: 31},
		{Node: "b", Kubelet: "v1.38.0", Minor: 38},
		{Node: "c", Kubelet: "v1.31.4", Minor: 31},
		{Node: "d", Kubelet: ""},
	})
	want := []string{
		`Warning: nodes a and c run kubelet "v1.31.4", which podsrc does not reproduce (kubelet v1.33 to v1.37); no agent is deployed there (a kubectl-podsrc release that reproduces it would deploy one).`,
		`Warning: node b runs kubelet "v1.38.0", which podsrc does not reproduce (kubelet v1.33 to v1.37); no agent is deployed there (a kubectl-podsrc release that reproduces it would deploy one).`,
		`Warning: node d reports no kubelet version podsrc can read (status.nodeInfo.kubeletVersion ""); no agent is deployed there: run kubectl podsrc deploy again once 'kubectl get nodes d' shows it.`,
	}
	if got := strings.TrimSpace(errOut.String()); got != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
