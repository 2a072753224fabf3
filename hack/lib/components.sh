#!/usr/bin/env bash
# components.sh: how hack/cluster.sh starts and probes each component of the
# cluster (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
# the kubelet; containerd is in containerd.sh). Sourced; expects the settings
# of lib/cluster.sh, bin_paths run, and proc.sh and host.sh.

start_etcd() {
	rm -rf "$BASE_DIR/etcd"
	spawn etcd "$LOG_DIR/etcd.log" nsenter --net="$NETNS_PATH" "$ETCD_BIN/etcd" \
		--name=podsrc --data-dir="$BASE_DIR/etcd" \
		--listen-client-urls=http://127.0.0.1:2379 --advertise-client-urls=http://127.0.0.1:2379 \
		--listen-peer-urls=http://127.0.0.1:2380 --initial-advertise-peer-urls=http://127.0.0.1:2380 \
		--initial-cluster=podsrc=http://127.0.0.1:2380 --unsafe-no-fsync --log-level=warn
}

# start_apiserver starts kube-apiserver. Its UserNamespacesHostNetworkSupport
# gate (alpha) lets a pod with hostUsers: false on the host network in,
# while the kubelets keep theirs off and so declare no such node feature:
# the kubelet's declared features handler refuses that pod (test/e2e's
# admission cases).
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
		--feature-gates=UserNamespacesHostNetworkSupport=true \
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
tlsCertFile: $PKI/$KUBELET_CERT-server.crt
tlsPrivateKeyFile: $PKI/$KUBELET_CERT-server.key
staticPodPath: $STATIC_POD_DIR
podLogsDir: $POD_LOG_DIR
containerRuntimeEndpoint: unix://$CRI_SOCKET
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
	# PODSRC_KUBELET_FEATURE_GATES (Name=bool,...) become featureGates.
	local gate gates=()
	IFS=, read -r -a gates <<<"${PODSRC_KUBELET_FEATURE_GATES:-}"
	((${#gates[@]} == 0)) || echo "featureGates:" >>"$KUBELET_CONFIG"
	for gate in "${gates[@]}"; do
		echo "  ${gate%%=*}: ${gate#*=}" >>"$KUBELET_CONFIG"
	done
}

# The kubelet tunes these host kernel settings; it gets its own mount
# namespace in which ordinary files stand in for them.
KUBELET_SYSCTLS=(vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes)

start_kubelet() {
	mkdir -p "$KUBELET_DIR" "$STATIC_POD_DIR" "$POD_LOG_DIR" "$SYSCTL_DIR"
	# Mounts the kubelet makes for pod volumes under its root dir must be
	# seen by containerd in the root mount namespace.
	shared_mount "$KUBELET_DIR"
	local binds="" k f
	for k in "${KUBELET_SYSCTLS[@]}"; do
		[[ -e "/proc/sys/$k" ]] || continue
		f=$SYSCTL_DIR/${k//\//.}
		cat "/proc/sys/$k" >"$f"
		binds+="mount --bind $f /proc/sys/$k && "
	done
	spawn "$KUBELET_NAME" "$KUBELET_LOG" nsenter --net="$NETNS_PATH" \
		unshare --mount --propagation unchanged \
		sh -c "mount --make-rprivate /proc && ${binds}exec \"\$0\" \"\$@\"" \
		env PATH=/usr/local/bin:/usr/bin \
		"$KUBELET_BIN" \
		--config="$KUBELET_CONFIG" \
		--kubeconfig="$KUBELET_KUBECONFIG" \
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
		"$KUBELET_NAME" "$KUBELET_LOG" node_usable
}
