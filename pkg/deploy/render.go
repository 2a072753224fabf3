package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Names in manifests/daemonset.yaml the renderer fills in.
const (
	agentName      = "podsrc-agent"
	agentContainer = "agent"
	staticPodsVol  = "static-pods"
	criRuntimeVol  = "cri-runtime"
	// instanceLabel tells the DaemonSets of the layouts apart.
	instanceLabel = "app.kubernetes.io/instance"
	// PartOfLabel marks every object deploy applies; undeploy and the
	// pruning of layouts that went away find them by it.
	PartOfLabel = "app.kubernetes.io/part-of=podsrc"
	// hostRoot is where the agent sees the host's paths.
	hostRoot = "/host"
)

// RenderOptions say how to fit the manifest to a cluster.
type RenderOptions struct {
	Namespace string
	// Image is the agent image's base: each group runs ImageFor(Image, its
	// minor); empty keeps the manifest's.
	Image string
	// APIServerURL, when set, is the https URL the agents reach the API
	// server at instead of the in-cluster kubernetes Service.
	APIServerURL string
	// NodeSelector is a label selector on nodes ("" for all).
	NodeSelector string
	Groups       []Group
	// Excluded are nodes no DaemonSet may run on (kubelets of a minor
	// podsrc does not reproduce).
	Excluded []string
	// AllowedCIDRs are the peers the agents answer (--allowed-cidrs);
	// empty lets every peer in.
	AllowedCIDRs []string
	// MaskCredentials masks the static pod URLs' credentials in their
	// Secrets, for printing.
	MaskCredentials bool
}

// Render fits the manifest to the options: the namespace set everywhere, and
// the DaemonSet once per layout group. Objects keep the manifest's order.
func Render(manifest []byte, o RenderOptions) ([]*unstructured.Unstructured, error) {
	objs, err := decodeAll(manifest)
	if err != nil {
		return nil, err
	}
	nodeReqs, err := nodeSelectorRequirements(o.NodeSelector)
	if err != nil {
		return nil, err
	}
	env, err := apiServerEnv(o.APIServerURL)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	daemonSets := 0
	for _, obj := range objs {
		switch obj.GetKind() {
		case "Namespace":
			obj.SetName(o.Namespace)
		case "ClusterRoleBinding":
			if err := setSubjectNamespace(obj, o.Namespace); err != nil {
				return nil, err
			}
		}
		if obj.GetNamespace() != "" {
			obj.SetNamespace(o.Namespace)
		}
		if obj.GetKind() != "DaemonSet" {
			out = append(out, obj)
			continue
		}
		daemonSets++
		var tmpl appsv1.DaemonSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &tmpl); err != nil {
			return nil, fmt.Errorf("manifest: DaemonSet %s: %w", obj.GetName(), err)
		}
		others := append(otherNodes(o.Groups), o.Excluded...)
		sort.Strings(others)
		if err := checkNames(o.Groups); err != nil {
			return nil, err
		}
		for _, g := range o.Groups {
			image := ""
			if o.Image != "" {
				if image, err = ImageFor(o.Image, g.Minor); err != nil {
					return nil, err
				}
			}
			ds, err := renderDaemonSet(&tmpl, g, image, env, allowedCIDRsArgs(o.AllowedCIDRs), nodeReqs, others)
			if err != nil {
				return nil, err
			}
			secret, err := urlSecret(g, o.Namespace, o.MaskCredentials)
			if err != nil {
				return nil, err
			}
			if secret != nil {
				out = append(out, secret)
			}
			out = append(out, ds)
		}
	}
	if daemonSets != 1 {
		return nil, fmt.Errorf("manifest: want one DaemonSet template, found %d", daemonSets)
	}
	return out, nil
}

