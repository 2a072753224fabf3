// Package redact keeps credentials and manifest content out of what the
// agent serves and logs: the projection of a pod that the agent serves by
// default (Pod), the kinds of API objects a pod refers to without their
// names (APIReferences), and URLs with their user info and query values
// masked (MaskURL, MaskURLs).
package redact
