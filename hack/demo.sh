#!/usr/bin/env bash
# demo.sh is `make demo`: podsrc on a real two-node cluster, in one command.
# It brings the test cluster up with its second node (PODSRC_NODES=2
# hack/cluster.sh up, reusing what is built or running), builds and imports the agent image, deploys it with kubectl
# podsrc deploy, makes some pods worth looking at and shows them
# with kubectl podsrc through the API server. The cluster and the demo's pods
# are left running; the end of the output says how to use and remove them.
# Run as root, after `make build` (for bin/kubectl-podsrc).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/lib/common.sh
source "$ROOT/hack/lib/common.sh"
NS=podsrc-demo
# The demo's static pod files all start with this, so that a rerun removes
# its own files and nobody else's.
PREFIX=podsrc-demo-
# Bound of every wait, in seconds.
WAIT=${PODSRC_DEMO_WAIT:-90}
start=$SECONDS

if [[ -t 1 ]]; then
	bold=$'\e[1m' dim=$'\e[2m' reset=$'\e[0m'
else
	bold='' dim='' reset=''
fi
section() { printf '\n%s==> %s%s\n' "$bold" "$*" "$reset"; }
note() { printf '%s%s%s\n' "$dim" "$*" "$reset"; }
# show prints a command as it would be typed, then runs it.
show() {
	printf '\n%s$ %s%s\n' "$bold" "$*" "$reset"
	"$@"
}
# show_for SECONDS CMD... is show for a command that runs until stopped
# (kubectl podsrc watch): it is stopped after SECONDS.
show_for() {
	local secs=$1
	shift
	printf '\n%s$ %s%s   %s# for %ss%s\n' "$bold" "$*" "$reset" "$dim" "$secs" "$reset"
	timeout -k 5 --signal=INT "$secs" "$@" || (($? == 124))
}
# show_status is show for a command whose exit status is part of what it
# says (kubectl podsrc why: 0 healthy, 2 a stage fails): printed, not fatal.
show_status() {
	local status=0
	show "$@" || status=$?
	note "(exit status $status)"
}
# wait_for WHAT CMD...: runs CMD every second until it succeeds, at most WAIT
# seconds.
wait_for() {
	local what=$1 deadline=$((SECONDS + WAIT))
	shift
	until "$@" >/dev/null 2>&1; do
		((SECONDS < deadline)) || die "timed out after ${WAIT}s waiting for $what"
		sleep 1
	done
}

require_root "the test cluster needs a network namespace, mounts and cgroups: sudo make demo"

section "1/10 The cluster: real kubelets, containerds and an API server on this machine (PODSRC_NODES=2 hack/cluster.sh up)"
deps=$("$ROOT/hack/install-deps.sh" 2>&1) || die "installing the test cluster's packages failed: $deps"
PODSRC_NODES=2 "$ROOT/hack/cluster.sh" up >/dev/null
load_cluster_env
export KUBECONFIG
note "node $NODE_NAME at $NODE_IP, kubelet $K8S_VERSION, API server $API_SERVER"
note "node $NODE2_NAME at $NODE2_IP, kubelet $NODE2_KUBELET_VERSION, laid out like RKE2 (static pods in $NODE2_STATIC_POD_DIR), its runtime under a private mount"

# `kubectl podsrc` as users type it: the cluster's kubectl, and the plugin
# found on PATH by kubectl's plugin discovery.
[[ -x $ROOT/bin/kubectl-podsrc ]] || (cd "$ROOT" && go build -o bin/kubectl-podsrc ./cmd/kubectl-podsrc)
tools=$(mktemp -d "${TMPDIR:-/tmp}/podsrc-demo.XXXXXX")
trap 'rm -rf "$tools"' EXIT
ln -s "$KUBECTL" "$tools/kubectl"
export PATH=$tools:$ROOT/bin:$PATH

section "2/10 The agent image, built from this tree without a registry (hack/image.sh)"
note "one image per kubelet minor: v1.37 for $NODE_NAME, v1.34 for $NODE2_NAME"
image=$(PODSRC_AGENT_MINORS="134 137" "$ROOT/hack/image.sh" | tail -n1)

