package apisource

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/podsrc/podsrc/pkg/source"
)

// agentClusterRole is where podsrc's deployment grants the API source its
// permissions.
const agentClusterRole = "the ClusterRole podsrc-agent that kubectl podsrc deploy creates grants it"

// explainAPIError wraps err, the failure of a list or watch (verb) of
// resource ("pods" or "nodes") for node at the API server host, with what
// the user has to fix.
func explainAPIError(err error, resource, verb, host, node string) error {
	switch {
	case apierrors.IsForbidden(err):
		what := "list/watch pods at cluster scope"
		if resource == "nodes" {
			what = "list/watch nodes at cluster scope (to wait for node " + node + " as the kubelet does)"
		}
		return fmt.Errorf("API server %s forbids the %s of %s for node %s: podsrc needs %s; %s: %w",
			host, verb, resource, node, what, agentClusterRole, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("API server %s rejects podsrc's credentials (%s of %s for node %s): check the user in --%s, or the service account token: %w",
			host, verb, resource, node, source.FlagKubeconfig, err)
	case isTLSError(err):
		return fmt.Errorf("API server %s: TLS verification failed (%s of %s for node %s): check its address and CA in --%s: %w",
			host, verb, resource, node, source.FlagKubeconfig, err)
	case isNetworkError(err):
		return fmt.Errorf("API server %s unreachable (%s of %s for node %s): is it up, and is its address right?: %w",
			host, verb, resource, node, err)
	}
	return fmt.Errorf("API server %s: %s of %s for node %s failed: %w", host, verb, resource, node, err)
}

// isTLSError reports whether err is a failed verification of the server's
// certificate.
func isTLSError(err error) bool {
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verification *tls.CertificateVerificationError
	return errors.As(err, &unknownAuthority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verification)
}

// isNetworkError reports whether err is a failure to reach the server (a
// refused or reset connection, a timeout, a name that does not resolve)
// rather than an answer from it.
func isNetworkError(err error) bool {
	var urlErr *url.Error
	var netErr net.Error
	var opErr *net.OpError
	var dnsErr *net.DNSError
	return errors.As(err, &urlErr) || errors.As(err, &netErr) || errors.As(err, &opErr) || errors.As(err, &dnsErr)
}
