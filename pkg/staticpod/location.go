package staticpod

import (
	"fmt"
	"io"
	"strings"
)

// Location says where a static pod's manifest was read: the file or the
// URL, and the node. The kubelet hashes it after the pod into the generated
// UID, and names the pod after its node.
type Location struct {
	// Source is the file's path on the host, or the URL.
	Source string
	// File is true for the static pod path, false for the URL.
	File bool
	// NodeName is the node the kubelet runs on, as it was given.
	NodeName string
}

// WriteHash writes what the kubelet hashes after the pod itself: the node
// and the file's path for a file, the URL for a URL.
func (o Location) WriteHash(w io.Writer) {
	if o.File {
		fmt.Fprintf(w, "host:%s", o.NodeName)
		fmt.Fprintf(w, "file:%s", o.Source)
		return
	}
	fmt.Fprintf(w, "url:%s", o.Source)
}

// PodName returns the static pod's name: the manifest's name, a dash and
// the lower-cased node name.
func (o Location) PodName(name string) string {
	return name + "-" + strings.ToLower(o.NodeName)
}