// decodeAll splits the multi-document manifest into objects.
func decodeAll(manifest []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifest), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("decoding the manifest: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}

// setSubjectNamespace moves a binding's ServiceAccount subjects to ns.
func setSubjectNamespace(obj *unstructured.Unstructured, ns string) error {
	subjects, _, err := unstructured.NestedSlice(obj.Object, "subjects")
	if err != nil {
		return fmt.Errorf("manifest: %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	for _, s := range subjects {
		if m, ok := s.(map[string]any); ok && m["kind"] == "ServiceAccount" {
			m["namespace"] = ns
		}
	}
	return unstructured.SetNestedSlice(obj.Object, subjects, "subjects")
}

// otherNodes lists, for the default group, the nodes other groups name.
func otherNodes(groups []Group) []string {
	var out []string
	for _, g := range groups {
		if !g.Default {
			out = append(out, g.Nodes...)
		}
	}
	return out
}

// DaemonSetName is the name of a group's DaemonSet: podsrc-agent for the
// default group, else podsrc-agent-<layout hash>-kubelet1-<minor>.
func DaemonSetName(g Group) string {
	if g.Default {
		return agentName
	}
	return fmt.Sprintf("%s-%s-kubelet1-%d", agentName, g.Layout.Hash(), int(g.Minor))
}

// checkNames refuses groups whose DaemonSets would share a name: layouts
// that differ only in their static pod URL's credentials, which the name
// does not tell apart.
func checkNames(groups []Group) error {
	seen := map[string]Group{}
	for _, g := range groups {
		name := DaemonSetName(g)
		if other, ok := seen[name]; ok {
			return fmt.Errorf("two layouts differ only in their static pod URL's credentials (on %s; on %s), and deploy cannot give them DaemonSets of their own: leave one of them out with --node-selector", nodeNames(other.Nodes), nodeNames(g.Nodes))
		}
		seen[name] = g
	}
	return nil
}

// renderDaemonSet makes the DaemonSet of one group from the template.
func renderDaemonSet(tmpl *appsv1.DaemonSet, g Group, image string, env []corev1.EnvVar, allowed []string, nodeReqs []corev1.NodeSelectorRequirement, others []string) (*unstructured.Unstructured, error) {
	ds := tmpl.DeepCopy()
	name := DaemonSetName(g)
	ds.Name = name
	for _, m := range []*map[string]string{&ds.Labels, &ds.Spec.Template.Labels} {
		if *m == nil {
			*m = map[string]string{}
		}
		(*m)[instanceLabel] = name
	}
	if ds.Spec.Selector == nil || ds.Spec.Selector.MatchLabels[instanceLabel] == "" {
		return nil, fmt.Errorf("manifest: the DaemonSet's selector has no %s label", instanceLabel)
	}
	ds.Spec.Selector.MatchLabels[instanceLabel] = name

	spec := &ds.Spec.Template.Spec
	c := findContainer(spec.Containers, agentContainer)
	if c == nil {
		return nil, fmt.Errorf("manifest: the DaemonSet has no container %q", agentContainer)
	}
	if image != "" {
		c.Image = image
	}
	c.Args = append(layoutArgs(c.Args, g.Layout.Args()), allowed...)
	c.Env = setEnv(c.Env, env)

	staticPods, socketDir := g.Layout.StaticPodPath, ""
	if s := g.Layout.SocketPath(); s != "" {
		socketDir = path.Dir(s)
	}
	hostType := corev1.HostPathDirectory
	if g.Layout.staticPodPathIsFile() {
		hostType = corev1.HostPathFile
	}
	for _, v := range []struct {
		name, hostPath string
		hostType       corev1.HostPathType
	}{{staticPodsVol, staticPods, hostType}, {criRuntimeVol, socketDir, corev1.HostPathDirectory}} {
		if err := setHostPath(spec, c, v.name, v.hostPath, v.hostType); err != nil {
			return nil, err
		}
	}
	mountURLSecret(spec, c, g)
	spec.Affinity = nodeAffinity(g, nodeReqs, others)

	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		return nil, fmt.Errorf("DaemonSet %s: %w", name, err)
	}
	// What a typed object adds that the manifest does not say.
	unstructured.RemoveNestedField(u, "status")
	unstructured.RemoveNestedField(u, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u, "spec", "template", "metadata", "creationTimestamp")
	return &unstructured.Unstructured{Object: u}, nil
}

func findContainer(cs []corev1.Container, name string) *corev1.Container {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

// layoutArgs replaces the template's layout flags with the layout's, where
// the first of them stood.
func layoutArgs(tmpl, layout []string) []string {
	var out []string
	inserted := false
	for _, a := range tmpl {
		if !isLayoutFlag(a) {
			out = append(out, a)
			continue
		}
		if !inserted {
			out = append(out, layout...)
			inserted = true
		}
	}
	if !inserted {
		out = append(out, layout...)
	}
	return out
}

// setEnv sets each variable of set in env, replacing one of the same name.
func setEnv(env, set []corev1.EnvVar) []corev1.EnvVar {
next:
	for _, s := range set {
		for i := range env {
			if env[i].Name == s.Name {
				env[i] = s
				continue next
			}
		}
		env = append(env, s)
	}
	return env
}

// setHostPath points the volume name at hostPath, mounted at /host +
// hostPath; an empty hostPath removes the volume and its mount.
func setHostPath(spec *corev1.PodSpec, c *corev1.Container, name, hostPath string, t corev1.HostPathType) error {
	vi, mi := -1, -1
	for i, v := range spec.Volumes {
		if v.Name == name {
			vi = i
		}
	}
	for i, m := range c.VolumeMounts {
		if m.Name == name {
			mi = i
		}
	}
	if vi < 0 || mi < 0 || spec.Volumes[vi].HostPath == nil {
		return fmt.Errorf("manifest: the DaemonSet has no hostPath volume %q mounted in container %q", name, c.Name)
	}
	if hostPath == "" {
		spec.Volumes = append(spec.Volumes[:vi], spec.Volumes[vi+1:]...)
		c.VolumeMounts = append(c.VolumeMounts[:mi], c.VolumeMounts[mi+1:]...)
		return nil
	}
	spec.Volumes[vi].HostPath.Path = hostPath
	spec.Volumes[vi].HostPath.Type = &t
	c.VolumeMounts[mi].MountPath = path.Join(hostRoot, hostPath)
	return nil
}

// nodeAffinity keeps a group's DaemonSet on its nodes: a named group on its
// names, the default group off the other groups' names; both within the
// node selector.
func nodeAffinity(g Group, nodeReqs []corev1.NodeSelectorRequirement, others []string) *corev1.Affinity {
	term := corev1.NodeSelectorTerm{MatchExpressions: nodeReqs}
	switch {
	case !g.Default:
		term.MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: g.Nodes}}
	case len(others) > 0:
		term.MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpNotIn, Values: others}}
	}
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return nil
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}},
	}}
}

