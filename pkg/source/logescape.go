package source

import (
	"errors"
	"strconv"
)

// escaped returns s, a file name as the log shows it, with newlines,
// control characters and bytes that are not UTF-8 written as Go escapes
// (\n, \x1b, ...), so that a file's name can neither forge a log line nor
// steer the terminal that shows the log.
func escaped(s string) string {
	q := strconv.Quote(s)
	q = q[1 : len(q)-1]
	if len(q) == len(s) {
		return s
	}
	return q
}

// escapedErr returns err with its message escaped as escaped does, for a
// log line; nil for nil.
func escapedErr(err error) error {
	if err == nil {
		return nil
	}
	if msg := escaped(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}
