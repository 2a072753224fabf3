package merge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/tools/record"

	"github.com/podsrc/podsrc/internal/conformance"
)

// rawTrace holds each step's pods as the bytes the trace file has for them.
type rawTrace struct {
	Steps []struct {
		Pods []json.RawMessage `json:"pods"`
	} `json:"steps"`
}

// CheckFingerprintsNeverChangeTheOutput replays every trace twice, once
// without fingerprints and once with each pod's bytes in the trace as its
// fingerprint (identical bytes decode to identical pods, the promise a
// fingerprint makes), and requires the same notifications from both. of
// chooses each trace's semantics.
func CheckFingerprintsNeverChangeTheOutput(t *testing.T, of SemanticsOf) {
	files := conformance.Files(t, "merge")
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			plain := run(t, file, of, false)
			fast := run(t, file, of, true)
			if diff := cmp.Diff(plain, fast); diff != "" {
				t.Fatalf("fingerprints changed the output (-without +with):\n%s", diff)
			}
		})
	}
}

// run replays a trace and returns every step's notifications, normalized.
func run(t *testing.T, file string, of SemanticsOf, withFingerprints bool) [][]PodUpdate {
	t.Helper()
	tr := loadTrace(t, file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var raw rawTrace
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	mode, err := ParseMode(tr.Mode)
	if err != nil {
		t.Fatal(err)
	}
	cfg := New(Options{Mode: mode, Semantics: semanticsOf(t, of, tr.Kubelet), EventRecorder: record.NewFakeRecorder(100)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, s := range tr.Sources {
		cfg.Channel(ctx, s)
	}
	var out [][]PodUpdate
	for i, step := range tr.Steps {
		op, _ := parseOp(step.Op)
		u := PodUpdate{Op: op, Source: step.Source, Pods: step.Pods}
		if withFingerprints {
			for _, b := range raw.Steps[i].Pods {
				u.Fingerprints = append(u.Fingerprints, string(b))
			}
		}
		if err := cfg.store.merge(ctx, step.Source, u); err != nil {
			t.Fatal(err)
		}
		got := drain(cfg.Updates())
		for j := range got {
			got[j].Pods = normalize(got[j].Pods)
		}
		out = append(out, got)
	}
	return out
}
