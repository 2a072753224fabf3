package cli

import "strconv"

// Exit statuses of kubectl podsrc why; every other failure of a command
// exits 1.
const (
	// ExitFailing says a stage of the pod's pipeline fails.
	ExitFailing = 2
	// ExitUnknown says no stage fails but some cannot be known.
	ExitUnknown = 3
)

// exitStatus ends a command with that exit status; what it had to say is
// printed already.
type exitStatus int

// Error implements error.
func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }
