package printers

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestPodsTableKubeletWords: STATUS shows the kubelet's reason for a
// rejected pod, as kubectl shows a pod's status.reason; -o wide's ERROR
// says why a pod's admission is unknown; NODE is a default column only
// for many nodes.
func TestPodsTableKubeletWords(t *testing.T) {
	lists := []v1alpha1.PodList{{NodeName: "node-1", Items: []v1alpha1.PodInfo{
		{Name: "hog", Namespace: "default", Source: "api", Containers: []string{"a"},
			Admission: &v1alpha1.Admission{Reason: "OutOfmemory", Message: "Node didn't have enough resource: memory"}},
		{Name: "late", Namespace: "default", Source: "api", Containers: []string{"a"},
			Admission: &v1alpha1.Admission{Unknown: "the agent started after the pod was admitted"}},
	}}}
	tests := []struct {
		name      string
		wide      bool
		manyNodes bool
		want      []string
		wantNot   []string
	}{
		{name: "default", want: []string{"NAMESPACE   NAME   READY   STATUS", "OutOfmemory", "SOURCE"}, wantNot: []string{"NODE", "Rejected", "admission unknown"}},
		{name: "many nodes", manyNodes: true, want: []string{"SOURCE   NODE", "node-1"}},
		{name: "wide", wide: true, want: []string{"admission unknown: the agent started after the pod was admitted", "rejected by the kubelet's admission: Node didn't have enough resource: memory"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewPrintFlags()
			f.List = true
			if tc.wide {
				*f.OutputFormat = "wide"
			}
			p, err := f.ToPrinter(&bytes.Buffer{}, &bytes.Buffer{}, func() time.Time { return now })
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := p.Print(Pods{Lists: lists, ManyNodes: tc.manyNodes}, &out); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("no %q in\n%s", w, out.String())
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(out.String(), w) {
					t.Errorf("%q in\n%s", w, out.String())
				}
			}
		})
	}
}

// TestPodDetailAdmission: the pod view shows the admission the agent holds
// now, with the kubelet's reason and message, or why it is unknown.
func TestPodDetailAdmission(t *testing.T) {
	tests := []struct {
		name      string
		admission *v1alpha1.Admission
		want      []string
	}{
		{"rejected", &v1alpha1.Admission{Reason: "NodePorts", Message: "Node didn't have free ports for the requested pod ports"},
			[]string{"Admission:", "rejected", "Reason:", "NodePorts", "Message:", "Node didn't have free ports"}},
		{"unknown", &v1alpha1.Admission{Unknown: "the agent started after the pod was admitted"},
			[]string{"Admission:", "unknown", "Message:", "the agent started after the pod was admitted"}},
		{"admitted", &v1alpha1.Admission{Admitted: true}, []string{"Admission:", "admitted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			d := PodDetail{Pod: v1alpha1.PodInfo{Name: "web", Namespace: "default", NodeName: "node-1", Admission: tc.admission}}
			if err := PrintPodDetail(&out, d, now); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("no %q in\n%s", w, out.String())
				}
			}
		})
	}
}

// TestCustomColumnsCompletion: -o completes custom-columns= from the
// table's column list: its default columns that have a path, then all.
func TestCustomColumnsCompletion(t *testing.T) {
	f := NewPrintFlags()
	f.List = true
	f.Columns = SourceColumns().Reference()
	got := f.customColumns()
	want := []string{
		"custom-columns=NODE:.nodeName,SOURCE:.metadata.name,TARGET:.target,SEEN:.seen,READY:.allSourcesSeen,PODS:.pods,LAST_UPDATE:.lastUpdate",
		"custom-columns=NODE:.nodeName,SOURCE:.metadata.name,TARGET:.target,SEEN:.seen,READY:.allSourcesSeen,PODS:.pods,LAST_UPDATE:.lastUpdate,UPDATES:.updates,LAST_ERROR:.lastError,JOURNAL:.journal.state",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("customColumns = %q, want %q", got, want)
	}
}
