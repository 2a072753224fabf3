package redact

import (
	"reflect"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// The kinds APIReferences reports: the only strings it ever serves, so no
// name from a manifest reaches a client.
const (
	refSecret                = "secret"
	refConfigMap             = "configmap"
	refServiceAccount        = "serviceaccount"
	refPersistentVolumeClaim = "persistentvolumeclaim"
	refResourceClaim         = "resourceclaim"
	refClusterTrustBundle    = "clustertrustbundle"
	refPodCertificate        = "podcertificate"
	refCSIDriver             = "csidriver"
	refEndpoints             = "endpoints"
)

// APIReferences returns the kinds of API objects the pod refers to, which
// NodeRestriction does not let a mirror pod refer to (and a kubelet with
// PreventStaticPodAPIReferences does not let a static pod): no names, only
// kinds, sorted. As those checks do, a secret or configmap reference with an
// empty name counts only where it is a secret or configmap volume.
func APIReferences(pod *v1.Pod) []string {
	kinds := map[string]bool{}
	s := &pod.Spec
	if s.ServiceAccountName != "" {
		kinds[refServiceAccount] = true
	}
	for _, r := range s.ImagePullSecrets {
		addNamed(kinds, refSecret, r.Name)
	}
	if len(s.ResourceClaims) > 0 {
		kinds[refResourceClaim] = true
	}
	for i := range s.Volumes {
		volumeReferences(&s.Volumes[i].VolumeSource, kinds)
	}
	for i := range s.InitContainers {
		envReferences(s.InitContainers[i].Env, s.InitContainers[i].EnvFrom, kinds)
	}
	for i := range s.Containers {
		envReferences(s.Containers[i].Env, s.Containers[i].EnvFrom, kinds)
	}
	for i := range s.EphemeralContainers {
		envReferences(s.EphemeralContainers[i].Env, s.EphemeralContainers[i].EnvFrom, kinds)
	}
	var out []string
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// addNamed adds kind when name is set.
func addNamed(kinds map[string]bool, kind, name string) {
	if name != "" {
		kinds[kind] = true
	}
}

// addSecretRef adds a secret when ref names one.
func addSecretRef(kinds map[string]bool, ref *v1.LocalObjectReference) {
	if ref != nil {
		addNamed(kinds, refSecret, ref.Name)
	}
}

// envReferences adds the kinds of API objects a container's environment
// refers to.
func envReferences(env []v1.EnvVar, from []v1.EnvFromSource, kinds map[string]bool) {
	for _, e := range from {
		if e.SecretRef != nil {
			addNamed(kinds, refSecret, e.SecretRef.Name)
		}
		if e.ConfigMapRef != nil {
			addNamed(kinds, refConfigMap, e.ConfigMapRef.Name)
		}
	}
	for _, e := range env {
		if e.ValueFrom == nil {
			continue
		}
		if e.ValueFrom.SecretKeyRef != nil {
			addNamed(kinds, refSecret, e.ValueFrom.SecretKeyRef.Name)
		}
		if e.ValueFrom.ConfigMapKeyRef != nil {
			addNamed(kinds, refConfigMap, e.ValueFrom.ConfigMapKeyRef.Name)
		}
	}
}

// volumeReferences adds the kinds of API objects a volume refers to: the
// secret behind a network volume's credentials, and the objects the API
// server or the kubelet must look up to fill or mount the volume.
func volumeReferences(v *v1.VolumeSource, kinds map[string]bool) {
	switch {
	case v.Secret != nil:
		kinds[refSecret] = true
	case v.ConfigMap != nil:
		kinds[refConfigMap] = true
	case v.AzureFile != nil:
		kinds[refSecret] = true
	case v.CephFS != nil:
		addSecretRef(kinds, v.CephFS.SecretRef)
	case v.Cinder != nil:
		addSecretRef(kinds, v.Cinder.SecretRef)
	case v.FlexVolume != nil:
		addSecretRef(kinds, v.FlexVolume.SecretRef)
	case v.RBD != nil:
		addSecretRef(kinds, v.RBD.SecretRef)
	case v.ScaleIO != nil:
		addSecretRef(kinds, v.ScaleIO.SecretRef)
	case v.ISCSI != nil:
		addSecretRef(kinds, v.ISCSI.SecretRef)
	case v.StorageOS != nil:
		addSecretRef(kinds, v.StorageOS.SecretRef)
	case v.CSI != nil:
		kinds[refCSIDriver] = true
		addSecretRef(kinds, v.CSI.NodePublishSecretRef)
	case v.Glusterfs != nil:
		kinds[refEndpoints] = true
	case v.PersistentVolumeClaim != nil, v.Ephemeral != nil:
		kinds[refPersistentVolumeClaim] = true
	case v.Projected != nil:
		for _, p := range v.Projected.Sources {
			switch {
			case p.Secret != nil:
				kinds[refSecret] = true
			case p.ConfigMap != nil:
				kinds[refConfigMap] = true
			case p.ServiceAccountToken != nil:
				kinds[refServiceAccount] = true
			case p.ClusterTrustBundle != nil:
				kinds[refClusterTrustBundle] = true
			case projectsPodCertificate(p):
				kinds[refPodCertificate] = true
			}
		}
	}
}

// projectsPodCertificate reports whether p projects a pod certificate.
// k8s.io/api has that source from v0.34 on, and the agent for kubelet v1.33
// compiles against v0.33, so the field is looked up by name: where it is
// absent, that kubelet knows no such source either.
func projectsPodCertificate(p v1.VolumeProjection) bool {
	f := reflect.ValueOf(p).FieldByName("PodCertificate")
	return f.IsValid() && !f.IsNil()
}
