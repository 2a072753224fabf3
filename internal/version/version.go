// Package version holds the build's version, set at link time with
// -ldflags "-X github.com/podsrc/podsrc/internal/version.Version=v0.1.0".
package version

// Version is the podsrc release the binary was built from.
var Version = "v0.0.0-dev"
