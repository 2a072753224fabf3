package cri

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// ParseEndpoint returns the socket path of a CRI endpoint given as
// "unix:///path/to/socket" or as a plain absolute path. Other schemes (tcp,
// npipe) are rejected: podsrc only talks to a runtime on the local node.
func ParseEndpoint(endpoint string) (string, error) {
	if endpoint == "" {
		return "", fmt.Errorf("empty runtime endpoint")
	}
	if strings.HasPrefix(endpoint, "/") {
		return filepath.Clean(endpoint), nil
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("parsing runtime endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "unix" {
		return "", fmt.Errorf("runtime endpoint %q: unsupported scheme %q, want unix:///path or /path", endpoint, u.Scheme)
	}
	path := u.Path
	if u.Host != "" {
		// unix://relative/path is not a socket path the kubelet accepts either.
		return "", fmt.Errorf("runtime endpoint %q: want an absolute socket path (unix:///path)", endpoint)
	}
	if path == "" || !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("runtime endpoint %q: missing absolute socket path", endpoint)
	}
	return filepath.Clean(path), nil
}
