#!/usr/bin/env bash
# cluster.sh builds, starts and tears down podsrc's single-node test cluster:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and
# containerd, all inside one network namespace, on the machine it runs on.
# See hack/README.md. Run as root.
#
#   hack/cluster.sh build                    build binaries and images (cached)
#   hack/cluster.sh up                       start, or reuse a healthy cluster
#   hack/cluster.sh down                     stop everything, leave nothing behind
#   hack/cluster.sh status                   print the env file; exit 1 if not healthy
#   hack/cluster.sh env                      print the env file of a running cluster
#   hack/cluster.sh restart-kubelet          restart the kubelet, wait for Ready
#   hack/cluster.sh restart-kubelet VERSION  restart it as kubelet VERSION (v1.34.4; built on
#                                            first use), until the next restart-kubelet
#   hack/cluster.sh restart-containerd       restart the kubelet's containerd
#   hack/cluster.sh restart-apiserver        restart kube-apiserver, wait for /readyz
#   hack/cluster.sh containerd-up NAME       start a standalone containerd
#   hack/cluster.sh containerd-restart NAME  restart it (containers keep running)
#   hack/cluster.sh containerd-down NAME     stop it and remove everything it made
#   hack/cluster.sh check-clean              exit 1 if anything of a cluster is left
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_DIR=${PODSRC_CACHE:-/var/cache/podsrc}
BASE_DIR=${PODSRC_CLUSTER_DIR:-/var/lib/podsrc-cluster}
RUN_DIR=${PODSRC_RUN_DIR:-/run/podsrc-cluster}
LOG_DIR=${PODSRC_LOG_DIR:-/var/log/podsrc-cluster}
LOCK_FILE=${RUN_DIR}.lock
ENV_FILE=$RUN_DIR/env
PID_DIR=$RUN_DIR/pids

NODE_NAME=${PODSRC_NODE_NAME:-podsrc-node}
NETNS=podsrc
NETNS_PATH=/run/netns/$NETNS
VETH_HOST=podsrc-h
VETH_NODE=podsrc-n
CLIENT_IP=10.251.0.1
NODE_IP=10.251.0.2
NODE_PREFIX=30
BRIDGE=podsrc0
POD_SUBNET=10.252.0.0/24
POD_GATEWAY=10.252.0.1
SERVICE_SUBNET=10.253.0.0/24
SERVICE_IP=10.253.0.1
# test/bench/scale's simulated nodes: addresses on its own interface in the
# namespace, an unreachable route in the root one while it runs.
SCALE_SUBNET=10.254.0.0/22
API_PORT=6443
CGROUP_ROOT=podsrc
CRI_CGROUP_ROOT=podsrc-cri

PAUSE_IMAGE=podsrc.local/pause:v1
TEST_IMAGE=podsrc.local/testimg:v1

# Time limits, in seconds, for each wait.
WAIT_START=${PODSRC_WAIT_START:-60}
WAIT_STOP=${PODSRC_WAIT_STOP:-15}

PKI=$BASE_DIR/pki
STATIC_POD_DIR=$BASE_DIR/manifests
KUBELET_DIR=$BASE_DIR/kubelet
POD_LOG_DIR=$BASE_DIR/pod-logs
CNI_CONF_DIR=$BASE_DIR/cni/net.d
CNI_IPAM_DIR=$BASE_DIR/cni/ipam
KUBECONFIG_ADMIN=$BASE_DIR/admin.kubeconfig
KUBELET_CONFIG=$BASE_DIR/kubelet-config.yaml
KUBELET_LOG=$LOG_DIR/kubelet.log

# shellcheck source=hack/lib/build.sh
source "$HACK_DIR/lib/build.sh"

log() { echo "cluster: $*" >&2; }
die() {
	echo "cluster: error: $*" >&2
	exit 1
}

require_root() {
	((EUID == 0)) || die "must run as root (it creates a network namespace, mounts and cgroups)"
}

# require_host checks what the script takes from the host before it starts
# anything: the cgroup v1 hierarchies it makes, kills in and removes its
# cgroups from (create_cgroup, kill_cgroup_procs, remove_cgroups), and runc.
require_host() {
	[[ -d /sys/fs/cgroup/pids ]] ||
		die "needs the cgroup v1 hierarchies under /sys/fs/cgroup; this host has $(stat -fc %T /sys/fs/cgroup 2>/dev/null || echo none) there"
	command -v runc >/dev/null || die "no runc on PATH; run hack/install-deps.sh"
}

