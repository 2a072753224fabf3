package agent

import (
	"slices"

	v1 "k8s.io/api/core/v1"
)

// apiReferences returns the kinds of API objects the pod refers to, which
// NodeRestriction does not let a mirror pod refer to (and a kubelet with
// PreventStaticPodAPIReferences does not let a static pod): no names, only
// kinds, sorted.
func apiReferences(pod *v1.Pod) []string {
	kinds := map[string]bool{}
	s := &pod.Spec
	if s.ServiceAccountName != "" {
		kinds["serviceaccount"] = true
	}
	if len(s.ImagePullSecrets) > 0 {
		kinds["secret"] = true
	}
	if len(s.ResourceClaims) > 0 {
		kinds["resourceclaim"] = true
	}
	for i := range s.Volumes {
		volumeReferences(&s.Volumes[i], kinds)
	}
	visit := func(c *v1.Container) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				kinds["secret"] = true
			}
			if e.ConfigMapRef != nil {
				kinds["configmap"] = true
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if e.ValueFrom.SecretKeyRef != nil {
				kinds["secret"] = true
			}
			if e.ValueFrom.ConfigMapKeyRef != nil {
				kinds["configmap"] = true
			}
		}
	}
	for i := range s.InitContainers {
		visit(&s.InitContainers[i])
	}
	for i := range s.Containers {
		visit(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		c := v1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		visit(&c)
	}
	var out []string
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// volumeReferences adds the kinds of API objects a volume refers to.
func volumeReferences(v *v1.Volume, kinds map[string]bool) {
	switch {
	case v.Secret != nil, v.AzureFile != nil:
		kinds["secret"] = true
	case v.ConfigMap != nil:
		kinds["configmap"] = true
	case v.PersistentVolumeClaim != nil:
		kinds["persistentvolumeclaim"] = true
	case v.Ephemeral != nil:
		kinds["ephemeral volume"] = true
	case v.CSI != nil:
		kinds["csidriver"] = true
	case v.Projected != nil:
		for _, p := range v.Projected.Sources {
			switch {
			case p.Secret != nil:
				kinds["secret"] = true
			case p.ConfigMap != nil:
				kinds["configmap"] = true
			case p.ServiceAccountToken != nil:
				kinds["serviceaccount"] = true
			case p.ClusterTrustBundle != nil:
				kinds["clustertrustbundle"] = true
			}
		}
	}
	if v.CSI != nil && v.CSI.NodePublishSecretRef != nil {
		kinds["secret"] = true
	}
}
