package agent

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestAPIReferences(t *testing.T) {
	env := func(from v1.EnvVarSource) v1.Container {
		return v1.Container{Name: "c", Env: []v1.EnvVar{{Name: "X", ValueFrom: &from}}}
	}
	tests := []struct {
		name string
		spec v1.PodSpec
		want []string
	}{
		{name: "none", spec: v1.PodSpec{Containers: []v1.Container{{Name: "c"}}, Volumes: []v1.Volume{{Name: "h", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}}}}},
		{name: "service account", spec: v1.PodSpec{ServiceAccountName: "sa"}, want: []string{"serviceaccount"}},
		{name: "image pull secret", spec: v1.PodSpec{ImagePullSecrets: []v1.LocalObjectReference{{Name: "s"}}}, want: []string{"secret"}},
		{name: "secret env", spec: v1.PodSpec{Containers: []v1.Container{env(v1.EnvVarSource{SecretKeyRef: &v1.SecretKeySelector{Key: "k"}})}}, want: []string{"secret"}},
		{name: "configmap env in an init container", spec: v1.PodSpec{InitContainers: []v1.Container{env(v1.EnvVarSource{ConfigMapKeyRef: &v1.ConfigMapKeySelector{Key: "k"}})}}, want: []string{"configmap"}},
		{name: "envFrom", spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", EnvFrom: []v1.EnvFromSource{{SecretRef: &v1.SecretEnvSource{}}, {ConfigMapRef: &v1.ConfigMapEnvSource{}}}}}}, want: []string{"configmap", "secret"}},
		{name: "volumes", spec: v1.PodSpec{Volumes: []v1.Volume{
			{Name: "a", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}},
			{Name: "b", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{{ServiceAccountToken: &v1.ServiceAccountTokenProjection{}}, {DownwardAPI: &v1.DownwardAPIProjection{}}}}}},
			{Name: "c", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "s"}}},
		}}, want: []string{"persistentvolumeclaim", "secret", "serviceaccount"}},
		{name: "resource claims", spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{{Name: "r"}}}, want: []string{"resourceclaim"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := apiReferences(&v1.Pod{Spec: tc.spec}); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
