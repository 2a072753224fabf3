package admission

import (
	v1 "k8s.io/api/core/v1"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	admit "github.com/podsrc/podsrc/pkg/admission"
)

// declaredFeatures is v1.36's declared features handler
// (lifecycle.NewDeclaredFeaturesAdmitHandler) as NewMainKubelet builds it,
// on the features the kubelet declares in its Node's status and the
// kubelet version its nodeInfo names. Without a Node it admits: the
// predicates before it refuse such a pod, as the kubelet's do when it
// cannot get its node, and the agent gives no verdict without one.
func declaredFeatures(node func() (*v1.Node, error)) admit.AdmitFunc {
	return func(in admit.AdmitAttributes) (bool, string, string) {
		n, err := node()
		if err != nil {
			return true, "", ""
		}
		declared := ndf.DefaultFramework.TryMap(n.Status.DeclaredFeatures)
		return admitFunc(lifecycle.NewDeclaredFeaturesAdmitHandler(ndf.DefaultFramework, declared, admit.NodeKubeletVersion(n, KubeletVersion())))(in)
	}
}
