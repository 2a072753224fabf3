// Package printers prints what kubectl podsrc shows the way kubectl get does:
// human-readable tables (with -o wide, --no-headers and, on a terminal,
// color), and -o json|yaml|jsonpath|go-template through the cli-runtime
// printers.
//
// What an agent sends reaches the terminal through one of three funnels,
// all built on EscapeControls: every table and watch cell (cellText), every
// line of free text such as errors, warnings and version (PrintLine), and
// NewEscapingWriter for JSON, YAML, templates and, as a backstop, the
// plugin's stderr.
package printers
