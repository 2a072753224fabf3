// Package redacttest plants secrets in every field of a pod and lists the
// fields redact.Pod serves, for the tests of redact.Pod and of what the
// agent serves.
package redacttest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Planter fills every string, map and slice of a value with unique secrets,
// each remembered with the path of the field it went into.
type Planter struct {
	t *testing.T
	// Secrets are the planted secrets, each with the path of its field.
	Secrets map[string]string
	onPath  map[reflect.Type]bool
}

// NewPlanter returns a planter that has planted nothing yet.
func NewPlanter(t *testing.T) *Planter {
	return &Planter{t: t, Secrets: map[string]string{}, onPath: map[reflect.Type]bool{}}
}

// PlantPod returns a pod with a unique secret in every string, map and
// slice of its metadata, spec and status, found by reflection, so that
// fields a later k8s.io/api adds are covered too. It fails t when the walk
// missed fields.
func (p *Planter) PlantPod() *v1.Pod {
	p.t.Helper()
	var pod v1.Pod
	p.Plant(reflect.ValueOf(&pod).Elem(), "")
	pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	var inSpec, inStatus int
	for _, path := range p.Secrets {
		inSpec += b2i(strings.HasPrefix(path, ".spec."))
		inStatus += b2i(strings.HasPrefix(path, ".status."))
	}
	if inSpec < 300 || inStatus < 50 {
		p.t.Fatalf("planted %d secrets in the spec and %d in the status: the walk missed fields", inSpec, inStatus)
	}
	p.t.Logf("planted %d secrets: %d in the spec, %d in the status", len(p.Secrets), inSpec, inStatus)
	return &pod
}

// secret returns a new secret for path; no secret is a prefix of another.
func (p *Planter) secret(path string) string {
	s := fmt.Sprintf("Zq%05dqZ", len(p.Secrets))
	p.Secrets[s] = path
	return s
}

// Plant fills v, which is at path, and what it contains.
func (p *Planter) Plant(v reflect.Value, path string) {
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
		p.Plant(v.Elem(), path)
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
				p.Plant(v.Field(i), path)
			default:
				p.Plant(v.Field(i), path+"."+name)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		p.Plant(v.Index(0), path+"[]")
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			p.t.Fatalf("%s: a map keyed by %s; teach the planter", path, v.Type().Key())
		}
		key := reflect.New(v.Type().Key()).Elem()
		key.SetString(p.secret(path + "{key}"))
		val := reflect.New(v.Type().Elem()).Elem()
		p.Plant(val, path+"{}")
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

// Served returns every planted path the projection serves.
func Served() map[string]bool {
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

// SecretAt returns the secret planted at path.
func SecretAt(secrets map[string]string, path string) string {
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
