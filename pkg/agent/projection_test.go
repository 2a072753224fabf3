package agent

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// planter fills every string, map and slice of a value with unique secrets,
// each remembered with the path of the field it went into.
type planter struct {
	t       *testing.T
	secrets map[string]string // secret -> path
	onPath  map[reflect.Type]bool
}

// secret returns a new secret for path; no secret is a prefix of another.
func (p *planter) secret(path string) string {
	s := fmt.Sprintf("Zq%05dqZ", len(p.secrets))
	p.secrets[s] = path
	return s
}

// plant fills v, which is at path, and what it contains.
func (p *planter) plant(v reflect.Value, path string) {
	p.t.Helper()
	switch v.Type() {
	case reflect.TypeFor[intstr.IntOrString]():
		v.Set(reflect.ValueOf(intstr.FromString(p.secret(path))))
		return
	case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime]():
		return // no strings: numbers and times
	case reflect.TypeFor[metav1.FieldsV1]():
		// Raw JSON: a secret in a field name keeps it valid.
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(`{"f:` + p.secret(path) + `":{}}`)}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(p.secret(path))
	case reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Float64:
	case reflect.Pointer:
		if p.onPath[v.Type()] {
			return // a recursive type: one level is enough
		}
		p.onPath[v.Type()] = true
		v.Set(reflect.New(v.Type().Elem()))
		p.plant(v.Elem(), path)
		delete(p.onPath, v.Type())
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
				continue
			case f.Anonymous && name == "":
				p.plant(v.Field(i), path)
			default:
				p.plant(v.Field(i), path+"."+name)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		p.plant(v.Index(0), path+"[]")
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			p.t.Fatalf("%s: a map keyed by %s; teach the planter", path, v.Type().Key())
		}
		key := reflect.New(v.Type().Key()).Elem()
		key.SetString(p.secret(path + "{key}"))
		val := reflect.New(v.Type().Elem()).Elem()
		p.plant(val, path+"{}")
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(key, val)
	default:
		p.t.Fatalf("%s: a %s; teach the planter", path, v.Kind())
	}
}

// servedPaths are the planted fields whose values the agent serves by
// default: redact.Pod's allowlist, as paths of the planter.
var servedPaths = []string{
	".metadata.name", ".metadata.namespace", ".metadata.resourceVersion",
	".metadata.labels{key}", ".metadata.labels{}",
	".metadata.ownerReferences[].apiVersion", ".metadata.ownerReferences[].kind",
	".metadata.ownerReferences[].name", ".metadata.ownerReferences[].uid",
	".spec.restartPolicy", ".spec.volumes[].name",
	".status.phase", ".status.reason", ".status.qosClass",
	".status.hostIP", ".status.hostIPs[].ip", ".status.podIP", ".status.podIPs[].ip",
	".status.conditions[].type", ".status.conditions[].status", ".status.conditions[].reason",
}

// servedContainerPaths are served for init, regular and ephemeral
// containers (spec.containers[]...).
var servedContainerPaths = []string{
	".name", ".image", ".imagePullPolicy", ".restartPolicy",
	".ports[].name", ".ports[].protocol",
	".resources.requests{key}", ".resources.limits{key}",
}

// servedHandlerPaths are served for each probe and hook.
var servedHandlerPaths = []string{".httpGet.path", ".httpGet.port", ".httpGet.scheme", ".tcpSocket.port"}

// servedStatusPaths are served for each container status.
var servedStatusPaths = []string{
	".name", ".image", ".imageID", ".containerID",
	".state.waiting.reason", ".state.terminated.reason", ".state.terminated.containerID",
	".lastState.waiting.reason", ".lastState.terminated.reason", ".lastState.terminated.containerID",
}

// served returns every planted path the projection serves.
func served() map[string]bool {
	out := map[string]bool{}
	for _, p := range servedPaths {
		out[p] = true
	}
	for _, c := range []string{".spec.initContainers[]", ".spec.containers[]", ".spec.ephemeralContainers[]"} {
		for _, p := range servedContainerPaths {
			out[c+p] = true
		}
		for _, h := range []string{".livenessProbe", ".readinessProbe", ".startupProbe", ".lifecycle.postStart", ".lifecycle.preStop"} {
			for _, p := range servedHandlerPaths {
				out[c+h+p] = true
			}
		}
	}
	for _, s := range []string{".status.initContainerStatuses[]", ".status.containerStatuses[]", ".status.ephemeralContainerStatuses[]"} {
		for _, p := range servedStatusPaths {
			out[s+p] = true
		}
	}
	return out
}

