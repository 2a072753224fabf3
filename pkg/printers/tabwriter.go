package printers

import "io"

// tabWriter is kubectl's tab writer (printers.GetNewTabWriter), which
// kubectl's printers recognize and write through.
type tabWriter interface {
	io.Writer
	Flush() error
}
