package v1alpha1

// The kubelet's admit handlers (its lifecycle.PodAdmitHandler values) that
// podsrc chains, as Admission.Handler names them.
const (
	// AdmitHandlerEviction is the kubelet's eviction manager: node pressure
	// (the Node's MemoryPressure, DiskPressure and PIDPressure conditions)
	// against the pod's criticality, QoS class and tolerations.
	AdmitHandlerEviction = "eviction"
	// AdmitHandlerSysctl is the kubelet's sysctl allowlist: the safe
	// sysctls and the kubelet's allowedUnsafeSysctls.
	AdmitHandlerSysctl = "sysctl"
	// AdmitHandlerPredicate is the kubelet's general predicates (resources,
	// node name, selector and affinity, host ports, OS, NoExecute taints),
	// with critical pod preemption as its failure handler.
	AdmitHandlerPredicate = "predicate"
	// AdmitHandlerPodFeatures is the kubelet's pod features handler.
	AdmitHandlerPodFeatures = "podfeatures"
	// AdmitHandlerDeclaredFeatures is the kubelet's declared features
	// handler (v1.36 on, gate NodeDeclaredFeatures): the node features a
	// pod needs against those the kubelet declares in its Node's status.
	AdmitHandlerDeclaredFeatures = "declaredfeatures"
)

// AdmitHandlers are the values of Admission.Handler, in the order the
// kubelet chains the handlers.
var AdmitHandlers = []string{AdmitHandlerEviction, AdmitHandlerSysctl, AdmitHandlerPredicate, AdmitHandlerPodFeatures, AdmitHandlerDeclaredFeatures}

// Admission is the kubelet's admission verdict on one added pod, as podsrc
// reproduces it with the admit handlers of the node's kubelet minor.
type Admission struct {
	// Admitted is true when every admit handler let the pod in (possibly
	// after preempting the pods in Preempts), false when one refused it or
	// the pod was not taken to admission (Skipped).
	Admitted bool `json:"admitted"`
	// Reason is the refusing handler's reason, as the kubelet sets it in
	// the pod's status.reason (OutOfcpu, NodePorts, SysctlForbidden, …).
	Reason string `json:"reason,omitempty"`
	// Message is the refusing handler's message; the kubelet sets the
	// pod's status.message to "Pod was rejected: " followed by it.
	Message string `json:"message,omitempty"`
	// Handler names the admit handler that refused the pod (one of
	// AdmitHandlers); empty when the pod was admitted.
	Handler string `json:"handler,omitempty"`
	// Preempts are the pods the kubelet's critical pod preemption evicts
	// to admit this one, in the order it evicts them (evicted even if a
	// handler after the predicates then refuses it).
	Preempts []PodRef `json:"preempts,omitempty"`
	// Skipped says why the pod was not taken to admission at all (a mirror
	// pod, a pod already in a terminal phase); empty when it was.
	Skipped string `json:"skipped,omitempty"`
	// ReadBack is true when the verdict is the kubelet's own, read back
	// from the pod's status (a rejected API pod's status.reason and
	// status.message, or its start), rather than reproduced by podsrc.
	ReadBack bool `json:"readBack,omitempty"`
	// Unknown says why podsrc cannot give a verdict (no Node object to
	// judge against, no admit handlers in this agent build, or a handler
	// that judges from kubelet state podsrc cannot see: the resource
	// managers' checkpoints, the host's AppArmor, a shutdown under way);
	// Admitted is then false and means nothing.
	Unknown string `json:"unknown,omitempty"`
}

// Rejected reports whether the kubelet's admission refused the pod: judged
// (neither skipped nor unknown) and not admitted.
func (a *Admission) Rejected() bool {
	return a != nil && !a.Admitted && a.Unknown == "" && a.Skipped == ""
}
