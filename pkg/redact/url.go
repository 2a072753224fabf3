package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Masked stands for a credential the agent neither serves nor logs.
const Masked = "xxxxx"

// MaskURL returns raw, a URL or a URL path, with its user info, its
// fragment and every query value (and every query parameter without a
// name) replaced by Masked; query names stay, in their order. An opaque
// URL (scheme:user:password@host/path, no "//") keeps only its scheme. A
// raw without any of them is returned as it is, and one that does not
// parse as a URL becomes Masked entirely.
func MaskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Masked
	}
	if u.Opaque != "" {
		return u.Scheme + ":" + Masked
	}
	if u.User == nil && u.RawQuery == "" && u.Fragment == "" {
		return raw
	}
	if u.User != nil {
		u.User = url.User(Masked)
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = Masked, ""
	}
	if u.RawQuery != "" {
		params := strings.Split(u.RawQuery, "&")
		for i, p := range params {
			if name, _, ok := strings.Cut(p, "="); ok {
				params[i] = name + "=" + Masked
			} else if p != "" {
				// A parameter without a name may be a token itself.
				params[i] = Masked
			}
		}
		u.RawQuery = strings.Join(params, "&")
	}
	return u.String()
}

// MaskEndpoint returns endpoint, a URL or, without a scheme, a
// [user info@]host:port (as an OpenTelemetry collector's endpoint is
// given), masked as MaskURL masks a URL: its user info and query values
// become Masked, its host and port stay.
func MaskEndpoint(endpoint string) string {
	if endpoint == "" || strings.Contains(endpoint, "://") {
		return MaskURL(endpoint)
	}
	// As the authority of a URL with no scheme, host:port parses as
	// host and port, not as a scheme and an opaque rest.
	return strings.TrimPrefix(MaskURL("//"+endpoint), "//")
}

// urlInText matches a URL with a scheme inside a message, up to the first
// space or quote, without the punctuation that ends a clause.
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*[^\s"'<>:,.;)]`)

// MaskURLs returns text with every URL in it masked as MaskURL masks it,
// for messages that may quote a URL with credentials (an HTTP client's
// error, a manifest's value in a decoding error).
func MaskURLs(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	return urlInText.ReplaceAllStringFunc(text, MaskURL)
}
