#!/usr/bin/env bash
# host.sh: what the test cluster makes on the host besides its processes: the
# network namespace with its veth, bridge and routes, the CNI configuration,
# cgroup v1 hierarchies and mounts. Sourced by lib/cluster.sh, for
# hack/cluster.sh and hack/containerd.sh; expects its settings, and log and die
# (common.sh).

# require_host checks what the script takes from the host before it starts
# anything: the cgroup v1 hierarchies it makes, kills in and removes its
# cgroups from (create_cgroup, kill_cgroup_procs, remove_cgroups), and runc.
require_host() {
	[[ -d /sys/fs/cgroup/pids ]] ||
		die "needs the cgroup v1 hierarchies under /sys/fs/cgroup; this host has $(stat -fc %T /sys/fs/cgroup 2>/dev/null || echo none) there"
	command -v runc >/dev/null || die "no runc on PATH; run hack/install-deps.sh"
}

in_netns() { nsenter --net="$NETNS_PATH" "$@"; }

# kill_cgroup_procs DIR...: SIGKILLs every process in the cgroup v1 pids
# hierarchy under each named cgroup.
kill_cgroup_procs() {
	local d pid
	for d in "$@"; do
		[[ -d "/sys/fs/cgroup/pids/$d" ]] || continue
		while read -r pid; do
			if [[ -n "$pid" ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
		done < <(find "/sys/fs/cgroup/pids/$d" -name cgroup.procs -exec cat {} + 2>/dev/null)
	done
}

# remove_cgroups NAME...: removes /sys/fs/cgroup/*/NAME trees, deepest first.
remove_cgroups() {
	local name hier deadline
	for name in "$@"; do
		for hier in /sys/fs/cgroup/*/; do
			[[ -d "$hier$name" ]] || continue
			deadline=$((SECONDS + 10))
			until find "$hier$name" -depth -type d -exec rmdir {} + 2>/dev/null; do
				[[ -d "$hier$name" ]] || break
				((SECONDS < deadline)) || die "cannot remove cgroup $hier$name"
				sleep 0.2
			done
		done
	done
}

# create_cgroup NAME: creates /NAME in every cgroup v1 hierarchy.
create_cgroup() {
	local name=$1 hier
	for hier in /sys/fs/cgroup/*/; do
		mkdir -p "$hier$name"
	done
	if [[ -d /sys/fs/cgroup/cpuset/$name ]]; then
		cat /sys/fs/cgroup/cpuset/cpuset.cpus >"/sys/fs/cgroup/cpuset/$name/cpuset.cpus"
		cat /sys/fs/cgroup/cpuset/cpuset.mems >"/sys/fs/cgroup/cpuset/$name/cpuset.mems"
	fi
}

# unmount_under DIR...: unmounts everything mounted at or below each DIR.
unmount_under() {
	local d m
	for d in "$@"; do
		while read -r m; do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		done < <(awk -v d="$d" '$5 == d || index($5, d "/") == 1 {print $5}' /proc/self/mountinfo | sort -r)
	done
}

# shared_mount DIR makes DIR a shared mount point (a bind mount of itself),
# unless it is a mount point already. This host's / is private; on a systemd
# host it is shared, and mounts with HostToContainer propagation of a path
# need it shared (or slave).
shared_mount() {
	local dir=$1
	if ! mountpoint -q "$dir"; then
		mount --bind "$dir" "$dir"
		mount --make-rshared "$dir"
	fi
}

setup_netns() {
	if [[ ! -e "$NETNS_PATH" ]]; then
		ip netns add "$NETNS"
	fi
	in_netns ip link set lo up
	if ! ip link show "$VETH_HOST" >/dev/null 2>&1; then
		ip link add "$VETH_HOST" type veth peer name "$VETH_NODE" netns "$NETNS"
	fi
	ip addr replace "$CLIENT_IP/$NODE_PREFIX" dev "$VETH_HOST"
	ip link set "$VETH_HOST" up
	in_netns ip addr replace "$NODE_IP/$NODE_PREFIX" dev "$VETH_NODE"
	in_netns ip link set "$VETH_NODE" up
	if ! in_netns ip link show "$BRIDGE" >/dev/null 2>&1; then
		in_netns ip link add "$BRIDGE" type bridge
	fi
	in_netns ip addr replace "$POD_GATEWAY/${POD_SUBNET#*/}" dev "$BRIDGE"
	in_netns ip link set "$BRIDGE" up
	# Pod and service addresses exist only inside the namespace: from the
	# root namespace they must fail at once, never leave through the default
	# gateway.
	ip route replace unreachable "$POD_SUBNET"
	ip route replace unreachable "$SERVICE_SUBNET"
}

teardown_netns() {
	if [[ -e "$NETNS_PATH" ]]; then
		local pids
		pids=$(ip netns pids "$NETNS" 2>/dev/null || true)
		if [[ -n "$pids" ]]; then
			log "killing leftover processes in netns $NETNS: $(echo "$pids" | tr '\n' ' ')"
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null || true
			local p
			for p in $pids; do wait_gone "$p" 10 || true; done
		fi
		ip netns del "$NETNS"
	fi
	ip link del "$VETH_HOST" 2>/dev/null || true
	ip route del unreachable "$POD_SUBNET" 2>/dev/null || true
	ip route del unreachable "$SERVICE_SUBNET" 2>/dev/null || true
	ip route del unreachable "$SCALE_SUBNET" 2>/dev/null || true
}

write_cni_config() {
	mkdir -p "$CNI_CONF_DIR" "$CNI_IPAM_DIR"
	cat >"$CNI_CONF_DIR/10-podsrc.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "$CNI_NETWORK",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": false,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$CNI_IPAM_DIR",
        "ranges": [[{"subnet": "$POD_SUBNET", "gateway": "$POD_GATEWAY"}]],
        "routes": [{"dst": "0.0.0.0/0", "gw": "$POD_GATEWAY"}]
      }
    }
  ]
}
EOF
}
