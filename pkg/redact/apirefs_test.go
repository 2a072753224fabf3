package redact

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
		{name: "image pull secret without a name", spec: v1.PodSpec{ImagePullSecrets: []v1.LocalObjectReference{{}}}},
		{name: "secret env", spec: v1.PodSpec{Containers: []v1.Container{env(v1.EnvVarSource{SecretKeyRef: &v1.SecretKeySelector{LocalObjectReference: v1.LocalObjectReference{Name: "s"}, Key: "k"}})}}, want: []string{"secret"}},
		{name: "configmap env in an init container", spec: v1.PodSpec{InitContainers: []v1.Container{env(v1.EnvVarSource{ConfigMapKeyRef: &v1.ConfigMapKeySelector{LocalObjectReference: v1.LocalObjectReference{Name: "m"}, Key: "k"}})}}, want: []string{"configmap"}},
		{name: "envFrom", spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", EnvFrom: []v1.EnvFromSource{
			{SecretRef: &v1.SecretEnvSource{LocalObjectReference: v1.LocalObjectReference{Name: "s"}}},
			{ConfigMapRef: &v1.ConfigMapEnvSource{LocalObjectReference: v1.LocalObjectReference{Name: "m"}}},
		}}}}, want: []string{"configmap", "secret"}},
		{name: "envFrom in an ephemeral container", spec: v1.PodSpec{EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "d", EnvFrom: []v1.EnvFromSource{
			{SecretRef: &v1.SecretEnvSource{LocalObjectReference: v1.LocalObjectReference{Name: "s"}}},
		}}}}}, want: []string{"secret"}},
		{name: "resource claims", spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{{Name: "r"}}}, want: []string{"resourceclaim"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := APIReferences(&v1.Pod{Spec: tc.spec}); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAPIReferencesVolumes covers every volume type: those that can hold a
// secret reference with and without one, and those that need an API object
// to be mounted at all.
func TestAPIReferencesVolumes(t *testing.T) {
	ref := &v1.LocalObjectReference{Name: "creds"}
	none := []string(nil)
	secret := []string{"secret"}
	tests := []struct {
		name string
		src  v1.VolumeSource
		want []string
	}{
		{"hostPath", v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}, none},
		{"emptyDir", v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}, none},
		{"downwardAPI", v1.VolumeSource{DownwardAPI: &v1.DownwardAPIVolumeSource{}}, none},
		{"image", v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "r"}}, none},
		{"nfs", v1.VolumeSource{NFS: &v1.NFSVolumeSource{Server: "s", Path: "/p"}}, none},
		{"secret", v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "s"}}, secret},
		{"configMap", v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "m"}}}, []string{"configmap"}},
		{"azureFile", v1.VolumeSource{AzureFile: &v1.AzureFileVolumeSource{SecretName: "s", ShareName: "x"}}, secret},
		{"cephfs with a secret", v1.VolumeSource{CephFS: &v1.CephFSVolumeSource{Monitors: []string{"m"}, SecretRef: ref}}, secret},
		{"cephfs without", v1.VolumeSource{CephFS: &v1.CephFSVolumeSource{Monitors: []string{"m"}}}, none},
		{"cinder with a secret", v1.VolumeSource{Cinder: &v1.CinderVolumeSource{VolumeID: "v", SecretRef: ref}}, secret},
		{"cinder without", v1.VolumeSource{Cinder: &v1.CinderVolumeSource{VolumeID: "v"}}, none},
		{"flexVolume with a secret", v1.VolumeSource{FlexVolume: &v1.FlexVolumeSource{Driver: "d", SecretRef: ref}}, secret},
		{"flexVolume without", v1.VolumeSource{FlexVolume: &v1.FlexVolumeSource{Driver: "d"}}, none},
		{"rbd with a secret", v1.VolumeSource{RBD: &v1.RBDVolumeSource{RBDImage: "i", SecretRef: ref}}, secret},
		{"rbd without", v1.VolumeSource{RBD: &v1.RBDVolumeSource{RBDImage: "i"}}, none},
		{"scaleIO with a secret", v1.VolumeSource{ScaleIO: &v1.ScaleIOVolumeSource{Gateway: "g", SecretRef: ref}}, secret},
		{"iscsi with a secret", v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{TargetPortal: "t", SecretRef: ref}}, secret},
		{"iscsi without", v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{TargetPortal: "t"}}, none},
		{"iscsi with an empty secret name", v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{TargetPortal: "t", SecretRef: &v1.LocalObjectReference{}}}, none},
		{"storageos with a secret", v1.VolumeSource{StorageOS: &v1.StorageOSVolumeSource{VolumeName: "v", SecretRef: ref}}, secret},
		{"storageos without", v1.VolumeSource{StorageOS: &v1.StorageOSVolumeSource{VolumeName: "v"}}, none},
		{"csi with a node publish secret", v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: ref}}, []string{"csidriver", "secret"}},
		{"csi without", v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: "d"}}, []string{"csidriver"}},
		{"glusterfs", v1.VolumeSource{Glusterfs: &v1.GlusterfsVolumeSource{EndpointsName: "e", Path: "p"}}, []string{"endpoints"}},
		{"persistentVolumeClaim", v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}, []string{"persistentvolumeclaim"}},
		{"ephemeral", v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}, []string{"persistentvolumeclaim"}},
		{"projected", v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{
			{Secret: &v1.SecretProjection{LocalObjectReference: v1.LocalObjectReference{Name: "s"}}},
			{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "m"}}},
			{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "t"}},
			{ClusterTrustBundle: &v1.ClusterTrustBundleProjection{Path: "b"}},
			{PodCertificate: &v1.PodCertificateProjection{SignerName: "x/y"}},
			{DownwardAPI: &v1.DownwardAPIProjection{}},
		}}}, []string{"clustertrustbundle", "configmap", "podcertificate", "secret", "serviceaccount"}},
		{"projected downward API only", v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{{DownwardAPI: &v1.DownwardAPIProjection{}}}}}, none},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: v1.PodSpec{Volumes: []v1.Volume{{Name: "v", VolumeSource: tc.src}}}}
			if got := APIReferences(pod); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
