#!/usr/bin/env bash
# node2.sh: the test cluster's second node, laid out unlike the first: its
# own network namespace linked to the first's, its own containerd and an
# older kubelet, RKE2-like paths, and its runtime's state under a private
# mount (as on hosts without systemd), not a shared one. Sourced by
# hack/cluster.sh; expects the settings of lib/cluster.sh, bin_paths run,
# and pki.sh and components.sh.

NODE2_BASE=$BASE_DIR/node2
NODE2_RUN=$RUN_DIR/node2
NODE2_IP=10.251.1.2
# The link between the two nodes' namespaces: LINK1 in the first, at
# LINK1_IP, LINK2 in the second, at NODE2_IP.
LINK1=podsrc-l1
LINK2=podsrc-l2
LINK1_IP=10.251.1.1
LINK_SUBNET=10.251.1.0/30
NODE2_POD_SUBNET=10.252.1.0/24

# The first node's, which the second routes to and copies images from.
NODE1_IP=$NODE_IP
NODE1_NETNS_PATH=$NETNS_PATH
NODE1_SUBNET=10.251.0.0/$NODE_PREFIX
NODE1_POD_SUBNET=$POD_SUBNET
NODE1_CRI_SOCKET=$CRI_SOCKET

in_node1() { nsenter --net="$NODE1_NETNS_PATH" "$@"; }

# use_node2 points the node settings of lib/cluster.sh at the second node,
# so that the first node's functions (write_kubelet_config, start_kubelet,
# start_containerd, write_cni_config, in_netns, node_usable) act on it. Call
# it in a subshell.
use_node2() {
	NODE_NAME=${PODSRC_NODE2_NAME:-podsrc-node-2}
	NODE_IP=$NODE2_IP
	NETNS=podsrc2
	NETNS_PATH=/run/netns/$NETNS
	BRIDGE=podsrc1
	POD_SUBNET=$NODE2_POD_SUBNET
	POD_GATEWAY=10.252.1.1
	CGROUP_ROOT=podsrc2
	CNI_NETWORK=podsrc-node2
	STATIC_POD_DIR=$NODE2_BASE/var/lib/rancher/rke2/agent/pod-manifests
	KUBELET_DIR=$NODE2_BASE/var/lib/kubelet
	POD_LOG_DIR=$NODE2_BASE/var/log/pods
	CNI_CONF_DIR=$NODE2_BASE/etc/cni/net.d
	CNI_IPAM_DIR=$NODE2_BASE/var/lib/cni
	KUBELET_CONFIG=$NODE2_BASE/etc/rancher/rke2/kubelet-config.yaml
	KUBELET_KUBECONFIG=$NODE2_BASE/etc/rancher/rke2/kubelet.kubeconfig
	KUBELET_LOG=$LOG_DIR/node2-kubelet.log
	KUBELET_CERT=kubelet2
	SYSCTL_DIR=$NODE2_BASE/sysctl
	KUBELET_NAME=node2-kubelet
	CONTAINERD_NAME=node2-containerd
	CONTAINERD_DIR=$NODE2_BASE/var/lib/rancher/rke2/agent/containerd
	CRI_STATE_DIR=$NODE2_RUN/k3s/containerd
	CRI_SOCKET=$CRI_STATE_DIR/containerd.sock
	KUBELET_BIN=$(kubelet_dir "$NODE2_KUBELET_VERSION")/kubelet
}

node2_running() { running node2-kubelet; }

# node2_env prints the second node's lines of the env file (hack/README.md).
node2_env() {
	(
		use_node2
		cat <<EOF
NODE2_NAME=$NODE_NAME
NODE2_IP=$NODE_IP
NODE2_NETNS_PATH=$NETNS_PATH
NODE2_POD_SUBNET=$POD_SUBNET
NODE2_STATIC_POD_DIR=$STATIC_POD_DIR
NODE2_CRI_ENDPOINT=unix://$CRI_SOCKET
NODE2_CONTAINERD_SOCKET=$CRI_SOCKET
NODE2_KUBELET_CONFIG=$KUBELET_CONFIG
NODE2_KUBELET_ROOT_DIR=$KUBELET_DIR
NODE2_KUBELET_LOG=$KUBELET_LOG
NODE2_KUBELET_VERSION=$NODE2_KUBELET_VERSION
NODE2_CGROUP_ROOT=/$CGROUP_ROOT
EOF
	)
}

# setup_node2_netns makes the second node's namespace, links it to the
# first's and routes each node's addresses and pod network to the other.
# Forwarding is turned on in the two namespaces only; the root namespace
# gets unreachable routes for the second node's addresses, as for the
# first's.
setup_node2_netns() {
	[[ -e "$NETNS_PATH" ]] || ip netns add "$NETNS"
	in_netns ip link set lo up
	if ! in_netns ip link show "$LINK2" >/dev/null 2>&1; then
		ip link add "$LINK2" netns "$NETNS" type veth peer name "$LINK1" netns "$NODE1_NETNS_PATH"
	fi
	in_node1 ip addr replace "$LINK1_IP/30" dev "$LINK1"
	in_node1 ip link set "$LINK1" up
	in_netns ip addr replace "$NODE_IP/30" dev "$LINK2"
	in_netns ip link set "$LINK2" up
	if ! in_netns ip link show "$BRIDGE" >/dev/null 2>&1; then
		in_netns ip link add "$BRIDGE" type bridge
	fi
	in_netns ip addr replace "$POD_GATEWAY/${POD_SUBNET#*/}" dev "$BRIDGE"
	in_netns ip link set "$BRIDGE" up
	in_netns ip route replace "$NODE1_SUBNET" via "$LINK1_IP"
	in_netns ip route replace "$NODE1_POD_SUBNET" via "$LINK1_IP"
	# From the first node, the second and its pods are reached from the
	# API server's address, the one address agents answer.
	in_node1 ip route replace "$NODE_IP/32" dev "$LINK1" src "$NODE1_IP"
	in_node1 ip route replace "$POD_SUBNET" via "$NODE_IP" src "$NODE1_IP"
	in_node1 sysctl -qw net.ipv4.ip_forward=1
	in_netns sysctl -qw net.ipv4.ip_forward=1
	ip route replace unreachable "$POD_SUBNET"
	ip route replace unreachable "$LINK_SUBNET"
}

