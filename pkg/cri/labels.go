package cri

import kubelettypes "k8s.io/kubelet/pkg/types"

// Labels and annotations the kubelet puts on the sandboxes and containers it
// creates; they tie runtime objects back to pods. The labels are the
// kubelet's own constants.
const (
	// LabelPodUID holds the UID of the pod a container belongs to.
	LabelPodUID = kubelettypes.KubernetesPodUIDLabel
	// LabelPodName holds the name of the pod a container belongs to.
	LabelPodName = kubelettypes.KubernetesPodNameLabel
	// LabelPodNamespace holds the namespace of the pod a container belongs to.
	LabelPodNamespace = kubelettypes.KubernetesPodNamespaceLabel
	// LabelContainerName holds the name of the container in the pod spec.
	LabelContainerName = kubelettypes.KubernetesContainerNameLabel
	// AnnotationRestartCount holds how often the kubelet restarted the
	// container (a kuberuntime constant that no importable package exports).
	AnnotationRestartCount = "io.kubernetes.container.restartCount"
)
