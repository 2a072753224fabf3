package clidoc

import (
	"os"
	"strings"
)

// homeAsVariable writes the user's home directory in flag usages as $HOME:
// kubectl's --cache-dir defaults under it.
func homeAsVariable(usages string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return usages
	}
	return strings.ReplaceAll(usages, home+"/", "$HOME/")
}
