package why

import "strings"

// shellQuote makes s one word of a POSIX shell command: bare when every
// byte of it is safe there, else in single quotes, where each single quote
// of s ends the quoting, is escaped with a backslash and starts it again.
// Suggestions quote with it whatever the node, its agent or the API server
// gave them (paths, URLs, images, names, IDs).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