# lock takes the cluster lock, so concurrent callers run one at a time.
lock() {
	mkdir -p "$(dirname "$LOCK_FILE")"
	exec {lock_fd}>"$LOCK_FILE"
	flock -w 900 "$lock_fd" || die "timed out waiting for $LOCK_FILE"
}

bin_paths() {
	K8S_BIN=$(k8s_dir)
	ETCD_BIN=$(etcd_dir)
	CTRD_BIN=$(containerd_dir)
	IMG_DIR=$(images_dir)
	KUBECTL=$K8S_BIN/kubectl
	KUBELET_BIN=$K8S_BIN/kubelet
}

# ---------------------------------------------------------------------------
# Processes

# proc_state PID prints the process state letter, or nothing if it is gone.
proc_state() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	echo "${stat%% *}"
}

# proc_start_time PID prints the process start time in clock ticks.
proc_start_time() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	awk '{print $20}' <<<"$stat"
}

# alive PID: true if the process exists and is not a zombie.
alive() {
	local s
	s=$(proc_state "$1")
	[[ -n "$s" && "$s" != Z && "$s" != X ]]
}

# spawn NAME LOG CMD...: starts CMD in its own session with output appended
# to LOG, and records "PID STARTTIME" in the pid file of NAME.
spawn() {
	local name=$1 logfile=$2
	shift 2
	mkdir -p "$PID_DIR" "$(dirname "$logfile")"
	echo "=== $(date -Is) starting: $*" >>"$logfile"
	# The daemon must inherit no descriptor but its standard ones: neither
	# this script's lock nor a caller's (flock LOCKFILE hack/cluster.sh up
	# passes its lock on), or it would hold that lock for as long as it
	# runs.
	(
		for fd in /proc/"$BASHPID"/fd/*; do
			fd=${fd##*/}
			((fd > 2)) && eval "exec $fd>&-"
		done
		exec setsid "$@" >>"$logfile" 2>&1 </dev/null
	) &
	local pid=$!
	echo "$pid $(proc_start_time "$pid")" >"$PID_DIR/$name.pid"
}

# pid_of NAME prints the PID of a running component started by spawn, or
# nothing if it is not running (or the PID now belongs to another process).
pid_of() {
	local f=$PID_DIR/$1.pid pid start
	[[ -f "$f" ]] || return 0
	read -r pid start <"$f" || return 0
	if alive "$pid" && [[ "$(proc_start_time "$pid")" == "$start" ]]; then
		echo "$pid"
	fi
}

running() { [[ -n "$(pid_of "$1")" ]]; }

