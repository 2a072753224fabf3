// Package printers prints what kubectl podsrc shows the way kubectl get does:
// human-readable tables (with -o wide, --no-headers and, on a terminal,
// color), and -o json|yaml|jsonpath|go-template through the cli-runtime
// printers.
package printers
