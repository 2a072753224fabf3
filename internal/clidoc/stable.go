package clidoc

import (
	"os"
	"strings"

	"github.com/podsrc/podsrc/internal/version"
)

// stable writes what flag usages take from the machine or the build in
// words that are the same everywhere: the user's home directory as $HOME
// (kubectl's --cache-dir defaults under it) and this build's version as
// <version> (deploy's --image defaults to the image of the plugin's).
func stable(usages string) string {
	usages = strings.ReplaceAll(usages, ":"+version.Version, ":<version>")
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return usages
	}
	return strings.ReplaceAll(usages, home+"/", "$HOME/")
}
