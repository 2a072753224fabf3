package source

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// manifestFingerprint returns the fingerprint (see merge.PodUpdate) of the
// pods one manifest decodes to. What determines a static pod is the
// manifest's bytes, where they were read (the host path or the URL, which
// enter the pod's UID and name), the node name and the decoder, which is the
// same for the life of a source; the first three are hashed with SHA-256.
// The result is the raw digest: compared, never shown.
func manifestFingerprint(origin, nodeName string, data []byte) string {
	h := sha256.New()
	var n [8]byte
	for _, s := range []string{origin, nodeName} {
		// Each length goes first, so that no two (origin, node) pairs feed
		// the hash the same bytes.
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	h.Write(data)
	return string(h.Sum(nil))
}

// bodyFingerprints returns the fingerprints of the pods of one URL body:
// the body's fingerprint and each pod's place in it.
func bodyFingerprints(url, nodeName string, data []byte, pods int) []string {
	body := manifestFingerprint(url, nodeName, data)
	out := make([]string, pods)
	for i := range out {
		out[i] = body + strconv.Itoa(i)
	}
	return out
}
