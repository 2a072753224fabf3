package agent

import (
	"strings"
	"testing"
)

func TestCutObjectDump(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{
			name: "a Secret in the static pod path",
			in:   `/etc/kubernetes/manifests/s.yaml: couldn't parse as pod(invalid pod: &core.Secret{TypeMeta:v1.TypeMeta{Kind:"", APIVersion:""}, Data:map[string][]uint8{"password":[]uint8{0x68, 0x75}}}), please check config file`,
			want: `/etc/kubernetes/manifests/s.yaml: couldn't parse as pod(invalid pod: &core.Secret{...} (the object is served only with --expose-pod-specs)`,
		},
		{
			name: "a ConfigMap list from the URL",
			in:   `http://h/pods: received '<the 9-byte body>', but couldn't parse as single (invalid pod: &core.ConfigMapList{Items:[]core.ConfigMap{}}) or multiple pods (invalid pods list: &core.ConfigMapList{})`,
			want: `http://h/pods: received '<the 9-byte body>', but couldn't parse as single (invalid pod: &core.ConfigMapList{...} (the object is served only with --expose-pod-specs)`,
		},
		{
			name: "a validation error stays",
			in:   `invalid pod: [spec.containers[0].image: Required value]`,
			want: `invalid pod: [spec.containers[0].image: Required value]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutObjectDump(tt.in)
			if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if strings.Contains(got, "0x68") {
				t.Fatal("the dump's content is still there")
			}
		})
	}
}
