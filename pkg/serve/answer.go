package serve

import (
	"encoding/json"
	"net/http"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// WriteJSON writes v as the answer.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// WriteError writes a Status.
func WriteError(w http.ResponseWriter, code int, msg string) {
	WriteJSON(w, code, errorStatus(code, msg))
}

// errorStatus is the Status of an error answer.
func errorStatus(code int, msg string) v1alpha1.Status {
	return v1alpha1.Status{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindStatus), Code: code, Message: msg}
}

// statusJSON returns a Status as WriteError encodes it.
func statusJSON(code int, msg string) []byte {
	b, _ := json.MarshalIndent(errorStatus(code, msg), "", "  ")
	return append(b, '\n')
}
