package admission

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestNewChain(t *testing.T) {
	victim := pod("victim", 0)
	admit := func(Input) Verdict { return Verdict{Admit: true} }
	steps := []Step{
		{Name: HandlerSysctl, Admit: admit},
		{Name: HandlerPredicate, Admit: func(Input) Verdict { return Verdict{Admit: true, Preempted: []*v1.Pod{victim}} }},
		{Name: HandlerPodFeatures, Admit: func(Input) Verdict { return Verdict{Reason: "PodFeatureUnsupported", Message: "no"} }},
	}
	tests := []struct {
		name    string
		names   []string
		want    Verdict
		wantErr string
	}{
		{"all", nil, Verdict{Reason: "PodFeatureUnsupported", Message: "no", Handler: HandlerPodFeatures, Preempted: []*v1.Pod{victim}}, ""},
		{"none", []string{}, Verdict{Admit: true}, ""},
		{"a subset", []string{HandlerSysctl, HandlerPredicate}, Verdict{Admit: true, Preempted: []*v1.Pod{victim}}, ""},
		{"unknown", []string{"eviction"}, Verdict{}, `kubelet v1.36.3 chains no admit handler "eviction"`},
		{"out of order", []string{HandlerPredicate, HandlerSysctl}, Verdict{}, `kubelet v1.36.3 chains admit handler "sysctl" once and before "predicate"`},
		{"twice", []string{HandlerPredicate, HandlerPredicate}, Verdict{}, `kubelet v1.36.3 chains admit handler "predicate" once and before "predicate"`},
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
			if got := h.Admit(Input{Pod: pod("p", 1)}); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("verdict %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestAdmitterVictimsOfARefusedPod checks that pods preempted for a pod a
// later handler refuses leave the active pods all the same.
func TestAdmitterVictimsOfARefusedPod(t *testing.T) {
	h, err := NewChain("v1.36.3", []Step{
		{Name: HandlerPredicate, Admit: func(in Input) Verdict { return Verdict{Admit: true, Preempted: in.Others} }},
		{Name: HandlerPodFeatures, Admit: func(in Input) Verdict { return Verdict{Admit: in.Pod.Name != "critical-refused"} }},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAdmitter(h, nil)
	a.Add([]*v1.Pod{pod("a", 1)})
	got := a.Add([]*v1.Pod{pod("critical-refused", 2)})
	want := v1alpha1.Admission{Handler: HandlerPodFeatures, Preempts: []v1alpha1.PodRef{{Name: "a", Namespace: "default", UID: "uid-a"}}}
	if !reflect.DeepEqual(got[0].Admission, want) {
		t.Errorf("admission %+v, want %+v", got[0].Admission, want)
	}
	if n := len(a.Active()); n != 0 {
		t.Errorf("%d active pods, want none", n)
	}
}
