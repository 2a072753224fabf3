#!/usr/bin/env bash
# image.sh builds the podsrc-agent image without a registry or a container
# engine and imports it into the test cluster's containerd, where pods use it
# with imagePullPolicy: Never. Run as root, with the cluster up.
#
#   hack/image.sh            build, import, print the image reference
#   hack/image.sh -o FILE    build and write the archive to FILE only
#
# The binary is built as the Makefile builds it (-trimpath, version ldflags),
# but static (CGO_ENABLED=0): the image holds nothing else. The tag is the
# binary's content hash, so a changed agent is a changed DaemonSet spec and
# rolls out, and an unchanged one does not. The last line of the output is the
# image reference.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ENV_FILE=${PODSRC_ENV_FILE:-/run/podsrc-cluster/env}
IMAGE_NAME=${PODSRC_AGENT_IMAGE_NAME:-podsrc.local/podsrc-agent}
VERSION=${VERSION:-$(git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)}

log() { echo "image: $*" >&2; }
die() {
	echo "image: error: $*" >&2
	exit 1
}

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

log "building podsrc-agent $VERSION (static)"
(cd "$ROOT/cmd/podsrc-agent" &&
	CGO_ENABLED=0 go build -trimpath -tags grpcnotrace \
		-ldflags "-s -w -X github.com/podsrc/podsrc/internal/version.Version=$VERSION" \
		-o "$work/podsrc-agent" .) || die "go build of cmd/podsrc-agent failed"

tag=$(sha256sum "$work/podsrc-agent" | cut -c1-12)
ref=$IMAGE_NAME:$tag

# mkimage: the copy hack/cluster.sh built, or build it now.
mkimage=
if [[ -f $ENV_FILE ]]; then
	image_dir=$(sed -n 's/^IMAGE_DIR=//p' "$ENV_FILE")
	[[ -n $image_dir && -x $image_dir/mkimage ]] && mkimage=$image_dir/mkimage
fi
if [[ -z $mkimage ]]; then
	(cd "$ROOT/hack/tools/k8s" && CGO_ENABLED=0 go build -o "$work/mkimage" ./cmd/mkimage) ||
		die "building hack/tools/k8s/cmd/mkimage failed"
	mkimage=$work/mkimage
fi

archive=${out_file:-$work/podsrc-agent.tar}
"$mkimage" -bin "$work/podsrc-agent" -path /usr/local/bin/podsrc-agent -name "$ref" -o "$archive" ||
	die "packing $ref failed"
log "packed $ref"

if [[ -n $out_file ]]; then
	echo "$ref"
	exit 0
fi

[[ -f $ENV_FILE ]] || die "no $ENV_FILE: is the test cluster up? (sudo hack/cluster.sh up)"
ctr=$(sed -n 's/^CTR=//p' "$ENV_FILE")
sock=$(sed -n 's/^CONTAINERD_SOCKET=//p' "$ENV_FILE")
[[ -x $ctr && -S $sock ]] || die "ctr ($ctr) or the containerd socket ($sock) from $ENV_FILE is missing"
# ctr has no timeout of its own; an import of one small layer takes a second.
timeout 120 "$ctr" --address "$sock" -n k8s.io images import "$archive" >"$work/import.log" 2>&1 ||
	die "importing $ref into the cluster's containerd failed: $(cat "$work/import.log")"
log "imported $ref into $sock (namespace k8s.io)"
echo "$ref"
