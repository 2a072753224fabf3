#!/usr/bin/env bash
# install-deps.sh installs the Debian packages `make test` needs besides Go:
# make and git (the Makefile's targets and lint), gcc and libc6-dev (cgo, which
# go test -race needs), and for the test cluster runc, the CNI plugins,
# iproute2, util-linux (nsenter, unshare, flock), openssl and curl; kubectl
# only when none is on PATH. It runs apt-get update only when a package is
# missing, so a second run is a quick no-op. Run it as root.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=hack/lib/common.sh
source "$HACK_DIR/lib/common.sh"

need=()
have_pkg() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
for pkg in make git gcc libc6-dev runc containernetworking-plugins iproute2 util-linux openssl curl; do
	have_pkg "$pkg" || need+=("$pkg")
done
if ! command -v kubectl >/dev/null 2>&1; then
	need+=(kubernetes-client)
fi

if ((${#need[@]} == 0)); then
	log "everything present"
	exit 0
fi
((EUID == 0)) || die "missing ${need[*]}; run as root to install them"
log "installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
log "done"