# wait_gone PID TIMEOUT: waits until the process is gone or a zombie.
wait_gone() {
	local pid=$1 deadline=$((SECONDS + $2))
	while alive "$pid"; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

# stop NAME: SIGTERM, then SIGKILL after WAIT_STOP seconds.
stop() {
	local name=$1 pid
	pid=$(pid_of "$name")
	if [[ -n "$pid" ]]; then
		kill -TERM "$pid" 2>/dev/null || true
		if ! wait_gone "$pid" "$WAIT_STOP"; then
			log "$name (pid $pid) ignored SIGTERM for ${WAIT_STOP}s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
			wait_gone "$pid" 10 || die "$name (pid $pid) does not die"
		fi
	fi
	rm -f "$PID_DIR/$name.pid"
}

# wait_until WHAT NAME LOGFILE CMD...: polls CMD until it succeeds, failing
# with a message naming the component and its log when the component exits
# or WAIT_START seconds pass.
wait_until() {
	local what=$1 name=$2 logfile=$3
	shift 3
	local deadline=$((SECONDS + WAIT_START))
	until "$@" >/dev/null 2>&1; do
		if [[ -n "$name" ]] && ! running "$name"; then
			tail -n 20 "$logfile" >&2 || true
			die "$name exited while waiting for $what; see $logfile"
		fi
		if ((SECONDS >= deadline)); then
			tail -n 20 "$logfile" >&2 || true
			die "timed out after ${WAIT_START}s waiting for $what; see $logfile"
		fi
		sleep 0.2
	done
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

# ---------------------------------------------------------------------------
# Network

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
  "name": "podsrc",
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

# ---------------------------------------------------------------------------
# Certificates and kubeconfigs

# gen_cert NAME CN ORG SANS: a key and a certificate signed by the cluster CA,
# valid for server and client use.
gen_cert() {
	local name=$1 cn=$2 org=$3 sans=$4 subj
	subj="/CN=$cn"
	[[ -n "$org" ]] && subj="/O=$org$subj"
	openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$PKI/$name.key" -out "$PKI/$name.csr" -subj "$subj" 2>/dev/null
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		echo "extendedKeyUsage=serverAuth,clientAuth"
		[[ -n "$sans" ]] && echo "subjectAltName=$sans"
	} >"$PKI/$name.ext"
	openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" \
		-set_serial "0x$(openssl rand -hex 8)" -days 3650 -extfile "$PKI/$name.ext" \
		-out "$PKI/$name.crt" 2>/dev/null
	rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}

gen_pki() {
	rm -rf "$PKI"
	mkdir -p "$PKI"
	chmod 700 "$PKI"
	openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 3650 -subj "/CN=podsrc-ca" 2>/dev/null
	gen_cert apiserver kube-apiserver "" \
		"DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:$NODE_IP,IP:$POD_GATEWAY,IP:$SERVICE_IP"
	gen_cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters ""
	gen_cert admin podsrc-admin system:masters ""
	gen_cert controller-manager system:kube-controller-manager "" ""
	gen_cert scheduler system:kube-scheduler "" ""
	gen_cert kubelet-client "system:node:$NODE_NAME" system:nodes ""
	gen_cert kubelet-server "$NODE_NAME" "" "DNS:$NODE_NAME,IP:$NODE_IP,IP:127.0.0.1"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$PKI/sa.key" 2>/dev/null
	openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
}

# write_kubeconfig FILE SERVER CERTNAME
write_kubeconfig() {
	cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: podsrc
  cluster:
    server: $2
    certificate-authority: $PKI/ca.crt
users:
- name: $3
  user:
    client-certificate: $PKI/$3.crt
    client-key: $PKI/$3.key
contexts:
- name: podsrc
  context:
    cluster: podsrc
    user: $3
current-context: podsrc
EOF
}

# ---------------------------------------------------------------------------
# Components

start_etcd() {
	rm -rf "$BASE_DIR/etcd"
	spawn etcd "$LOG_DIR/etcd.log" nsenter --net="$NETNS_PATH" "$ETCD_BIN/etcd" \
		--name=podsrc --data-dir="$BASE_DIR/etcd" \
		--listen-client-urls=http://127.0.0.1:2379 --advertise-client-urls=http://127.0.0.1:2379 \
		--listen-peer-urls=http://127.0.0.1:2380 --initial-advertise-peer-urls=http://127.0.0.1:2380 \
		--initial-cluster=podsrc=http://127.0.0.1:2380 --unsafe-no-fsync --log-level=warn
}

start_apiserver() {
	spawn kube-apiserver "$LOG_DIR/kube-apiserver.log" nsenter --net="$NETNS_PATH" "$K8S_BIN/kube-apiserver" \
		--etcd-servers=http://127.0.0.1:2379 \
		--bind-address=0.0.0.0 --secure-port="$API_PORT" \
		--advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
		--service-cluster-ip-range="$SERVICE_SUBNET" \
		--cert-dir="$BASE_DIR/apiserver" \
		--client-ca-file="$PKI/ca.crt" \
		--tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
		--kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" \
		--kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
		--kubelet-certificate-authority="$PKI/ca.crt" \
		--kubelet-preferred-address-types=InternalIP,Hostname \
		--authorization-mode=Node,RBAC \
		--enable-admission-plugins=NodeRestriction \
		--allow-privileged=true \
		--service-account-key-file="$PKI/sa.pub" \
		--service-account-signing-key-file="$PKI/sa.key" \
		--service-account-issuer=https://kubernetes.default.svc \
		--profiling=false
}

start_controller_manager() {
	spawn kube-controller-manager "$LOG_DIR/kube-controller-manager.log" nsenter --net="$NETNS_PATH" \
		"$K8S_BIN/kube-controller-manager" \
		--kubeconfig="$BASE_DIR/controller-manager.kubeconfig" \
		--authentication-kubeconfig="$BASE_DIR/controller-manager.kubeconfig" \
		--authorization-kubeconfig="$BASE_DIR/controller-manager.kubeconfig" \
		--bind-address=127.0.0.1 --secure-port=10257 \
		--leader-elect=false --use-service-account-credentials \
		--service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
		--cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
		--kube-api-qps=200 --kube-api-burst=400 --profiling=false
}

start_scheduler() {
	spawn kube-scheduler "$LOG_DIR/kube-scheduler.log" nsenter --net="$NETNS_PATH" \
		"$K8S_BIN/kube-scheduler" \
		--kubeconfig="$BASE_DIR/scheduler.kubeconfig" \
		--authentication-kubeconfig="$BASE_DIR/scheduler.kubeconfig" \
		--authorization-kubeconfig="$BASE_DIR/scheduler.kubeconfig" \
		--bind-address=127.0.0.1 --secure-port=10259 --leader-elect=false --profiling=false
}

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

write_kubelet_config() {
	cat >"$KUBELET_CONFIG" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 0.0.0.0
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: $PKI/ca.crt
authorization:
  mode: Webhook
tlsCertFile: $PKI/kubelet-server.crt
tlsPrivateKeyFile: $PKI/kubelet-server.key
staticPodPath: $STATIC_POD_DIR
podLogsDir: $POD_LOG_DIR
containerRuntimeEndpoint: unix://$RUN_DIR/containerd/containerd.sock
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
failCgroupV1: false
failSwapOn: false
oomScoreAdj: 0
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  nodefs.inodesFree: 1%
  imagefs.available: 1%
  imagefs.inodesFree: 1%
clusterDomain: cluster.local
rotateCertificates: false
serializeImagePulls: false
EOF
}

# The kubelet tunes these host kernel settings; it gets its own mount
# namespace in which ordinary files stand in for them.
KUBELET_SYSCTLS=(vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes)

start_kubelet() {
	mkdir -p "$KUBELET_DIR" "$STATIC_POD_DIR" "$POD_LOG_DIR" "$BASE_DIR/sysctl"
	# Mounts the kubelet makes for pod volumes under its root dir must be
	# seen by containerd in the root mount namespace.
	shared_mount "$KUBELET_DIR"
	local binds="" k f
	for k in "${KUBELET_SYSCTLS[@]}"; do
		[[ -e "/proc/sys/$k" ]] || continue
		f=$BASE_DIR/sysctl/${k//\//.}
		cat "/proc/sys/$k" >"$f"
		binds+="mount --bind $f /proc/sys/$k && "
	done
	spawn kubelet "$KUBELET_LOG" nsenter --net="$NETNS_PATH" \
		unshare --mount --propagation unchanged \
		sh -c "mount --make-rprivate /proc && ${binds}exec \"\$0\" \"\$@\"" \
		env PATH=/usr/local/bin:/usr/bin \
		"$KUBELET_BIN" \
		--config="$KUBELET_CONFIG" \
		--kubeconfig="$BASE_DIR/kubelet.kubeconfig" \
		--root-dir="$KUBELET_DIR" \
		--hostname-override="$NODE_NAME" \
		--node-ip="$NODE_IP" \
		--v=4
}

kubectl_() { "$KUBECTL" --kubeconfig="$KUBECONFIG_ADMIN" --request-timeout=10s "$@"; }

api_ready() {
	curl -sf --max-time 2 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
		"https://$NODE_IP:$API_PORT/readyz" >/dev/null
}

kubelet_healthy() { in_netns curl -sf --max-time 2 http://127.0.0.1:10248/healthz; }

# node_usable: the node is Ready, has no not-ready taint, and the default
# ServiceAccount exists.
node_usable() {
	local out
	out=$(kubectl_ get node "$NODE_NAME" \
		-o 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.spec.taints[*].key}') || return 1
	[[ "$out" == True* && "$out" != *node.kubernetes.io/not-ready* && "$out" != *node.kubernetes.io/unreachable* ]] || return 1
	kubectl_ -n default get serviceaccount default >/dev/null
}

wait_node_usable() {
	wait_until "node $NODE_NAME to be Ready and untainted and the default ServiceAccount" \
		kubelet "$KUBELET_LOG" node_usable
}

# ---------------------------------------------------------------------------
# Commands

COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet)

healthy() {
	[[ -f "$ENV_FILE" ]] || return 1
	local c
	for c in "${COMPONENTS[@]}"; do running "$c" || return 1; done
	api_ready && node_usable
}

write_env() {
	cat >"$ENV_FILE.tmp" <<EOF
KUBECONFIG=$KUBECONFIG_ADMIN
KUBECTL=$KUBECTL
API_SERVER=https://$NODE_IP:$API_PORT
NODE_NAME=$NODE_NAME
NODE_IP=$NODE_IP
CLIENT_IP=$CLIENT_IP
NETNS=$NETNS
NETNS_PATH=$NETNS_PATH
POD_SUBNET=$POD_SUBNET
POD_GATEWAY=$POD_GATEWAY
SERVICE_SUBNET=$SERVICE_SUBNET
STATIC_POD_DIR=$STATIC_POD_DIR
CRI_ENDPOINT=unix://$RUN_DIR/containerd/containerd.sock
CONTAINERD_SOCKET=$RUN_DIR/containerd/containerd.sock
CTR=$CTRD_BIN/ctr
KUBELET_CONFIG=$KUBELET_CONFIG
KUBELET_ROOT_DIR=$KUBELET_DIR
KUBELET_LOG=$KUBELET_LOG
POD_LOG_DIR=$POD_LOG_DIR
LOG_DIR=$LOG_DIR
PKI_DIR=$PKI
CA_FILE=$PKI/ca.crt
CGROUP_ROOT=/$CGROUP_ROOT
PAUSE_IMAGE=$PAUSE_IMAGE
TEST_IMAGE=$TEST_IMAGE
IMAGE_DIR=$IMG_DIR
K8S_VERSION=$K8S_VERSION
EOF
	mv "$ENV_FILE.tmp" "$ENV_FILE"
}

cmd_build() {
	build_all
}

cmd_up() {
	require_root
	require_host
	build_all
	bin_paths
	lock
	if healthy; then
		log "reusing the running cluster"
		cat "$ENV_FILE"
		return 0
	fi
	if [[ -d "$RUN_DIR" || -d "$BASE_DIR" || -e "$NETNS_PATH" ]]; then
		log "cleaning up what is left of an earlier cluster"
		teardown
	fi
	local t0=$SECONDS
	mkdir -p "$BASE_DIR" "$RUN_DIR" "$PID_DIR"
	rm -rf "$LOG_DIR"
	mkdir -p "$LOG_DIR"
	setup_netns
	write_cni_config
	gen_pki
	write_kubeconfig "$KUBECONFIG_ADMIN" "https://$NODE_IP:$API_PORT" admin
	write_kubeconfig "$BASE_DIR/controller-manager.kubeconfig" "https://127.0.0.1:$API_PORT" controller-manager
	write_kubeconfig "$BASE_DIR/scheduler.kubeconfig" "https://127.0.0.1:$API_PORT" scheduler
	write_kubeconfig "$BASE_DIR/kubelet.kubeconfig" "https://127.0.0.1:$API_PORT" kubelet-client
	write_kubelet_config
	create_cgroup "$CGROUP_ROOT"

	# The agent's DaemonSet mounts the CRI socket's directory, the state
	# directory, with HostToContainer propagation. Made shared only here,
	# before containerd runs: a bind mount over a running containerd's state
	# would hide its mounts.
	mkdir -p "$RUN_DIR/containerd"
	shared_mount "$RUN_DIR/containerd"
	start_containerd containerd "$BASE_DIR/containerd" "$RUN_DIR/containerd" "$RUN_DIR/containerd/containerd.sock"
	start_etcd
	wait_until "etcd" etcd "$LOG_DIR/etcd.log" in_netns curl -sf --max-time 2 http://127.0.0.1:2379/health
	start_apiserver
	wait_containerd containerd "$RUN_DIR/containerd/containerd.sock"
	wait_until "kube-apiserver /readyz" kube-apiserver "$LOG_DIR/kube-apiserver.log" api_ready
	start_controller_manager
	start_scheduler
	start_kubelet
	wait_until "kubelet /healthz" kubelet "$KUBELET_LOG" kubelet_healthy
	wait_node_usable
	write_env
	log "cluster up in $((SECONDS - t0))s"
	cat "$ENV_FILE"
}

# teardown stops every component and removes everything the cluster made,
# except the logs and the build cache.
teardown() {
	bin_paths
	local name sock
	stop kubelet
	# Standalone containerds first, then the kubelet's.
	for name in "$PID_DIR"/containerd-*.pid; do
		[[ -e "$name" ]] || continue
		name=$(basename "$name" .pid)
		containerd_teardown "${name#containerd-}"
	done
	sock=$RUN_DIR/containerd/containerd.sock
	if running containerd; then
		"$IMG_DIR/crireset" -endpoint "unix://$sock" -timeout 60s >&2 || log "crireset failed; killing what is left"
	fi
	stop containerd
	kill_shims "$sock"
	kill_cgroup_procs "$CGROUP_ROOT"
	for name in kube-scheduler kube-controller-manager kube-apiserver etcd; do
		stop "$name"
	done
	teardown_netns
	unmount_under "$KUBELET_DIR" "$BASE_DIR" "$RUN_DIR"
	remove_cgroups "$CGROUP_ROOT" "$CRI_CGROUP_ROOT"
	# Links the kubelet made to the logs of its containers.
	local l
	for l in /var/log/containers/*.log; do
		[[ -L "$l" ]] || continue
		[[ "$(readlink "$l")" == "$POD_LOG_DIR"/* ]] && rm -f "$l"
	done
	# Results cached by the CNI library for this cluster's network.
	rm -f /var/lib/cni/results/podsrc-* /var/lib/cni/results/cni-loopback-*
	# containerd's fixed directories under /run (shim sockets, runc state),
	# if now empty.
	if [[ -d /run/containerd ]]; then find /run/containerd -depth -type d -empty -delete 2>/dev/null || true; fi
	rm -rf "$RUN_DIR" "$BASE_DIR"
}

cmd_down() {
	require_root
	lock
	teardown
	log "cluster down"
}

cmd_status() {
	bin_paths
	if healthy; then
		cat "$ENV_FILE"
		return 0
	fi
	local c
	for c in "${COMPONENTS[@]}"; do
		if running "$c"; then log "$c: running (pid $(pid_of "$c"))"; else log "$c: not running"; fi
	done
	die "cluster is not healthy"
}

cmd_env() {
	[[ -f "$ENV_FILE" ]] || die "no cluster running ($ENV_FILE missing)"
	cat "$ENV_FILE"
}

# cmd_restart_kubelet [VERSION] restarts the kubelet, as the cluster's own
# or, given a version with a tools module (hack/tools/kubelet1NN), as that
# kubelet; the next restart without a version goes back.
cmd_restart_kubelet() {
	require_root
	bin_paths
	if (($# == 1)) && [[ $1 != "$K8S_VERSION" ]]; then
		kubelet_module "$1" >/dev/null || die "no kubelet $1 to run: hack/tools has no kubelet module for it"
		build_kubelet "$1" || die "building kubelet $1 failed"
		KUBELET_BIN=$(kubelet_dir "$1")/kubelet
	fi
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running"
	stop kubelet
	start_kubelet
	wait_until "kubelet /healthz" kubelet "$KUBELET_LOG" kubelet_healthy
	wait_node_usable
	log "kubelet restarted ($KUBELET_BIN)"
}

cmd_restart_containerd() {
	require_root
	bin_paths
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running"
	stop containerd
	start_containerd containerd "$BASE_DIR/containerd" "$RUN_DIR/containerd" "$RUN_DIR/containerd/containerd.sock"
	wait_containerd containerd "$RUN_DIR/containerd/containerd.sock"
	log "containerd restarted"
}

cmd_restart_apiserver() {
	require_root
	bin_paths
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running"
	stop kube-apiserver
	start_apiserver
	wait_until "kube-apiserver /readyz" kube-apiserver "$LOG_DIR/kube-apiserver.log" api_ready
	log "kube-apiserver restarted"
}

# ---------------------------------------------------------------------------
# Standalone containerds, for tests that drive CRI themselves.

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

cmd_containerd_up() {
	require_root
	check_name "$1"
	bin_paths
	lock
	[[ -f "$ENV_FILE" ]] || die "no cluster running: run 'hack/cluster.sh up' first"
	standalone_paths "$1"
	if ! running "$SA_NAME"; then
		create_cgroup "$CRI_CGROUP_ROOT"
		start_containerd "$SA_NAME" "$SA_DIR" "$SA_STATE" "$SA_SOCK"
		wait_containerd "$SA_NAME" "$SA_SOCK"
	fi
	print_standalone_env "$1"
}

cmd_containerd_restart() {
	require_root
	check_name "$1"
	bin_paths
	lock
	standalone_paths "$1"
	[[ -d "$SA_DIR" ]] || die "no containerd named $1"
	stop "$SA_NAME"
	start_containerd "$SA_NAME" "$SA_DIR" "$SA_STATE" "$SA_SOCK"
	wait_containerd "$SA_NAME" "$SA_SOCK"
	print_standalone_env "$1"
}

containerd_teardown() {
	standalone_paths "$1"
	if running "$SA_NAME"; then
		"$IMG_DIR/crireset" -endpoint "unix://$SA_SOCK" -timeout 60s >&2 || log "crireset $SA_NAME failed; killing what is left"
	fi
	stop "$SA_NAME"
	kill_shims "$SA_SOCK"
	kill_cgroup_procs "$CRI_CGROUP_ROOT/$1"
	unmount_under "$SA_DIR" "$SA_STATE"
	remove_cgroups "$CRI_CGROUP_ROOT/$1"
	rm -rf "$SA_DIR" "$SA_STATE"
}

cmd_containerd_down() {
	require_root
	check_name "$1"
	bin_paths
	lock
	containerd_teardown "$1"
}

# cmd_check_clean reports anything a cluster leaves behind: processes of its
# binaries, mounts, cgroups, the namespace, interfaces, routes, log links,
# CNI results. It exits 1 if it finds any.
cmd_check_clean() {
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
	for p in /sys/fs/cgroup/*/"$CGROUP_ROOT" /sys/fs/cgroup/*/"$CRI_CGROUP_ROOT"; do
		[[ -e "$p" ]] && { log "left: cgroup $p"; found=1; }
	done
	[[ -e "$NETNS_PATH" ]] && { log "left: netns $NETNS_PATH"; found=1; }
	ip link show "$VETH_HOST" >/dev/null 2>&1 && { log "left: interface $VETH_HOST"; found=1; }
	if ip route show type unreachable | grep -qE "^unreachable (${POD_SUBNET}|${SERVICE_SUBNET}|${SCALE_SUBNET})"; then
		log "left: unreachable routes"
		found=1
	fi
	for p in /var/log/containers/*.log; do
		[[ -L "$p" && "$(readlink "$p")" == "$POD_LOG_DIR"/* ]] && { log "left: link $p"; found=1; }
	done
	compgen -G "/var/lib/cni/results/podsrc-*" >/dev/null && { log "left: CNI results"; found=1; }
	[[ -d /run/containerd/s ]] && { log "left: /run/containerd/s"; found=1; }
	[[ -e "$RUN_DIR" || -e "$BASE_DIR" ]] && { log "left: $RUN_DIR or $BASE_DIR"; found=1; }
	if ((found)); then
		die "the cluster left things behind"
	fi
	log "nothing left behind"
}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

main() {
	local cmd=${1:-}
	shift || true
	case "$cmd" in
	build) cmd_build ;;
	up) cmd_up ;;
	down) cmd_down ;;
	status) cmd_status ;;
	env) cmd_env ;;
	restart-kubelet) (($# <= 1)) || usage && cmd_restart_kubelet "$@" ;;
	restart-containerd) cmd_restart_containerd ;;
	restart-apiserver) cmd_restart_apiserver ;;
	containerd-up) (($# == 1)) || usage && cmd_containerd_up "$1" ;;
	containerd-restart) (($# == 1)) || usage && cmd_containerd_restart "$1" ;;
	containerd-down) (($# == 1)) || usage && cmd_containerd_down "$1" ;;
	check-clean) cmd_check_clean ;;
	*) usage ;;
	esac
}

main "$@"