// TestServedPodsHoldOnlyTheProjection plants a unique secret in every
// string, map and slice of a pod's metadata, spec and status (found by
// reflection, so fields a later k8s.io/api adds are covered too), serves
// the pod from a static pod manifest through the agent, and reads every
// endpoint and the stream: only the projection's fields may show, and they
// do.
func TestServedPodsHoldOnlyTheProjection(t *testing.T) {
	pl := &planter{t: t, secrets: map[string]string{}, onPath: map[reflect.Type]bool{}}
	var pod v1.Pod
	pl.plant(reflect.ValueOf(&pod).Elem(), "")
	pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	var inSpec, inStatus int
	for _, path := range pl.secrets {
		inSpec += b2i(strings.HasPrefix(path, ".spec."))
		inStatus += b2i(strings.HasPrefix(path, ".status."))
	}
	if inSpec < 300 || inStatus < 50 {
		t.Fatalf("planted %d secrets in the spec and %d in the status: the walk missed fields", inSpec, inStatus)
	}
	t.Logf("planted %d secrets: %d in the spec, %d in the status", len(pl.secrets), inSpec, inStatus)
	manifest, err := yaml.Marshal(&pod)
	if err != nil {
		t.Fatal(err)
	}

	ta := startAgent(t, nil)
	stream := ta.stream(t, "?since=0")
	ta.writeManifest(t, "planted.yaml", string(manifest))
	info := ta.staticPod(t, pod.Name+"-node-1")
	// Read the stream up to the config event of the pod.
	var lines []string
	for {
		m := stream.nextOf(t)
		line, _ := yaml.Marshal(m)
		lines = append(lines, string(line))
		if m.Event != nil && m.Event.Kind == v1alpha1.EventKindConfig && slices.ContainsFunc(m.Event.Pods, func(r v1alpha1.PodRef) bool { return r.UID == info.UID }) {
			break
		}
	}
	snapshot := ta.stream(t, "?snapshot=true")
	line, _ := yaml.Marshal(snapshot.next(t))

	bodies := map[string]string{"the stream": strings.Join(lines, ""), "the snapshot": string(line)}
	for _, path := range []string{"/api/v1alpha1/sources", "/api/v1alpha1/pods", "/api/v1alpha1/pods/" + string(info.UID), "/api/v1alpha1/pleg", "/metrics", "/version"} {
		_, body := ta.get(t, path)
		bodies[path] = string(body)
	}
	allowed := served()
	for secret, path := range pl.secrets {
		if allowed[path] {
			continue
		}
		for where, body := range bodies {
			if strings.Contains(body, secret) {
				t.Errorf("%s shows %s, which is not on the projection's list", where, path)
			}
		}
	}
	// The projection serves what it lists (the decoder sets nodeName and
	// the UID, and a probe's port that is a name stays one).
	one := bodies["/api/v1alpha1/pods/"+string(info.UID)]
	for secret, path := range pl.secrets {
		if allowed[path] && !strings.Contains(one, secret) {
			t.Errorf("the pod's projection lacks %s", path)
		}
	}
	var got v1alpha1.PodInfo
	ta.getJSON(t, "/api/v1alpha1/pods/"+string(info.UID), &got)
	vol := got.Pod.Spec.Volumes
	if len(vol) != 1 || vol[0].HostPath == nil || vol[0].HostPath.Path != "" || got.Pod.Spec.Containers[0].LivenessProbe.Exec == nil {
		t.Errorf("volume types and probe kinds are not kept: %+v %+v", vol, got.Pod.Spec.Containers[0].LivenessProbe)
	}

	// --expose-pod-specs serves the pod in full.
	exposed := startAgent(t, func(c *Config) { c.ExposePodSpecs = true })
	exposed.writeManifest(t, "planted.yaml", string(manifest))
	p := exposed.staticPod(t, pod.Name+"-node-1")
	_, full := exposed.get(t, "/api/v1alpha1/pods/"+string(p.UID))
	for _, path := range []string{".spec.containers[].command[]", ".spec.containers[].env[].value", ".status.message"} {
		if s := secretAt(pl.secrets, path); !strings.Contains(string(full), s) {
			t.Errorf("--expose-pod-specs does not serve %s", path)
		}
	}
}

// secretAt returns the secret planted at path.
func secretAt(secrets map[string]string, path string) string {
	for s, p := range secrets {
		if p == path {
			return s
		}
	}
	return "no secret at " + path
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
