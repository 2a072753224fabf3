// Package redact keeps credentials and manifest content out of what the
// agent serves and logs: the projection of a pod that the agent serves by
// default (Pod), the kinds of API objects a pod refers to without their
// names (APIReferences), URLs with their user info and query values masked
// (MaskURL, MaskURLs) and a command line with them (CommandLine), and the
// errors of decoding a manifest without what it holds (Errorf; Unredacted
// gives the kubelet's message back, for --expose-pod-specs).
package redact
