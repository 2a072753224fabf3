// Package shell quotes the values of suggested commands for a POSIX shell,
// so that pasting a suggestion never runs what a node, an agent or the API
// server put in a name, a path or a URL.
package shell

import "strings"

// Quote makes s one word of a POSIX shell command: bare when every
// byte of it is safe there and it does not start with "-", else in single
// quotes, where each single quote of s ends the quoting, is escaped with a
// backslash and starts it again. A value that could be read as an option
// is quoted so that a reader sees it is one, not only the shell.
// Suggestions quote with it whatever the node, its agent or the API server
// gave them (paths, URLs, images, names, IDs): as a flag's value (which a
// command takes whole, a leading "-" too), a node's name in prose, and
// through Operands.
func Quote(s string) string {
	if s != "" && !strings.HasPrefix(s, "-") && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Operands returns the operands of a suggested command, the last words of
// it, each quoted by Quote; behind "--" when one of them starts with
// "-", so that the command reads none as an option.
func Operands(vals ...string) string {
	quoted := make([]string, len(vals))
	dash := false
	for i, v := range vals {
		quoted[i] = Quote(v)
		dash = dash || strings.HasPrefix(v, "-")
	}
	if dash {
		return "-- " + strings.Join(quoted, " ")
	}
	return strings.Join(quoted, " ")
}
