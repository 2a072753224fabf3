#!/usr/bin/env bash
# demo.sh is `make demo`: podsrc on a real single-node cluster, in one command.
# It brings the test cluster up (hack/cluster.sh, reusing what is built or
# running), builds and imports the agent image, deploys it with kubectl
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

section "1/9 The cluster: a real kubelet, containerd and API server on this machine (hack/cluster.sh up)"
deps=$("$ROOT/hack/install-deps.sh" 2>&1) || die "installing the test cluster's packages failed: $deps"
"$ROOT/hack/cluster.sh" up >/dev/null
load_cluster_env
export KUBECONFIG
note "node $NODE_NAME at $NODE_IP, API server $API_SERVER, Kubernetes $K8S_VERSION"

# `kubectl podsrc` as users type it: the cluster's kubectl, and the plugin
# found on PATH by kubectl's plugin discovery.
[[ -x $ROOT/bin/kubectl-podsrc ]] || (cd "$ROOT" && go build -o bin/kubectl-podsrc ./cmd/kubectl-podsrc)
tools=$(mktemp -d "${TMPDIR:-/tmp}/podsrc-demo.XXXXXX")
trap 'rm -rf "$tools"' EXIT
ln -s "$KUBECTL" "$tools/kubectl"
export PATH=$tools:$ROOT/bin:$PATH

section "2/9 The agent image, built from this tree without a registry (hack/image.sh)"
image=$("$ROOT/hack/image.sh" | tail -n1)

section "3/9 Deploying the agent: kubectl podsrc deploy (the node's paths come from its kubelet's /configz)"
note "--api-server-url: this cluster has no kube-proxy, so the agent reaches the API server at its own address"
note "--allow-host-path: this cluster keeps its static pods and CRI socket where no kubelet distribution does, and deploy mounts only kubelet-like paths unless told"
note "--allowed-cidrs: its API server publishes no EndpointSlices, so deploy is told the address the API server's node proxy comes from"
show kubectl podsrc deploy --image="$image" --api-server-url="$API_SERVER" --timeout="${WAIT}s" \
	--allow-host-path="$STATIC_POD_DIR" --allow-host-path="$(dirname "$CONTAINERD_SOCKET")" --allowed-cidrs="$NODE_IP" || die "deploying the agent failed"
show kubectl -n podsrc-system get daemonset,pods -o wide

section "4/9 Pods from the API server"
# A rerun starts over: the previous run's static files and namespace go.
rm -f "$STATIC_POD_DIR/$PREFIX"*
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
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  containers:
    - name: quitter
      image: $TEST_IMAGE
      imagePullPolicy: Never
      args: ["-sleep", "3s", "-exit", "7"]
EOF
show kubectl -n "$NS" get pods

section "5/9 Static pods in the kubelet's directory $STATIC_POD_DIR"
# static_pod FILE NAME MESSAGE writes a manifest atomically (the kubelet must
# never read half a file): written beside the directory, then renamed in.
static_pod() {
	local tmp
	tmp=$(mktemp "$(dirname "$STATIC_POD_DIR")/.${PREFIX}XXXXXX")
	cat >"$tmp"
	mv "$tmp" "$STATIC_POD_DIR/$1"
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

section "6/9 What the kubelet's pod sources say: kubectl podsrc sources"
show kubectl podsrc sources "$NODE_NAME"
note "-o wide adds each source's last error and the files it rejected: the broken manifest"
show kubectl podsrc sources "$NODE_NAME" -o wide
note "the two files of pod shadow: the kubelet keeps the one it read last, the backup (-o wide shows it as SHADOWED FILES; here picked out with jsonpath)"
shadowed='{range .items[*].shadowedFiles[*]}{.path}{" is shadowed by "}{.by}{" (pod "}{.pod}{")\n"}{end}'
printf "\n%s\$ kubectl podsrc sources %s -o jsonpath='%s'%s\n" "$bold" "$NODE_NAME" "$shadowed" "$reset"
kubectl podsrc sources "$NODE_NAME" -o jsonpath="$shadowed"

section "7/9 Why is a pod not running? kubectl podsrc why walks the kubelet's pipeline for one pod"
note "the broken manifest: its file is read, the decoder refuses it; every later stage is not reached"
show_status kubectl podsrc why "$NODE_NAME" "$STATIC_POD_DIR/${PREFIX}broken.yaml"
note "the real shadow manifest: the kubelet runs the backup's pod instead"
show_status kubectl podsrc why "$NODE_NAME" "$STATIC_POD_DIR/${PREFIX}shadow.yaml"
note "a healthy pod: every stage ok, exit status 0"
show_status kubectl podsrc why "$NODE_NAME" "$NS/web"
note "every pod of the node that is not healthy, one line each (quitter exited with 7 and is not restarted)"
show_status kubectl podsrc why "$NODE_NAME" --all

section "8/9 The merged pods, and the PLEG's view of containerd"
show kubectl podsrc pods "$NODE_NAME" -n "$NS"
show kubectl podsrc pleg "$NODE_NAME"
note "the PLEG events of the last 30 seconds (the agent keeps a buffer): quitter's ContainerDied exit=7 is among them"
show_for 3 kubectl podsrc watch "$NODE_NAME" --kind=pleg --since=30s

section "9/9 Following it live: kubectl podsrc watch, while static-web's manifest changes"
note "a changed static pod is a new pod to the kubelet (a new UID): the old one is removed, the new one added, and the PLEG sees the containers die and start"
(
	sleep 3
	printf '%s# (meanwhile, %s changes: message v1 -> v2)%s\n' "$bold" "$STATIC_POD_DIR/${PREFIX}static-web.yaml" "$reset"
	pod_yaml static-web "v2" | static_pod "${PREFIX}static-web.yaml"
) &
edit_pid=$!
show_for 20 kubectl podsrc watch "$NODE_NAME"
wait "$edit_pid" || die "changing ${PREFIX}static-web.yaml failed"

elapsed=$((SECONDS - start))
section "Done in ${elapsed}s. The cluster keeps running."
cat <<EOF

Keep using it:
  . $(cluster_env_file)                     # KUBECONFIG, KUBECTL, NODE_NAME=$NODE_NAME, ...
  export KUBECONFIG=$KUBECONFIG
  export PATH=$ROOT/bin:\$PATH            # kubectl-podsrc, for kubectl's plugin discovery
  alias kubectl=$KUBECTL
  kubectl podsrc sources $NODE_NAME -o wide
  kubectl podsrc watch $NODE_NAME --snapshot
  Static pods go in $STATIC_POD_DIR (write elsewhere, then mv in).

Remove the demo's pods, then the agent:
  rm -f $STATIC_POD_DIR/$PREFIX*
  kubectl delete namespace $NS
  kubectl podsrc undeploy

Tear the whole cluster down:
  sudo $ROOT/hack/cluster.sh down
EOF
