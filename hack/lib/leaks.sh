#!/usr/bin/env bash
# leaks.sh: the check that a torn-down cluster left nothing behind. Sourced
# by hack/cluster.sh; expects the settings of lib/cluster.sh, proc.sh's alive
# and node2.sh's use_node2.

# check_clean reports anything a cluster leaves behind: processes of its
# binaries, mounts, cgroups, the namespace, interfaces, routes, log links,
# CNI results, agent journals. It exits 1 if it finds any.
check_clean() {
	local found=0 p exe
	for p in /proc/[0-9]*; do
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		if [[ "$exe" == "$CACHE_DIR"/* ]] && alive "${p#/proc/}"; then
			log "left: process ${p#/proc/} $exe"
			found=1
		fi
	done
	if awk -v a="$BASE_DIR" -v b="$RUN_DIR" 'index($5, a) == 1 || index($5, b) == 1 {print "cluster: left: mount " $5; f=1} END {exit !f}' /proc/self/mountinfo >&2; then
		found=1
	fi
	for p in /sys/fs/cgroup/*/"$CGROUP_ROOT" /sys/fs/cgroup/*/"$CRI_CGROUP_ROOT" /sys/fs/cgroup/*/"$(use_node2 && echo "$CGROUP_ROOT")"; do
		[[ -e "$p" ]] && { log "left: cgroup $p"; found=1; }
	done
	for p in "$NETNS_PATH" "$(use_node2 && echo "$NETNS_PATH")"; do
		[[ -e "$p" ]] && { log "left: netns $p"; found=1; }
	done
	ip link show "$VETH_HOST" >/dev/null 2>&1 && { log "left: interface $VETH_HOST"; found=1; }
	if ip route show type unreachable | grep -qE "^unreachable (${POD_SUBNET}|${SERVICE_SUBNET}|${SCALE_SUBNET}|${NODE2_POD_SUBNET}|${LINK_SUBNET})"; then
		log "left: unreachable routes"
		found=1
	fi
	for p in /var/log/containers/*.log; do
		[[ -L "$p" && "$(readlink "$p")" == "$BASE_DIR"/* ]] && { log "left: link $p"; found=1; }
	done
	compgen -G "/var/lib/cni/results/podsrc-*" >/dev/null && { log "left: CNI results"; found=1; }
	[[ -d /run/containerd/s ]] && { log "left: /run/containerd/s"; found=1; }
	[[ -e "$RUN_DIR" || -e "$BASE_DIR" ]] && { log "left: $RUN_DIR or $BASE_DIR"; found=1; }
	# The journals of the nodes' agents, and one in the agent's default
	# directory (a test's agent run without a --journal-dir of its own).
	for p in "$JOURNAL_ROOT/$NODE_NAME" "$JOURNAL_ROOT/${PODSRC_NODE2_NAME:-podsrc-node-2}" "$JOURNAL_ROOT/journal.db"; do
		[[ -e "$p" ]] && { log "left: agent journal $p"; found=1; }
	done
	if ((found)); then
		die "the cluster left things behind"
	fi
	log "nothing left behind"
}