// nodeSelectorRequirements turns a label selector into node affinity
// requirements.
func nodeSelectorRequirements(selector string) ([]corev1.NodeSelectorRequirement, error) {
	if selector == "" {
		return nil, nil
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, fmt.Errorf("--node-selector %q: %w", selector, err)
	}
	reqs, _ := sel.Requirements()
	var out []corev1.NodeSelectorRequirement
	for _, r := range reqs {
		var op corev1.NodeSelectorOperator
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			op = corev1.NodeSelectorOpIn
		case selection.NotEquals, selection.NotIn:
			op = corev1.NodeSelectorOpNotIn
		case selection.Exists:
			op = corev1.NodeSelectorOpExists
		case selection.DoesNotExist:
			op = corev1.NodeSelectorOpDoesNotExist
		case selection.GreaterThan:
			op = corev1.NodeSelectorOpGt
		case selection.LessThan:
			op = corev1.NodeSelectorOpLt
		default:
			return nil, fmt.Errorf("--node-selector %q: operator %q has no node affinity equivalent", selector, r.Operator())
		}
		out = append(out, corev1.NodeSelectorRequirement{Key: r.Key(), Operator: op, Values: r.ValuesUnsorted()})
	}
	return out, nil
}

// apiServerEnv points the agent's in-cluster configuration at rawURL: the
// in-cluster configuration is KUBERNETES_SERVICE_HOST and _PORT with the
// ServiceAccount's token and CA, so the URL must be https and its
// certificate must name the host.
func apiServerEnv(rawURL string) ([]corev1.EnvVar, error) {
	if rawURL == "" {
		return nil, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("--api-server-url %q: %w", rawURL, err)
	}
	if u.Scheme != "https" || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("--api-server-url %q: want https://host[:port], the address the nodes reach the API server at", rawURL)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return nil, fmt.Errorf("--api-server-url %q: port %q: %w", rawURL, port, err)
	}
	return []corev1.EnvVar{
		{Name: "KUBERNETES_SERVICE_HOST", Value: u.Hostname()},
		{Name: "KUBERNETES_SERVICE_PORT", Value: port},
	}, nil
}

// WriteYAML writes objects as a multi-document YAML stream, as kubectl
// apply -f reads it.
func WriteYAML(w io.Writer, objs []*unstructured.Unstructured) error {
	for i, obj := range objs {
		b, err := yaml.Marshal(obj.Object)
		if err != nil {
			return fmt.Errorf("encoding %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
