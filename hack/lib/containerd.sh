#!/usr/bin/env bash
# containerd.sh: starting, awaiting and tearing down a containerd of the test
# cluster: the kubelet's, and the standalone ones tests that drive CRI
# themselves get from hack/containerd.sh. Sourced by lib/cluster.sh;
# expects its settings, bin_paths run, and proc.sh and host.sh.

# write_containerd_config FILE ROOT STATE SOCKET
write_containerd_config() {
	cat >"$1" <<EOF
version = 3
root = "$2"
state = "$3"

[grpc]
  address = "$4"

[ttrpc]
  address = "$4.ttrpc"

[metrics]
  address = ""

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "$PAUSE_IMAGE"

[plugins.'io.containerd.cri.v1.runtime']
  enable_selinux = false
  disable_apparmor = true
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = "$CNI_CONF_DIR"
EOF
}

# start_containerd NAME DIR STATE SOCKET
start_containerd() {
	local name=$1 dir=$2 state=$3 sock=$4
	mkdir -p "$dir" "$state"
	write_containerd_config "$dir/config.toml" "$dir/root" "$state" "$sock"
	spawn "$name" "$LOG_DIR/$name.log" nsenter --net="$NETNS_PATH" \
		env PATH="$CTRD_BIN:/usr/local/bin:/usr/bin:/usr/sbin" \
		"$CTRD_BIN/containerd" --config "$dir/config.toml"
}

# wait_containerd NAME SOCKET: waits until containerd answers, then imports
# the local images into its k8s.io namespace.
wait_containerd() {
	local name=$1 sock=$2
	wait_until "containerd socket $sock" "$name" "$LOG_DIR/$name.log" \
		"$CTRD_BIN/ctr" --address "$sock" version
	local img
	for img in pause testimg; do
		"$CTRD_BIN/ctr" --address "$sock" -n k8s.io images import "$IMG_DIR/$img.tar" >>"$LOG_DIR/$name.log" 2>&1 ||
			die "importing $img image into $name; see $LOG_DIR/$name.log"
	done
}

# kill_shims ADDRESS: kills containerd shims serving the containerd at ADDRESS.
kill_shims() {
	local addr=$1 p
	for p in /proc/[0-9]*; do
		[[ "$(readlink "$p/exe" 2>/dev/null)" == */containerd-shim-runc-v2 ]] || continue
		if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "-address $addr "; then
			kill -KILL "${p#/proc/}" 2>/dev/null || true
		fi
	done
}

check_name() {
	[[ "$1" =~ ^[a-z0-9][a-z0-9-]{0,30}$ ]] || die "containerd name '$1': use [a-z0-9-], at most 31 characters"
}

standalone_paths() {
	SA_NAME=containerd-$1
	SA_DIR=$BASE_DIR/$SA_NAME
	SA_STATE=$RUN_DIR/$SA_NAME
	SA_SOCK=$SA_STATE/containerd.sock
}

print_standalone_env() {
	echo "CONTAINERD_NAME=$1"
	echo "CRI_ENDPOINT=unix://$SA_SOCK"
	echo "CONTAINERD_SOCKET=$SA_SOCK"
	echo "CONTAINERD_ROOT=$SA_DIR/root"
	echo "CONTAINERD_STATE=$SA_STATE"
	echo "CONTAINERD_LOG=$LOG_DIR/$SA_NAME.log"
	echo "CGROUP_PARENT=/$CRI_CGROUP_ROOT/$1"
	echo "CTR=$CTRD_BIN/ctr"
	echo "PAUSE_IMAGE=$PAUSE_IMAGE"
	echo "TEST_IMAGE=$TEST_IMAGE"
}

# stop_runtime NAME SOCKET CGROUP removes every pod of the containerd NAME
# serving SOCKET (through CRI, so that their mounts and network namespaces
# go too), stops it, and kills what is left of its containers: their shims
# and the processes in CGROUP.
stop_runtime() {
	local name=$1 sock=$2 cgroup=$3
	if running "$name"; then
		"$IMG_DIR/crireset" -endpoint "unix://$sock" -timeout 60s >&2 || log "crireset $name failed; killing what is left"
	fi
	stop "$name"
	kill_shims "$sock"
	kill_cgroup_procs "$cgroup"
}

containerd_teardown() {
	standalone_paths "$1"
	stop_runtime "$SA_NAME" "$SA_SOCK" "$CRI_CGROUP_ROOT/$1"
	unmount_under "$SA_DIR" "$SA_STATE"
	remove_cgroups "$CRI_CGROUP_ROOT/$1"
	rm -rf "$SA_DIR" "$SA_STATE"
}
