// Package archive writes and reads the portable archive of one node that
// kubectl podsrc record makes (v1alpha1.ArchiveManifest describes its
// members), and serves one back as the agent's own API (Serve), so that
// the plugin reads it as it reads a live agent.
//
// The format is a gzip-compressed tar file, written and read with the
// standard library's archive/tar and compress/gzip: every system has tools
// that open it (tar -tzf lists it), it needs no dependency, and both
// packages are kept with the Go toolchain. An archive is a colleague's
// file, untrusted: Read bounds what it decompresses and checks every
// member against the manifest before it decodes any.
package archive
