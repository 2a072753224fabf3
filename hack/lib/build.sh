#!/usr/bin/env bash
# build.sh: functions that build the test cluster's binaries and images into
# a cache keyed by version and by the hash of the inputs, so a second build is
# a few look-ups. Sourced by lib/cluster.sh; expects HACK_DIR and CACHE_DIR.

K8S_VERSION=v1.37.2
ETCD_VERSION=v3.6.8
CONTAINERD_VERSION=v2.4.2

# inputs_hash prints a short hash of the named files' contents.
inputs_hash() {
	cat "$@" | sha256sum | cut -c1-12
}

# cache_build DIR FUNC: runs FUNC TMPDIR unless DIR exists, then moves the
# result into place atomically.
cache_build() {
	local dir=$1 fn=$2
	if [[ -f "$dir/.complete" ]]; then
		return 0
	fi
	local tmp="$dir.tmp.$$" stale
	# A build killed before its end leaves its directory behind: remove
	# those whose process is gone.
	for stale in "$dir".tmp.*; do
		if [[ -d $stale ]] && ! kill -0 "${stale##*.}" 2>/dev/null; then
			rm -rf "$stale"
		fi
	done
	rm -rf "$tmp"
	mkdir -p "$tmp"
	if ! "$fn" "$tmp"; then
		rm -rf "$tmp"
		echo "build: $fn failed" >&2
		return 1
	fi
	touch "$tmp/.complete"
	rm -rf "$dir"
	mv "$tmp" "$dir"
}

k8s_dir() {
	local mod="$HACK_DIR/tools/k8s"
	echo "$CACHE_DIR/k8s-$K8S_VERSION-$(inputs_hash "$mod/go.mod" "$mod/go.sum")"
}

build_k8s_into() {
	local out=$1 v=k8s.io/component-base/version
	local major=${K8S_VERSION#v}
	local minor=${major#*.}
	major=${major%%.*}
	minor=${minor%%.*}
	echo "build: Kubernetes $K8S_VERSION (cold: several minutes)" >&2
	(cd "$HACK_DIR/tools/k8s" && CGO_ENABLED=0 go build -trimpath \
		-ldflags "-s -w -X $v.gitVersion=$K8S_VERSION -X $v.gitMajor=$major -X $v.gitMinor=$minor -X $v.gitTreeState=clean" \
		-o "$out/" \
		k8s.io/kubernetes/cmd/kube-apiserver \
		k8s.io/kubernetes/cmd/kube-controller-manager \
		k8s.io/kubernetes/cmd/kube-scheduler \
		k8s.io/kubernetes/cmd/kubelet \
		k8s.io/kubernetes/cmd/kubectl)
}

# kubelet_module VERSION prints the tools module that builds kubelet VERSION
# when it is not the cluster's own (hack/tools/kubelet1NN, requiring
# k8s.io/kubernetes VERSION), or fails.
kubelet_module() {
	local v=$1 minor mod
	minor=${v#v1.}
	minor=${minor%%.*}
	mod=$HACK_DIR/tools/kubelet1$minor
	[[ -f $mod/go.mod ]] && grep -qE "^\s*k8s.io/kubernetes $v( |$)" "$mod/go.mod" || return 1
	echo "$mod"
}

kubelet_dir() {
	local mod
	mod=$(kubelet_module "$1") || return 1
	echo "$CACHE_DIR/kubelet-$1-$(inputs_hash "$mod/go.mod" "$mod/go.sum")"
}

# build_kubelet_into OUT builds the kubelet of KUBELET_BUILD_VERSION, as
# build_k8s_into builds the cluster's.
build_kubelet_into() {
	local out=$1 v=k8s.io/component-base/version mod minor
	mod=$(kubelet_module "$KUBELET_BUILD_VERSION") || return 1
	minor=${KUBELET_BUILD_VERSION#v1.}
	minor=${minor%%.*}
	echo "build: kubelet $KUBELET_BUILD_VERSION (cold: several minutes)" >&2
	(cd "$mod" && CGO_ENABLED=0 go build -trimpath \
		-ldflags "-s -w -X $v.gitVersion=$KUBELET_BUILD_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean" \
		-o "$out/" k8s.io/kubernetes/cmd/kubelet)
}

# build_kubelet VERSION builds (cached) the kubelet VERSION: build_all
# builds the second node's, restart-kubelet VERSION any other.
build_kubelet() {
	mkdir -p "$CACHE_DIR"
	exec {build_lock}>"$CACHE_DIR/.build.lock"
	flock "$build_lock"
	KUBELET_BUILD_VERSION=$1 cache_build "$(kubelet_dir "$1")" build_kubelet_into
	flock -u "$build_lock"
	exec {build_lock}>&-
}

etcd_dir() {
	local mod="$HACK_DIR/tools/etcd"
	echo "$CACHE_DIR/etcd-$ETCD_VERSION-$(inputs_hash "$mod/go.mod" "$mod/go.sum")"
}

build_etcd_into() {
	echo "build: etcd $ETCD_VERSION" >&2
	(cd "$HACK_DIR/tools/etcd" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" \
		-o "$1/etcd" go.etcd.io/etcd/server/v3)
}

containerd_dir() {
	echo "$CACHE_DIR/containerd-$CONTAINERD_VERSION"
}

build_containerd_into() {
	echo "build: containerd $CONTAINERD_VERSION" >&2
	local m=github.com/containerd/containerd/v2/cmd
	CGO_ENABLED=0 GOBIN="$1" go install -trimpath -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
		"$m/containerd@$CONTAINERD_VERSION" \
		"$m/containerd-shim-runc-v2@$CONTAINERD_VERSION" \
		"$m/ctr@$CONTAINERD_VERSION"
}

images_dir() {
	local c="$HACK_DIR/tools/k8s/cmd"
	echo "$CACHE_DIR/images-$(inputs_hash "$c/pause/main.go" "$c/testimg/main.go" "$c/mkimage/main.go" "$c/crireset/main.go")"
}

build_images_into() {
	local out=$1
	echo "build: images $PAUSE_IMAGE $TEST_IMAGE" >&2
	(
		cd "$HACK_DIR/tools/k8s" || exit 1
		CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/" ./cmd/pause ./cmd/testimg ./cmd/mkimage ./cmd/crireset
		"$out/mkimage" -bin "$out/pause" -name "$PAUSE_IMAGE" -o "$out/pause.tar"
		"$out/mkimage" -bin "$out/testimg" -name "$TEST_IMAGE" -o "$out/testimg.tar"
	)
}

# all_built succeeds when everything build_all builds is in the cache.
all_built() {
	local d
	for d in "$(k8s_dir)" "$(etcd_dir)" "$(containerd_dir)" "$(images_dir)" "$(kubelet_dir "$NODE2_KUBELET_VERSION")"; do
		[[ -f $d/.complete ]] || return 1
	done
}

# build_all builds everything `up` needs; concurrent callers wait on a lock.
build_all() {
	mkdir -p "$CACHE_DIR"
	exec {build_lock}>"$CACHE_DIR/.build.lock"
	flock "$build_lock"
	cache_build "$(k8s_dir)" build_k8s_into
	cache_build "$(etcd_dir)" build_etcd_into
	cache_build "$(containerd_dir)" build_containerd_into
	cache_build "$(images_dir)" build_images_into
	KUBELET_BUILD_VERSION=$NODE2_KUBELET_VERSION cache_build "$(kubelet_dir "$NODE2_KUBELET_VERSION")" build_kubelet_into
	flock -u "$build_lock"
	exec {build_lock}>&-
}
