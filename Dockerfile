# The podsrc-agent image for kubelet v1.37 nodes, for users
# (manifests/daemonset.yaml runs it):
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) \
#       -t <your registry>/podsrc-agent:<tag>-kubelet1.37 .
#
# kubectl podsrc deploy --image=<your registry>/podsrc-agent:<tag> runs it on
# v1.37 nodes, and <tag>-kubelet1.N on v1.N nodes: each minor's agent is the
# module cmd/podsrc-agent/kubelet13N (make build-agents, hack/image.sh, make
# dist).
#
# Build from the root of the repository: the agent's module
# (cmd/podsrc-agent/kubelet137) replaces the root module and the shared static
# pod decoding (pkg/staticpod/internalpod) with their directories here. The tests build the same binary without a container
# engine: hack/image.sh.

FROM golang:1.26 AS build
WORKDIR /src
# The three modules' dependencies first, so that a source change does not
# download them again.
COPY go.mod go.sum ./
COPY pkg/staticpod/internalpod/go.mod pkg/staticpod/internalpod/go.sum ./pkg/staticpod/internalpod/
COPY cmd/podsrc-agent/kubelet137/go.mod cmd/podsrc-agent/kubelet137/go.sum ./cmd/podsrc-agent/kubelet137/
RUN cd cmd/podsrc-agent/kubelet137 && go mod download
COPY . .
ARG VERSION=v0.0.0-dev
# Static (no cgo): the final image has no C library. Otherwise as the
# Makefile builds it, grpcnotrace included.
RUN cd cmd/podsrc-agent/kubelet137 && CGO_ENABLED=0 go build -trimpath -tags grpcnotrace \
      -ldflags "-s -w -X github.com/podsrc/podsrc/internal/version.Version=${VERSION}" \
      -o /out/podsrc-agent .

# Nothing but the agent: it needs no shell, no C library and no CA bundle of
# its own (the in-cluster configuration brings the cluster's CA).
FROM scratch
COPY --from=build /out/podsrc-agent /usr/local/bin/podsrc-agent
# Root, because the CRI socket and the static pod manifests are root-only on
# a kubeadm node; the DaemonSet drops every capability, forbids privilege
# escalation and mounts the root file system read-only (see its comments).
USER 0:0
ENTRYPOINT ["/usr/local/bin/podsrc-agent"]
