package merge

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestOpStringsAreTheWireOps checks that the ops' names are v1alpha1's, one
// to one: every Op the iota block declares names its v1alpha1 op, no two Ops
// share one, and every one of v1alpha1.ConfigOps is some Op's.
func TestOpStringsAreTheWireOps(t *testing.T) {
	want := map[Op]string{
		Set:       v1alpha1.OpSet,
		Add:       v1alpha1.OpAdd,
		Update:    v1alpha1.OpUpdate,
		Delete:    v1alpha1.OpDelete,
		Remove:    v1alpha1.OpRemove,
		Reconcile: v1alpha1.OpReconcile,
	}
	seen := map[string]Op{}
	// The declared Ops run from Set up to the first that has no name.
	for op := Set; op.String() != "UNKNOWN" && op < Set+64; op++ {
		got := op.String()
		if w, ok := want[op]; !ok {
			t.Errorf("Op(%d) %q is missing from this table", int(op), got)
		} else if got != w {
			t.Errorf("Op(%d).String() = %q, want %q", int(op), got, w)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("Op(%d) and Op(%d) are both %q", int(prev), int(op), got)
		}
		seen[got] = op
	}
	if len(seen) != len(want) {
		t.Errorf("%d named Ops, the table has %d", len(seen), len(want))
	}
	for _, w := range v1alpha1.ConfigOps {
		if _, ok := seen[w]; !ok {
			t.Errorf("v1alpha1 op %q is no Op's name", w)
		}
	}
	if len(seen) != len(v1alpha1.ConfigOps) {
		t.Errorf("%d Ops for %d v1alpha1.ConfigOps", len(seen), len(v1alpha1.ConfigOps))
	}
}
