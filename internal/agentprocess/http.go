package agentprocess

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// Await polls cond until it holds, failing the test after WaitLimit.
func Await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, WaitLimit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Serving reports whether the agent at base answers /healthz.
func Serving(base string) bool {
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// GetJSON decodes the JSON answer of a GET of url into v, failing on any
// status but 200.
func GetJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
