package servetest

import (
	"io"
	"net/http"
	"testing"
)

// Answer is an HTTP answer read whole, without its Date header.
type Answer struct {
	Code   int
	Header http.Header
	Body   []byte
}

// Do sends a request of method to url and reads its answer; a request
// that fails fails the test.
func Do(t testing.TB, method, url string) Answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Header.Del("Date")
	return Answer{Code: resp.StatusCode, Header: resp.Header, Body: body}
}
