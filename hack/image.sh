#!/usr/bin/env bash
# image.sh builds the podsrc-agent images without a registry or a container
# engine and imports them into the test cluster's containerds, where pods use
# them with imagePullPolicy: Never. Run as root, with the cluster up.
#
#   hack/image.sh            build, import, print the image reference
#   hack/image.sh -o FILE    build and write the archive to FILE only (one minor)
#
# An agent build reproduces one kubelet minor; PODSRC_AGENT_MINORS (default
# 137, the test cluster's kubelet) lists those to build, e.g. "134 137". The
# printed reference is the base kubectl podsrc deploy --image takes; each
# minor's image is that reference with -kubelet1.N appended (pkg/deploy's
# ImageFor). The binaries are built as the Makefile builds them (-trimpath,
# version ldflags), but static (CGO_ENABLED=0): an image holds nothing else.
# The tag is the binaries' content hash, so a changed agent is a changed
# DaemonSet spec and rolls out, and an unchanged one does not. The last line
# of the output is the image reference.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/lib/common.sh
source "$ROOT/hack/lib/common.sh"
IMAGE_NAME=${PODSRC_AGENT_IMAGE_NAME:-podsrc.local/podsrc-agent}
VERSION=${VERSION:-$(git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)}
MINORS=${PODSRC_AGENT_MINORS:-137}

out_file=
while (($#)); do
	case $1 in
	-o)
		(($# >= 2)) || die "-o needs a file"
		out_file=$2
		shift 2
		;;
	*) die "unknown argument $1 (usage: hack/image.sh [-o FILE])" ;;
	esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/podsrc-image.XXXXXX")
trap 'rm -rf "$work"' EXIT

# agent_dir is the module of the agent build for kubelet minor $1: one
# module per minor (hack/new-minor.sh adds one).
agent_dir() {
	local dir=$ROOT/cmd/podsrc-agent/kubelet$1
	[[ $1 =~ ^1[0-9][0-9]$ && -f $dir/go.mod ]] ||
		die "no agent build for kubelet minor $1 (PODSRC_AGENT_MINORS: $(cd "$ROOT/cmd/podsrc-agent" && echo kubelet1* | sed 's/kubelet//g'))"
	echo "$dir"
}

read -ra minors <<<"$MINORS"
((${#minors[@]} > 0)) || die "PODSRC_AGENT_MINORS is empty"
[[ -z $out_file || ${#minors[@]} == 1 ]] || die "-o writes one minor's image; PODSRC_AGENT_MINORS has ${#minors[@]}"
for m in "${minors[@]}"; do
	dir=$(agent_dir "$m") || exit 1
	log "building podsrc-agent $VERSION for kubelet 1.${m#1} (static)"
	(cd "$dir" &&
		CGO_ENABLED=0 go build -trimpath -tags grpcnotrace \
			-ldflags "-s -w -X github.com/podsrc/podsrc/internal/version.Version=$VERSION" \
			-o "$work/podsrc-agent-$m" .) || die "go build of $dir failed"
done

tag=$(cat "${minors[@]/#/$work/podsrc-agent-}" | sha256sum | cut -c1-12)
ref=$IMAGE_NAME:$tag

# mkimage: the copy hack/cluster.sh built, or build it now.
mkimage=
image_dir=$(cluster_env IMAGE_DIR)
[[ -n $image_dir && -x $image_dir/mkimage ]] && mkimage=$image_dir/mkimage
if [[ -z $mkimage ]]; then
	(cd "$ROOT/hack/tools/k8s" && CGO_ENABLED=0 go build -o "$work/mkimage" ./cmd/mkimage) ||
		die "building hack/tools/k8s/cmd/mkimage failed"
	mkimage=$work/mkimage
fi

for m in "${minors[@]}"; do
	name=$ref-kubelet1.${m#1}
	archive=${out_file:-$work/podsrc-agent-$m.tar}
	"$mkimage" -bin "$work/podsrc-agent-$m" -path /usr/local/bin/podsrc-agent -name "$name" -o "$archive" ||
		die "packing $name failed"
	log "packed $name"
done

if [[ -n $out_file ]]; then
	echo "$ref"
	exit 0
fi

load_cluster_env
ctr=$CTR
# Every node's containerd: the second node's too when it runs.
for sock in "$CONTAINERD_SOCKET" ${NODE2_CONTAINERD_SOCKET:+"$NODE2_CONTAINERD_SOCKET"}; do
	[[ -x $ctr && -S $sock ]] || die "ctr ($ctr) or the containerd socket ($sock) from $(cluster_env_file) is missing"
	for m in "${minors[@]}"; do
		# ctr has no timeout of its own; an import of one small layer takes a second.
		timeout 120 "$ctr" --address "$sock" -n k8s.io images import "$work/podsrc-agent-$m.tar" >"$work/import.log" 2>&1 ||
			die "importing $ref-kubelet1.${m#1} into the containerd at $sock failed: $(cat "$work/import.log")"
		log "imported $ref-kubelet1.${m#1} into $sock (namespace k8s.io)"
	done
done
echo "$ref"
