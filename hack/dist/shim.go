package main

import "strings"

// completionShim is the executable kubectl (1.26 and later) runs to
// complete kubectl podsrc <TAB>: kubectl_complete-<plugin> on the PATH,
// given the words after the plugin's name.
const completionShim = "kubectl_complete-podsrc"

// shim returns the completion shim of goos: a shell script, or on Windows
// a .cmd file, which exec.LookPath finds through PATHEXT as kubectl looks
// it up. Both hand the words to the plugin's own completion, __complete.
func shim(goos string) archived {
	if goos == "windows" {
		text := strings.Join([]string{
			"@echo off",
			"rem kubectl runs this to complete kubectl podsrc <TAB>: keep it on the PATH next to kubectl-podsrc.exe.",
			"kubectl-podsrc.exe __complete %*",
			"",
		}, "\r\n")
		return archived{name: completionShim + ".cmd", mode: 0o755, data: []byte(text)}
	}
	text := `#!/bin/sh
# kubectl runs this to complete kubectl podsrc <TAB>: keep it on the PATH
# next to kubectl-podsrc.
exec kubectl-podsrc __complete "$@"
`
	return archived{name: completionShim, mode: 0o755, data: []byte(text)}
}
