package cri

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// IsNotFound reports whether err is the runtime saying that the sandbox or
// container does not exist (any more). The kubelet treats that answer to a
// status call as "removed since the list" and skips the object.
func IsNotFound(err error) bool {
	if err == nil {
		return false
	}
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		return se.GRPCStatus().Code() == codes.NotFound
	}
	return false
}
