package nodeenv

import (
	"os"
	"path/filepath"
)

// ReadPath returns where podsrc reads a host path when the host's file
// system is mounted at hostRoot ("" or "/" when podsrc runs on the host).
func ReadPath(hostRoot, hostPath string) string {
	if hostRoot == "" || hostRoot == string(os.PathSeparator) {
		return hostPath
	}
	return filepath.Join(hostRoot, hostPath)
}
