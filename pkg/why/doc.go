// Package why explains why a pod does not run on a node as configured. It
// walks the kubelet's pipeline for one pod (for a static pod: its file,
// decoding, shadowing, the merged configuration, the mirror pod, the
// sandbox and the containers; for a pod of the API server: its binding,
// the API source, the merged configuration and the runtime) and gives each
// stage a verdict from facts gathered beforehand: what the podsrc agent
// holds and what the API server says. Analyze is a pure function of those
// facts; gathering them is the plugin's job.
package why