section "3/10 Deploying the agent: kubectl podsrc deploy (each node's paths come from its kubelet's /configz)"
note "two layouts and kubelet minors: one DaemonSet each, running the agent of that node's minor"
note "--default-layout: one node of each layout, so deploy is told which one nodes added later get"
note "--api-server-url: this cluster has no kube-proxy, so the agent reaches the API server at its own address"
note "--allow-host-path: this cluster keeps its static pods and CRI socket where no kubelet distribution does, and deploy mounts only kubelet-like paths unless told"
note "--allowed-cidrs: its API server publishes no EndpointSlices, so deploy is told the address the API server's node proxy comes from"
show kubectl podsrc deploy --image="$image" --api-server-url="$API_SERVER" --timeout="${WAIT}s" \
	--allow-host-path="$STATIC_POD_DIR" --allow-host-path="$(dirname "$CONTAINERD_SOCKET")" \
	--allow-host-path="$NODE2_STATIC_POD_DIR" --allow-host-path="$(dirname "$NODE2_CONTAINERD_SOCKET")" \
	--default-layout="$NODE_NAME" --allowed-cidrs="$NODE_IP" || die "deploying the agent failed"
show kubectl -n podsrc-system get daemonset,pods -o wide

section "4/10 Pods from the API server"
# A rerun starts over: the previous run's static files and namespace go.
rm -f "$STATIC_POD_DIR/$PREFIX"* "$NODE2_STATIC_POD_DIR/$PREFIX"*
if kubectl get namespace "$NS" >/dev/null 2>&1; then
	note "removing the previous demo's namespace $NS"
	kubectl delete namespace "$NS" --wait --timeout="${WAIT}s" >/dev/null || die "deleting namespace $NS"
fi
kubectl create namespace "$NS" >/dev/null
kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: $NS
spec:
  # The demo's API pods run on the first node, whose pods the next steps show.
  nodeName: $NODE_NAME
  terminationGracePeriodSeconds: 2
  containers:
    - name: web
      image: $TEST_IMAGE
      imagePullPolicy: Never
      args: ["-listen", ":8080", "-message", "hello from podsrc-demo"]
---
# Exits with code 7 after a few seconds and stays exited: the PLEG reports
# ContainerDied.
apiVersion: v1
kind: Pod
metadata:
  name: quitter
  namespace: $NS
spec:
  nodeName: $NODE_NAME
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  containers:
    - name: quitter
      image: $TEST_IMAGE
      imagePullPolicy: Never
      args: ["-sleep", "3s", "-exit", "7"]
EOF
show kubectl -n "$NS" get pods

section "5/10 Static pods in the kubelet's directory $STATIC_POD_DIR"
# static_pod FILE [DIR] writes a manifest from stdin into DIR (the first
# node's static pod directory by default) atomically (the kubelet must never
# read half a file): written beside the directory, then renamed in.
static_pod() {
	local dir=${2:-$STATIC_POD_DIR} tmp
	tmp=$(mktemp "$(dirname "$dir")/.${PREFIX}XXXXXX")
	cat >"$tmp"
	mv "$tmp" "$dir/$1"
}
pod_yaml() {
	cat <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: $NS
spec:
  terminationGracePeriodSeconds: 2
  containers:
    - name: main
      image: $TEST_IMAGE
      imagePullPolicy: Never
      args: ["-sleep", "0", "-message", "$2"]
EOF
}
pod_yaml static-web "v1" | static_pod "${PREFIX}static-web.yaml"
# The same pod twice, as when an editor or an admin leaves a backup in the
# directory: the kubelet reads every file, and keeps only one of the two.
pod_yaml shadow "the real one" | static_pod "${PREFIX}shadow.yaml"
pod_yaml shadow "the forgotten backup" | static_pod "${PREFIX}shadow.yaml.bak"
# A manifest the kubelet cannot decode: containers must be a list.
static_pod "${PREFIX}broken.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: broken
  namespace: $NS
spec:
  containers:
    name: main
    image: $TEST_IMAGE
EOF
show ls -l "$STATIC_POD_DIR"
note "waiting for the mirror pods of static-web and shadow, for quitter to exit and web to be Ready"
wait_for "the mirror pod static-web-$NODE_NAME" kubectl -n "$NS" get pod "static-web-$NODE_NAME"
wait_for "the mirror pod shadow-$NODE_NAME" kubectl -n "$NS" get pod "shadow-$NODE_NAME"
# The kubelet replaces the first file's pod by the backup's once the first has
# stopped, then its mirror pod: why says every stage of it is ok (exit 0).
wait_for "the backup's pod shadow-$NODE_NAME to run with its own mirror pod" kubectl podsrc why "$NODE_NAME" "$NS/shadow-$NODE_NAME"
quitter_exited() {
	[[ -n $(kubectl -n "$NS" get pod quitter -o 'jsonpath={.status.containerStatuses[0].state.terminated.exitCode}') ]]
}
wait_for "the quitter pod to exit" quitter_exited
wait_for "the pod web to be Ready" kubectl -n "$NS" wait --for=condition=Ready pod/web --timeout=1s
show kubectl -n "$NS" get pods

