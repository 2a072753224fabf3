package deploy

import (
	"net"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/spf13/pflag"

	"github.com/podsrc/podsrc/manifests"
	"github.com/podsrc/podsrc/pkg/agent"
)

// TestProbesUseTheProbeListener checks that in every rendered DaemonSet the
// kubelet probes /livez and /readyz on the port of the agent's
// --probe-address, at the node's address, and not on the API's port, which
// clients on the node's network can fill.
func TestProbesUseTheProbeListener(t *testing.T) {
	objs, err := Render(manifests.DaemonSet, goldenOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objs {
		if obj.GetKind() != "DaemonSet" {
			continue
		}
		var ds appsv1.DaemonSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &ds); err != nil {
			t.Fatal(err)
		}
		c := ds.Spec.Template.Spec.Containers[0]
		fs := pflag.NewFlagSet("podsrc-agent", pflag.ContinueOnError)
		o := agent.NewOptions()
		o.AddFlags(fs)
		if err := fs.Parse(c.Args); err != nil {
			t.Fatalf("%s: %v", ds.Name, err)
		}
		host, port, err := net.SplitHostPort(o.ProbeAddress)
		if err != nil || host != "$(NODE_IP)" {
			t.Fatalf("%s: --probe-address %q, want $(NODE_IP):<port> (%v)", ds.Name, o.ProbeAddress, err)
		}
		_, apiPort, _ := net.SplitHostPort(o.ListenAddress)
		if port == apiPort {
			t.Fatalf("%s: the probes share the API's port %s", ds.Name, port)
		}
		ports := map[string]int32{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		for name, probe := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
			if probe == nil || probe.HTTPGet == nil {
				t.Fatalf("%s: no HTTP %s probe", ds.Name, name)
			}
			got := probe.HTTPGet.Port.IntValue()
			if probe.HTTPGet.Port.StrVal != "" {
				got = int(ports[probe.HTTPGet.Port.StrVal])
			}
			if strconv.Itoa(got) != port {
				t.Errorf("%s: the %s probe (%s) goes to port %d, want the probe listener's %s", ds.Name, name, probe.HTTPGet.Path, got, port)
			}
		}
	}
}
