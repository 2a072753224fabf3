// Package version holds the podsrc release a binary was built from.
package version

import "runtime/debug"

// Dev is the version of a build that says nothing about its release.
const Dev = "v0.0.0-dev"

// Version is the podsrc release the binary was built from: set at link time
// with -ldflags "-X github.com/podsrc/podsrc/internal/version.Version=v0.1.0"
// (make build, make dist, the image), or else, for a binary built by
// `go install github.com/podsrc/podsrc/cmd/kubectl-podsrc@v0.1.0`, the
// module version Go recorded in it.
var Version = Dev

func init() {
	Version = resolve(Version, debug.ReadBuildInfo)
}

// resolve returns injected when the linker set it, else the main module's
// version from the build information read returns, else Dev. Go records
// "(devel)" when it knows no version (go run, go test).
func resolve(injected string, read func() (*debug.BuildInfo, bool)) string {
	if injected != Dev {
		return injected
	}
	info, ok := read()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return Dev
	}
	return info.Main.Version
}
