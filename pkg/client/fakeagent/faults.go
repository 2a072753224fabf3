package fakeagent

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve"
)

// Fault makes every answer of the agent but its health endpoints
// misbehave, for tests of the client's bounds and error messages.
type Fault string

// Faults.
const (
	// NoFault serves the agent's state.
	NoFault Fault = ""
	// FaultStall sends the headers and the start of an answer, then
	// nothing until the client hangs up.
	FaultStall Fault = "stall"
	// FaultEndless sends an answer that never ends: a JSON document whose
	// list goes on, or on the stream a line that does.
	FaultEndless Fault = "endless"
	// FaultEndlessLine serves every path as usual but the event stream,
	// which sends a line that never ends.
	FaultEndlessLine Fault = "endless-line"
	// FaultMute serves every path as usual but the event stream, which
	// sends its opening messages and then nothing, not even heartbeats,
	// until the client hangs up: a node that hangs mid-stream.
	FaultMute Fault = "mute"
	// FaultStatus answers 500 with a v1alpha1.Status whose message is
	// Payload.
	FaultStatus Fault = "status"
	// FaultText answers 502 with Payload as plain text, and a byte that is
	// not UTF-8, as a broken proxy might.
	FaultText Fault = "text"
)

// serveFault answers r as the fault f says.
func serveFault(f Fault, w http.ResponseWriter, r *http.Request) {
	flusher, _ := w.(http.Flusher)
	stream := r.URL.Path == v1alpha1.EventsPath
	switch f {
	case FaultStall:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"type":`))
		flusher.Flush()
		<-r.Context().Done()
	case FaultEndless, FaultEndlessLine:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		head, chunk := `{"apiVersion":"podsrc.io/v1alpha1","kind":"PodList","items":[`, `{"name":"x"},`
		if stream {
			head, chunk = `{"type":"event","event":{"podName":"`, "x"
		}
		w.Write([]byte(head))
		block := bytes.Repeat([]byte(chunk), 64<<10/len(chunk))
		// Until the client hangs up: writing then fails.
		for r.Context().Err() == nil {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	case FaultStatus:
		serve.WriteError(w, http.StatusInternalServerError, Payload)
	case FaultText:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte(strings.Repeat(Payload+"\x9b[2J ", 2)))
	}
}
