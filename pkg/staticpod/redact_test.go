package staticpod

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/redact"
)

// failingKubelet fails every pod with err, as the kubelet's code fails a
// manifest it cannot decode.
type failingKubelet struct{ err error }

func (k failingKubelet) DecodePod([]byte, Location) (bool, *v1.Pod, []string, error) {
	return false, nil, nil, k.err
}

func (k failingKubelet) DecodePodList([]byte, Location) (bool, []*v1.Pod, error) {
	return false, nil, k.err
}

func (failingKubelet) KubeletVersion() string { return "v1.36.3" }

func TestDecodeErrorsLeaveContentOut(t *testing.T) {
	const secret = "s3cr3t-c0ffee"
	manifest := "apiVersion: v1\nknid: Pod\nmetadata:\n  name: db\nspec:\n  containers:\n  - env:\n    - {name: POSTGRES_PASSWORD, value: " + secret + "}\n"
	tests := []struct {
		name string
		err  error
		// want is what the message must keep; the test also checks that
		// the secret is gone and that Unredacted brings it back.
		want string
	}{
		{"kind missing", runtime.NewMissingKindErr(`{"knid":"Pod","value":"` + secret + `"}`), "couldn't parse as pod(Object 'Kind' is missing), please check config file"},
		{"apiVersion missing", runtime.NewMissingVersionErr(`{"kind":"Pod","value":"` + secret + `"}`), "(Object 'apiVersion' is missing)"},
		{"a Secret", fmt.Errorf("invalid pod: %#v", &v1.Secret{StringData: map[string]string{"password": secret}}), "(invalid pod: &v1.Secret{...}), please"},
		{"a ConfigMap list", fmt.Errorf("invalid pods list: %#v", &v1.ConfigMapList{Items: []v1.ConfigMap{{Data: map[string]string{"p": secret}}}}), "(invalid pods list: &v1.ConfigMapList{...})"},
		{"a number a field cannot take", errors.New("json: cannot unmarshal number 31415.9265" + secret + " into Go struct field PodSpec.spec.priority of type int32"), "(json: cannot unmarshal number into Go struct field PodSpec.spec.priority of type int32)"},
		{"a YAML map key", fmt.Errorf("error converting YAML to JSON: unsupported map key of type: []interface {}, key: []interface {}{%q}, value: %q", secret, secret), "(error converting YAML to JSON: unsupported map key of type: []interface {})"},
		{"an invalid map key", fmt.Errorf("error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}{%q:1}", secret), "(error converting YAML to JSON: yaml: invalid map key)"},
		{"a time", timeErr(secret), "(parsing time <value> as \"2006-01-02T15:04:05Z07:00\": cannot parse <value> as \"2006\")"},
		{"a time with extra text", timeErr("2026-11-22T12:00:00Z" + secret), "(parsing time <value>: extra text)"},
		{"a version no scheme registers", runtime.NewNotRegisteredErrForKind("k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30", schema.GroupVersionKind{Version: secret, Kind: "Pod"}),
			"(no kind <kind> is registered for version <version> in scheme"},
		{"an alias to no anchor", yamlErr("a: *" + secret + "\n"), "(error converting YAML to JSON: yaml: unknown anchor referenced)"},
		{"a YAML value of the wrong type", fmt.Errorf("yaml: unmarshal errors:\n  line 3: cannot unmarshal !!str `%s` into int", secret[:10]), "line 3: cannot unmarshal !!str into int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(failingKubelet{tt.err})
			_, _, fileErr := d.DecodeFile([]byte(manifest), "/etc/kubernetes/manifests/db.yaml", "node-1")
			_, _, urlErr := d.DecodeURL([]byte(manifest), "http://h/pods", "node-1")
			for _, err := range []error{fileErr, urlErr, fmt.Errorf("manifest: %w", fileErr)} {
				msg := err.Error()
				if strings.Contains(msg, secret[:10]) {
					t.Errorf("the message quotes the secret: %s", msg)
				}
				if err != urlErr && !strings.Contains(msg, tt.want) {
					t.Errorf("the message %q lost %q", msg, tt.want)
				}
				if full := redact.Unredacted(err); !strings.Contains(full, tt.err.Error()) {
					t.Errorf("redact.Unredacted(%q) = %q, not the kubelet's message", msg, full)
				}
			}
			if want := fmt.Sprintf("http://h/pods: received '<the %d-byte body>', but couldn't parse as single (", len(manifest)); !strings.HasPrefix(urlErr.Error(), want) {
				t.Errorf("the URL's message %q does not start %q", urlErr, want)
			}
			if full := redact.Unredacted(urlErr); !strings.Contains(full, manifest) {
				t.Errorf("Unredacted does not give the body back: %s", full)
			}
		})
	}
}

// timeErr is the error of parsing s as a metav1.Time.
func timeErr(s string) error {
	var tm metav1.Time
	err := tm.UnmarshalJSON([]byte(strconv.Quote(s)))
	if err == nil {
		panic("parsed " + s)
	}
	return err
}

// yamlErr is the error of converting y to JSON, as the kubelet's decoder does.
func yamlErr(y string) error {
	_, err := yaml.YAMLToJSON([]byte(y))
	if err == nil {
		panic("converted " + y)
	}
	return fmt.Errorf("error converting YAML to JSON: %w", err)
}

func TestUnredactedOfAnErrorWithoutContent(t *testing.T) {
	d := NewDecoder(failingKubelet{errors.New("yaml: line 7: mapping values are not allowed in this context")})
	_, _, got := d.DecodeFile([]byte("a: b"), "/m/x.yaml", "n")
	want := "/m/x.yaml: couldn't parse as pod(yaml: line 7: mapping values are not allowed in this context), please check config file"
	if got.Error() != want || redact.Unredacted(got) != want {
		t.Fatalf("got %q and %q, want %q for both", got, redact.Unredacted(got), want)
	}
}
