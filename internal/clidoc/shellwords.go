package clidoc

import "strings"

// ShellWords splits a line of shell into words, quotes removed, and stops
// at the end of its first command: a pipe, a redirection, a list operator
// or a comment.
func ShellWords(line string) []string {
	var words []string
	var word strings.Builder
	inWord := false
	quote := rune(0)
	flush := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote = r
			inWord = true
		case r == ' ' || r == '\t':
			flush()
		case !inWord && strings.ContainsRune("|;&>)#", r):
			return words
		case r == ';' || r == ')':
			flush()
			return words
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words
}
