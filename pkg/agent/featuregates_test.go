package agent

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
)

// TestSetFeatureGates sets a kubelet's gates on a gate set that knows some
// of them: known gates take the kubelet's values, unknown ones are left
// out and reported, and a locked gate set against its lock is an error
// that names it and sets nothing.
func TestSetFeatureGates(t *testing.T) {
	const (
		beta   featuregate.Feature = "PreventStaticPodAPIReferences"
		alpha  featuregate.Feature = "SomeAlpha"
		locked featuregate.Feature = "SomeGA"
	)
	tests := []struct {
		name        string
		gates       map[string]bool
		wantBeta    bool
		wantAlpha   bool
		wantUnknown []string
		wantErr     string
	}{
		{name: "none", wantBeta: true},
		{name: "beta off, alpha on", gates: map[string]bool{"PreventStaticPodAPIReferences": false, "SomeAlpha": true}, wantAlpha: true},
		{
			name:        "unknown gates are left out",
			gates:       map[string]bool{"PreventStaticPodAPIReferences": false, "ZGate": true, "AGate": false},
			wantUnknown: []string{"AGate", "ZGate"},
		},
		{name: "a locked gate against its lock", gates: map[string]bool{"PreventStaticPodAPIReferences": false, "SomeGA": false}, wantBeta: true, wantErr: "SomeGA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fg := featuregate.NewFeatureGate()
			if err := fg.Add(map[featuregate.Feature]featuregate.FeatureSpec{
				beta:   {Default: true, PreRelease: featuregate.Beta},
				alpha:  {Default: false, PreRelease: featuregate.Alpha},
				locked: {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
			}); err != nil {
				t.Fatal(err)
			}
			unknown, err := setFeatureGates(fg, tt.gates)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one naming %s", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(unknown, tt.wantUnknown) {
				t.Errorf("unknown gates %v, want %v", unknown, tt.wantUnknown)
			}
			if fg.Enabled(beta) != tt.wantBeta || fg.Enabled(alpha) != tt.wantAlpha {
				t.Errorf("%s %v, %s %v; want %v, %v", beta, fg.Enabled(beta), alpha, fg.Enabled(alpha), tt.wantBeta, tt.wantAlpha)
			}
		})
	}
}
