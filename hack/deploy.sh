#!/usr/bin/env bash
# deploy.sh deploys podsrc-agent to the test cluster (hack/cluster.sh) from
# manifests/daemonset.yaml, through the overlay test/e2e/overlay, and waits
# until the agent is Ready. Run as root, with the cluster up.
#
#   hack/deploy.sh [IMAGE]   IMAGE defaults to what hack/image.sh builds now
#
# make demo and the end-to-end tests use it, so the manifest users apply is the
# one that is tested.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ENV_FILE=${PODSRC_ENV_FILE:-/run/podsrc-cluster/env}
OVERLAY=$ROOT/test/e2e/overlay
NAMESPACE=podsrc-system
DAEMONSET=podsrc-agent
SELECTOR=app.kubernetes.io/name=podsrc-agent
# How long the rollout may take once applied.
WAIT=${PODSRC_DEPLOY_WAIT:-120}

log() { echo "deploy: $*" >&2; }
die() {
	echo "deploy: error: $*" >&2
	exit 1
}

[[ -f $ENV_FILE ]] || die "no $ENV_FILE: is the test cluster up? (sudo hack/cluster.sh up)"
# shellcheck disable=SC1090
. "$ENV_FILE"
export KUBECONFIG

# The overlay names hack/cluster.sh's default paths; a cluster made with
# another PODSRC_CLUSTER_DIR or PODSRC_RUN_DIR would get an agent that
# watches nothing.
check_path() {
	local what=$1 want=$2
	grep -qF -- "$want" "$OVERLAY/agent.yaml" ||
		die "$what is $want on this cluster, but $OVERLAY/agent.yaml has another path; update the overlay"
}
check_path KUBELET_CONFIG "$KUBELET_CONFIG"
check_path STATIC_POD_DIR "$STATIC_POD_DIR"
check_path CONTAINERD_SOCKET "$CONTAINERD_SOCKET"
check_path CRI_ENDPOINT "$CRI_ENDPOINT"

image=${1:-}
if [[ -z $image ]]; then
	image=$("$ROOT/hack/image.sh" | tail -n1)
fi
[[ $image == *:* ]] || die "image $image has no tag"

# A throwaway layer on the overlay sets the tag, so that the checked-in
# overlay stays as it is (kustomize takes only relative paths).
work=$(mktemp -d "${TMPDIR:-/tmp}/podsrc-deploy.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $(realpath --relative-to="$work" "$OVERLAY")
images:
  - name: ${image%:*}
    newTag: ${image##*:}
EOF

log "applying manifests/daemonset.yaml (overlay test/e2e/overlay) with image $image"
"$KUBECTL" kustomize "$work" >"$work/rendered.yaml" || die "kustomize failed"
"$KUBECTL" apply --request-timeout=30s -f "$work/rendered.yaml" >&2 || die "kubectl apply failed"

log "waiting up to ${WAIT}s for the DaemonSet's rollout"
if ! "$KUBECTL" -n "$NAMESPACE" rollout status "daemonset/$DAEMONSET" --timeout="${WAIT}s" >&2; then
	{
		echo "deploy: error: the agent did not become Ready within ${WAIT}s; its pods:"
		"$KUBECTL" -n "$NAMESPACE" get pods -l "$SELECTOR" -o wide || true
		"$KUBECTL" -n "$NAMESPACE" describe pods -l "$SELECTOR" | tail -n 40 || true
		echo "deploy: the agent's log:"
		"$KUBECTL" -n "$NAMESPACE" logs -l "$SELECTOR" --tail=40 || true
	} >&2
	exit 1
fi
log "podsrc-agent is Ready on $NODE_NAME"
