package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/memsize"
)

// errSpent ends the decoding of an answer whose items do not fit in the
// command's budget.
var errSpent = errors.New("past the budget")

// decodeHeld decodes body, the JSON answer of path, into out and charges
// the command's budget what out then holds. The items of a list are
// charged one at a time as they are decoded, so that a list past the
// budget fails at its first item that does not fit rather than once all
// are decoded; on failure nothing stays charged.
func (a *Agent) decodeHeld(path string, body []byte, out any) error {
	var held int64
	take := func(n int64) bool {
		if !a.hold(n) {
			return false
		}
		held += n
		return true
	}
	var err error
	switch out := out.(type) {
	case *v1alpha1.PodList:
		err = json.Unmarshal(body, &struct {
			*v1alpha1.PodList
			Items *heldItems[v1alpha1.PodInfo] `json:"items"`
		}{out, &heldItems[v1alpha1.PodInfo]{items: &out.Items, take: take}})
	case *v1alpha1.SourceList:
		err = json.Unmarshal(body, &struct {
			*v1alpha1.SourceList
			Items *heldItems[v1alpha1.Source] `json:"items"`
		}{out, &heldItems[v1alpha1.Source]{items: &out.Items, take: take}})
	default:
		err = json.Unmarshal(body, out)
	}
	// The rest: what is not an item, and the slack of the items' array.
	if err == nil && !take(memsize.Of(out)-held) {
		err = errSpent
	}
	if err != nil {
		a.unhold(held)
	}
	switch {
	case errors.Is(err, errSpent):
		return a.budget.spentError(a, "the answer of "+path)
	case err != nil:
		return newError(ReasonOther, err, "decoding the answer of %s from %s: %v", path, a, err)
	}
	return nil
}

// heldItems decodes the items of a list one at a time into items, each
// charged (take) before the next is decoded.
type heldItems[T any] struct {
	items *[]T
	take  func(n int64) bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (h *heldItems[T]) UnmarshalJSON(b []byte) error {
	// As encoding/json does, a repeated key replaces the items; those
	// decoded before stay charged until the answer is let go.
	*h.items = nil
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("items: want an array")
	}
	for dec.More() {
		var item T
		if err := dec.Decode(&item); err != nil {
			return fmt.Errorf("item %d: %w", len(*h.items), err)
		}
		if !h.take(memsize.Of(&item)) {
			return errSpent
		}
		*h.items = append(*h.items, item)
	}
	return nil
}
