package admission

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestNewChain(t *testing.T) {
	victim := pod("victim", 0)
	admit := func(AdmitAttributes) AdmitResult { return AdmitResult{Admit: true} }
	steps := []NamedAdmitHandler{
		{Name: v1alpha1.AdmitHandlerSysctl, Admit: admit},
		{Name: v1alpha1.AdmitHandlerPredicate, Admit: func(AdmitAttributes) AdmitResult { return AdmitResult{Admit: true, Preempted: []*v1.Pod{victim}} }},
		{Name: v1alpha1.AdmitHandlerPodFeatures, Admit: func(AdmitAttributes) AdmitResult { return AdmitResult{Reason: "PodFeatureUnsupported", Message: "no"} }},
	}
	tests := []struct {
		name    string
		names   []string
		want    AdmitResult
		wantErr string
	}{
		{"all", nil, AdmitResult{Reason: "PodFeatureUnsupported", Message: "no", Handler: v1alpha1.AdmitHandlerPodFeatures, Preempted: []*v1.Pod{victim}}, ""},
		{"none", []string{}, AdmitResult{Admit: true}, ""},
		{"a subset", []string{v1alpha1.AdmitHandlerSysctl, v1alpha1.AdmitHandlerPredicate}, AdmitResult{Admit: true, Preempted: []*v1.Pod{victim}}, ""},
		{"unknown", []string{"eviction"}, AdmitResult{}, `kubelet v1.36.3 chains no admit handler "eviction"`},
		{"out of order", []string{v1alpha1.AdmitHandlerPredicate, v1alpha1.AdmitHandlerSysctl}, AdmitResult{}, `kubelet v1.36.3 chains admit handler "sysctl" once and before "predicate"`},
		{"twice", []string{v1alpha1.AdmitHandlerPredicate, v1alpha1.AdmitHandlerPredicate}, AdmitResult{}, `kubelet v1.36.3 chains admit handler "predicate" once and before "predicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewChain("v1.36.3", steps, tt.names)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := h.Admit(AdmitAttributes{Pod: pod("p", 1)}); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("verdict %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestAdmitterVictimsOfARefusedPod checks that pods preempted for a pod a
// later handler refuses leave the active pods all the same.
func TestAdmitterVictimsOfARefusedPod(t *testing.T) {
	h, err := NewChain("v1.36.3", []NamedAdmitHandler{
		{Name: v1alpha1.AdmitHandlerPredicate, Admit: func(in AdmitAttributes) AdmitResult { return AdmitResult{Admit: true, Preempted: in.OtherPods} }},
		{Name: v1alpha1.AdmitHandlerPodFeatures, Admit: func(in AdmitAttributes) AdmitResult { return AdmitResult{Admit: in.Pod.Name != "critical-refused"} }},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAdmitter(h, nil)
	a.Add([]*v1.Pod{pod("a", 1)})
	got := a.Add([]*v1.Pod{pod("critical-refused", 2)})
	want := v1alpha1.Admission{Handler: v1alpha1.AdmitHandlerPodFeatures, Preempts: []v1alpha1.PodRef{{Name: "a", Namespace: "default", UID: "uid-a"}}}
	if !reflect.DeepEqual(got[0].Admission, want) {
		t.Errorf("admission %+v, want %+v", got[0].Admission, want)
	}
	if n := len(a.Active()); n != 0 {
		t.Errorf("%d active pods, want none", n)
	}
}