section "6/10 What the kubelet's pod sources say: kubectl podsrc sources"
show kubectl podsrc sources "$NODE_NAME"
note "-o wide adds each source's last error and the files it rejected: the broken manifest"
show kubectl podsrc sources "$NODE_NAME" -o wide
note "the two files of pod shadow: the kubelet keeps the one it read last, the backup (-o wide shows it as SHADOWED FILES; here picked out with jsonpath)"
shadowed='{range .items[*].shadowedFiles[*]}{.path}{" is shadowed by "}{.by}{" (pod "}{.pod}{")\n"}{end}'
printf "\n%s\$ kubectl podsrc sources %s -o jsonpath='%s'%s\n" "$bold" "$NODE_NAME" "$shadowed" "$reset"
kubectl podsrc sources "$NODE_NAME" -o jsonpath="$shadowed"

section "7/10 Why is a pod not running? kubectl podsrc why walks the kubelet's pipeline for one pod"
note "the broken manifest: its file is read, the decoder refuses it; every later stage is not reached"
show_status kubectl podsrc why "$NODE_NAME" "$STATIC_POD_DIR/${PREFIX}broken.yaml"
note "the real shadow manifest: the kubelet runs the backup's pod instead"
show_status kubectl podsrc why "$NODE_NAME" "$STATIC_POD_DIR/${PREFIX}shadow.yaml"
note "a healthy pod: every stage ok, exit status 0"
show_status kubectl podsrc why "$NODE_NAME" "$NS/web"
note "every pod of the node that is not healthy, one line each (quitter exited with 7 and is not restarted)"
show_status kubectl podsrc why "$NODE_NAME" --all

section "8/10 The merged pods, and the PLEG's view of containerd"
show kubectl podsrc pods "$NODE_NAME" -n "$NS"
show kubectl podsrc pleg "$NODE_NAME"
note "the PLEG events of the last 30 seconds (the agent keeps a buffer): quitter's ContainerDied exit=7 is among them"
show_for 3 kubectl podsrc watch "$NODE_NAME" --kind=pleg --since=30s

section "9/10 Two nodes at once: one table, each node's own paths and kubelet"
note "the fan-out asks every node's agent through the API server and prints rows as they answer"
show kubectl podsrc sources --all-nodes
show kubectl podsrc pleg --all-nodes

section "10/10 Following both nodes live: kubectl podsrc watch --all-nodes"
note "on $NODE_NAME static-web's manifest changes: a changed static pod is a new pod to the kubelet (a new UID), the old one is removed, the new one added, and the PLEG sees the containers die and start"
note "on $NODE2_NAME a manifest appears in its own directory; each node's rows have their own colour on a terminal"
(
	sleep 3
	printf '%s# (meanwhile, %s changes: message v1 -> v2)%s\n' "$bold" "$STATIC_POD_DIR/${PREFIX}static-web.yaml" "$reset"
	pod_yaml static-web "v2" | static_pod "${PREFIX}static-web.yaml"
	sleep 3
	printf '%s# (meanwhile, on %s: %s appears)%s\n' "$bold" "$NODE2_NAME" "$NODE2_STATIC_POD_DIR/${PREFIX}static-web.yaml" "$reset"
	pod_yaml static-web "on the second node" | static_pod "${PREFIX}static-web.yaml" "$NODE2_STATIC_POD_DIR"
) &
edit_pid=$!
show_for 20 kubectl podsrc watch --all-nodes
wait "$edit_pid" || die "writing the static-web manifests failed"

elapsed=$((SECONDS - start))
section "Done in ${elapsed}s. The cluster keeps running."
cat <<EOF

Keep using it:
  . $(cluster_env_file)                     # KUBECONFIG, KUBECTL, NODE_NAME=$NODE_NAME, ...
  export KUBECONFIG=$KUBECONFIG
  export PATH=$ROOT/bin:\$PATH            # kubectl-podsrc, for kubectl's plugin discovery
  alias kubectl=$KUBECTL
  kubectl podsrc sources --all-nodes -o wide
  kubectl podsrc watch --all-nodes --snapshot
  Static pods go in $STATIC_POD_DIR on $NODE_NAME and in
  $NODE2_STATIC_POD_DIR on $NODE2_NAME (write elsewhere, then mv in).

Remove the demo's pods, then the agent:
  rm -f $STATIC_POD_DIR/$PREFIX* $NODE2_STATIC_POD_DIR/$PREFIX*
  kubectl delete namespace $NS
  kubectl podsrc undeploy

Back to one node, or tear the whole cluster down:
  sudo $ROOT/hack/cluster.sh node2-down
  sudo $ROOT/hack/cluster.sh down
EOF