teardown_node2_netns() {
	if [[ -e "$NETNS_PATH" ]]; then
		local pids p
		pids=$(ip netns pids "$NETNS" 2>/dev/null || true)
		if [[ -n "$pids" ]]; then
			log "killing leftover processes in netns $NETNS: $(echo "$pids" | tr '\n' ' ')"
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null || true
			for p in $pids; do wait_gone "$p" 10 || true; done
		fi
		ip netns del "$NETNS"
	fi
	if [[ -e "$NODE1_NETNS_PATH" ]]; then
		in_node1 ip link del "$LINK1" 2>/dev/null || true
		in_node1 ip route del "$POD_SUBNET" 2>/dev/null || true
		in_node1 sysctl -qw net.ipv4.ip_forward=0
	fi
	ip route del unreachable "$POD_SUBNET" 2>/dev/null || true
	ip route del unreachable "$LINK_SUBNET" 2>/dev/null || true
}

# copy_agent_images gives the second node's containerd the agent images the
# first holds (named as hack/image.sh names them), as a registry would serve
# both.
copy_agent_images() {
	local refs archive=$NODE2_RUN/agent-images.tar
	mapfile -t refs < <("$CTRD_BIN/ctr" --address "$NODE1_CRI_SOCKET" -n k8s.io images ls -q | grep "^${PODSRC_AGENT_IMAGE_NAME:-podsrc.local/podsrc-agent}:" || true)
	((${#refs[@]} > 0)) || return 0
	timeout 120 "$CTRD_BIN/ctr" --address "$NODE1_CRI_SOCKET" -n k8s.io images export "$archive" "${refs[@]}" ||
		die "exporting the agent images from the first node's containerd"
	timeout 120 "$CTRD_BIN/ctr" --address "$CRI_SOCKET" -n k8s.io images import "$archive" >>"$LOG_DIR/$CONTAINERD_NAME.log" 2>&1 ||
		die "importing the agent images into the second node's containerd; see $LOG_DIR/$CONTAINERD_NAME.log"
	rm -f "$archive"
}

# node2_start brings the second node up: it must not be running.
node2_start() {
	(
		use_node2
		mkdir -p "$NODE2_BASE" "$NODE2_RUN" "$(dirname "$KUBELET_CONFIG")"
		setup_node2_netns
		write_cni_config
		gen_cert "$KUBELET_CERT-client" "system:node:$NODE_NAME" system:nodes ""
		gen_cert "$KUBELET_CERT-server" "$NODE_NAME" "" "DNS:$NODE_NAME,IP:$NODE_IP,IP:127.0.0.1"
		write_kubeconfig "$KUBELET_KUBECONFIG" "https://$NODE1_IP:$API_PORT" "$KUBELET_CERT-client"
		write_kubelet_config
		create_cgroup "$CGROUP_ROOT"
		# No shared_mount: the runtime's state stays on the host's private
		# mount, where HostToContainer propagation is refused.
		mkdir -p "$CRI_STATE_DIR"
		start_containerd "$CONTAINERD_NAME" "$CONTAINERD_DIR" "$CRI_STATE_DIR" "$CRI_SOCKET"
		wait_containerd "$CONTAINERD_NAME" "$CRI_SOCKET"
		copy_agent_images
		start_kubelet
		wait_until "$KUBELET_NAME /healthz" "$KUBELET_NAME" "$KUBELET_LOG" kubelet_healthy
		wait_node_usable
		# The kubelet listens on every address of its namespace: its port
		# at the pod network's gateway answers only if routing works.
		in_node1 curl -sk --max-time 5 -o /dev/null "https://$POD_GATEWAY:10250/healthz" ||
			die "the first node does not reach the second node's pod network ($POD_GATEWAY)"
	)
}

# node2_teardown stops the second node and removes everything it made,
# except its logs and its Node object.
node2_teardown() {
	(
		use_node2
		stop "$KUBELET_NAME"
		stop_runtime "$CONTAINERD_NAME" "$CRI_SOCKET" "$CGROUP_ROOT"
		teardown_node2_netns
		unmount_under "$KUBELET_DIR" "$NODE2_BASE" "$NODE2_RUN"
		remove_cgroups "$CGROUP_ROOT"
		local l
		for l in /var/log/containers/*.log; do
			[[ -L "$l" ]] || continue
			[[ "$(readlink "$l")" == "$POD_LOG_DIR"/* ]] && rm -f "$l"
		done
		rm -f /var/lib/cni/results/"$CNI_NETWORK"-*
		rm -rf "$NODE2_BASE" "$NODE2_RUN"
	)
}
