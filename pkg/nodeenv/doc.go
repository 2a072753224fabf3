// Package nodeenv is the environment of the node the agent runs on, as the
// kubelet there has it: the kubelet's configuration file, the node's name
// (--node-name, then $NODE_NAME, then the lower-cased hostname) and where
// the host's file system is mounted, under which every host path is read
// (ReadPath). The pod sources take their settings from its kubelet
// configuration, the PLEG its runtime endpoint.
package nodeenv
