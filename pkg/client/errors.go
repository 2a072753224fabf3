package client

import (
	"errors"
	"fmt"
)

// ErrorKind classifies the failures users hit when reaching an agent.
type ErrorKind string

// Kinds of Error.
const (
	// KindNodeNotFound: the API server has no such node.
	KindNodeNotFound ErrorKind = "NodeNotFound"
	// KindNoAgent: nothing answers on the agent's port, or no agent pod
	// runs on the node.
	KindNoAgent ErrorKind = "NoAgent"
	// KindForbidden: the user lacks a permission.
	KindForbidden ErrorKind = "Forbidden"
	// KindSkew: the agent speaks another API version.
	KindSkew ErrorKind = "Skew"
	// KindConnectionRefused: the address refused the connection.
	KindConnectionRefused ErrorKind = "ConnectionRefused"
	// KindTimeout: the request did not complete in time.
	KindTimeout ErrorKind = "Timeout"
	// KindNotFound: the agent has no such object (a pod UID).
	KindNotFound ErrorKind = "NotFound"
	// KindUnavailable: a transient failure (5xx, a dropped connection).
	KindUnavailable ErrorKind = "Unavailable"
	// KindUnauthorized: the API server rejected the credentials.
	KindUnauthorized ErrorKind = "Unauthorized"
	// KindBadRequest: the agent refused the request as it was asked (400),
	// for example a stream resuming after an event it never had.
	KindBadRequest ErrorKind = "BadRequest"
	// KindTooLarge: the agent's answer, or a message of its stream, is
	// larger than the client reads.
	KindTooLarge ErrorKind = "TooLarge"
	// KindOther is anything else.
	KindOther ErrorKind = "Other"
)

// Error is a failure to talk to one agent, phrased so that its message alone
// tells the user what to do.
type Error struct {
	Kind ErrorKind
	// Message is one line saying what went wrong and what to do.
	Message string
	// Err is the underlying error, if any.
	Err error
}

// Error returns the one-line message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// newError returns an Error of kind with a formatted message.
func newError(kind ErrorKind, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Err: cause}
}

// KindOf returns the kind of err, KindOther when it is not an *Error.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindOther
}

// IsPermanent reports whether retrying the request cannot help without the
// user changing something (permissions, node names, versions).
func IsPermanent(err error) bool {
	switch KindOf(err) {
	case KindNodeNotFound, KindForbidden, KindSkew, KindNotFound, KindUnauthorized, KindBadRequest, KindTooLarge:
		return true
	}
	return false
}
