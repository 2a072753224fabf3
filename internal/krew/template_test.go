package krew

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"text/template"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Render renders a release bot template for tag the way the bot does: Go
// templates with .TagName, and addURIAndSha writing the uri and the
// sha256 line (the bot downloads the archive; sums answers here).
func render(t *testing.T, tmpl []byte, tag string, sums map[string]string) Plugin {
	t.Helper()
	values := struct{ TagName, Version string }{tag, strings.TrimPrefix(tag, "v")}
	tp, err := template.New("krew").Funcs(template.FuncMap{
		"addURIAndSha": func(uri, tag string) (string, error) {
			var b bytes.Buffer
			if err := template.Must(template.New("uri").Parse(uri)).Execute(&b, values); err != nil {
				return "", err
			}
			sum, ok := sums[b.String()]
			if !ok {
				return "", fmt.Errorf("no archive at %s", b.String())
			}
			return fmt.Sprintf("uri: %s\n    sha256: %s", b.String(), sum), nil
		},
	}).Parse(string(tmpl))
	if err != nil {
		t.Fatalf("parsing the template: %v\n%s", err, tmpl)
	}
	var out bytes.Buffer
	if err := tp.Execute(&out, values); err != nil {
		t.Fatalf("rendering the template: %v", err)
	}
	var p Plugin
	if err := yaml.UnmarshalStrict(out.Bytes(), &p); err != nil {
		t.Fatalf("the rendered template: %v\n%s", err, out.String())
	}
	return p
}

func TestTemplateRendersTheManifestOfEveryTag(t *testing.T) {
	manifest := func(version string) (Plugin, map[string]string) {
		p := validPlugin()
		p.Spec.Version = version
		p.Spec.Caveats = "Run kubectl podsrc deploy.\n"
		sums := map[string]string{}
		for i, oa := range [][2]string{{"linux", "amd64"}, {"darwin", "arm64"}} {
			pl := Platform{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"os": oa[0], "arch": oa[1]}},
				URI:      "https://github.com/podsrc/podsrc/releases/download/" + version + "/kubectl-podsrc_" + version + "_" + oa[0] + "_" + oa[1] + ".tar.gz",
				Sha256:   strings.Repeat(fmt.Sprintf("%c%x", 'a'+i, len(version)), 32),
				Bin:      "kubectl-podsrc",
			}
			sums[pl.URI] = pl.Sha256
			if i == 0 {
				p.Spec.Platforms = nil
			}
			p.Spec.Platforms = append(p.Spec.Platforms, pl)
		}
		return p, sums
	}
	p, _ := manifest("v0.1.0")
	tmpl, err := Template(p, "v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(tmpl), "v0.1.0") {
		t.Fatalf("the template still names v0.1.0:\n%s", tmpl)
	}
	for _, tag := range []string{"v0.1.0", "v1.2.3"} {
		want, sums := manifest(tag)
		if got := render(t, tmpl, tag, sums); !reflect.DeepEqual(got, want) {
			t.Fatalf("rendered for %s:\n%+v\nwant\n%+v", tag, got, want)
		}
	}

	p.Spec.Description = "New in v0.1.0."
	if _, err := Template(p, "v0.1.0"); err == nil {
		t.Fatal("a description naming the version made a template")
	}
}

func TestCheckListing(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Plugin)
		wantErr string
	}{
		{name: "short enough", change: func(p *Plugin) { p.Spec.ShortDescription = strings.Repeat("x", 50) }},
		{name: "too long for krew search", change: func(p *Plugin) { p.Spec.ShortDescription = strings.Repeat("x", 51) }, wantErr: "51 characters"},
		{name: "no caveats", change: func(p *Plugin) { p.Spec.Caveats = "" }},
		{name: "three caveat lines", change: func(p *Plugin) { p.Spec.Caveats = "a\nb\nc\n" }},
		{name: "caveats as documentation", change: func(p *Plugin) { p.Spec.Caveats = "a\nb\nc\nd\n" }, wantErr: "4 lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPlugin()
			tt.change(&p)
			err := CheckListing(p)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got %v, want an error about %s", err, tt.wantErr)
			}
		})
	}
}
