package cri

// Labels and annotations the kubelet puts on the sandboxes and containers it
// creates; they tie runtime objects back to pods.
const (
	// LabelPodUID holds the UID of the pod a container belongs to.
	LabelPodUID = "io.kubernetes.pod.uid"
	// LabelPodName holds the name of the pod a container belongs to.
	LabelPodName = "io.kubernetes.pod.name"
	// LabelPodNamespace holds the namespace of the pod a container belongs to.
	LabelPodNamespace = "io.kubernetes.pod.namespace"
	// LabelContainerName holds the name of the container in the pod spec.
	LabelContainerName = "io.kubernetes.container.name"
	// AnnotationRestartCount holds how often the kubelet restarted the container.
	AnnotationRestartCount = "io.kubernetes.container.restartCount"
)
