#!/usr/bin/env bash
# new-minor.sh registers a new kubelet minor podsrc reproduces: its agent
# module (cmd/podsrc-agent/kubelet1NN, from the newest one) and every place
# that lists minors (hack/newminor; go test ./internal/minorsites checks them).
#
#   hack/new-minor.sh 1.38                    # links the newest v1.38.x release
#   hack/new-minor.sh 1.38 --version v1.38.1
#
# What it cannot do: docs/development.md, "A new kubelet minor".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
exec go run ./hack/newminor --root "$ROOT" "$@"
