package client

import (
	"errors"
	"fmt"
)

// Reason classifies the failures users hit when reaching an agent.
type Reason string

// Reasons of Error.
const (
	// ReasonNodeNotFound: the API server has no such node.
	ReasonNodeNotFound Reason = "NodeNotFound"
	// ReasonNoAgent: nothing answers on the agent's port, or no agent pod
	// runs on the node.
	ReasonNoAgent Reason = "NoAgent"
	// ReasonForbidden: the user lacks a permission.
	ReasonForbidden Reason = "Forbidden"
	// ReasonSkew: the agent speaks another API version.
	ReasonSkew Reason = "Skew"
	// ReasonConnectionRefused: the address refused the connection.
	ReasonConnectionRefused Reason = "ConnectionRefused"
	// ReasonTimeout: the request did not complete in time.
	ReasonTimeout Reason = "Timeout"
	// ReasonNotFound: the agent has no such object (a pod UID).
	ReasonNotFound Reason = "NotFound"
	// ReasonUnavailable: a transient failure (5xx, a dropped connection).
	ReasonUnavailable Reason = "Unavailable"
	// ReasonUnauthorized: the API server rejected the credentials.
	ReasonUnauthorized Reason = "Unauthorized"
	// ReasonBadRequest: the agent refused the request as it was asked (400),
	// for example a stream resuming after an event it never had.
	ReasonBadRequest Reason = "BadRequest"
	// ReasonTooLarge: the agent's answer, or a message of its stream, is
	// larger than the client reads.
	ReasonTooLarge Reason = "TooLarge"
	// ReasonOther is anything else.
	ReasonOther Reason = "Other"
)

// Error is a failure to talk to one agent, phrased so that its message alone
// tells the user what to do.
type Error struct {
	Reason Reason
	// Message is one line saying what went wrong and what to do.
	Message string
	// Err is the underlying error, if any.
	Err error
}

// Error returns the one-line message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// newError returns an Error of reason with a formatted message.
func newError(reason Reason, cause error, format string, args ...any) *Error {
	return &Error{Reason: reason, Message: fmt.Sprintf(format, args...), Err: cause}
}

// ReasonOf returns the reason of err, ReasonOther when it is not an *Error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ReasonOther
}

// IsPermanent reports whether retrying the request cannot help without the
// user changing something (permissions, node names, versions).
func IsPermanent(err error) bool {
	switch ReasonOf(err) {
	case ReasonNodeNotFound, ReasonForbidden, ReasonSkew, ReasonNotFound, ReasonUnauthorized, ReasonBadRequest, ReasonTooLarge:
		return true
	}
	return false
}
