package admission

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// NamedAdmitHandler is one admit handler of a minor's chain, under its name in
// v1alpha1.AdmitHandlers. Admit returns the handler's verdict; Preempted holds the
// pods it evicted, which are gone whatever the verdict.
type NamedAdmitHandler struct {
	Name  string
	Admit func(AdmitAttributes) AdmitResult
}

// chain runs its steps in order; the first that refuses decides.
type chain []NamedAdmitHandler

// NewChain returns the AdmitHandler that chains the steps names selects from
// the steps a kubelet minor has (nil names selects them all), in the
// kubelet's order. It fails for a name the minor has no step of, and for
// names out of the kubelet's order.
func NewChain(kubelet string, steps []NamedAdmitHandler, names []string) (AdmitHandler, error) {
	if names == nil {
		return chain(steps), nil
	}
	var c chain
	for _, name := range names {
		i := slices.IndexFunc(steps, func(s NamedAdmitHandler) bool { return s.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("kubelet %s chains no admit handler %q", kubelet, name)
		}
		if len(c) > 0 && slices.IndexFunc(steps, func(s NamedAdmitHandler) bool { return s.Name == c[len(c)-1].Name }) >= i {
			return nil, fmt.Errorf("kubelet %s chains admit handler %q once and before %q", kubelet, name, c[len(c)-1].Name)
		}
		c = append(c, steps[i])
	}
	return c, nil
}

// Admit runs the steps until one refuses.
func (c chain) Admit(in AdmitAttributes) AdmitResult {
	var preempted []*v1.Pod
	for _, s := range c {
		v := s.Admit(in)
		preempted = append(preempted, v.Preempted...)
		if !v.Admit {
			v.Handler = s.Name
			v.Preempted = preempted
			return v
		}
	}
	return AdmitResult{Admit: true, Preempted: preempted}
}
