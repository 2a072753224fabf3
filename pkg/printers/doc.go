// Package printers prints what kubectl podsrc shows the way kubectl get does,
// with kubectl get's print flags: human-readable tables (with -o wide,
// --no-headers, -L, --show-labels and, on a terminal, color), -o name and
// -o custom-columns, --sort-by, and -o json|yaml|jsonpath|go-template of
// one flat List whose items carry their node's name.
//
// What an agent sends reaches the terminal through one of three funnels,
// all built on EscapeControls: every table and watch cell (cellText), every
// line of free text such as errors, warnings and version (PrintLine), and
// NewEscapingWriter for JSON, YAML, templates and, as a backstop, the
// plugin's stderr.
package printers
