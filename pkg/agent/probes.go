package agent

// DefaultProbePort is the port the DaemonSet has the kubelet probe the
// agent on (--probe-address): a listener of the probes' own, apart from the
// API's port.
const DefaultProbePort = 10272
