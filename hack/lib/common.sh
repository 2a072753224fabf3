#!/usr/bin/env bash
# common.sh: what every script in hack/ shares: log lines and fatal errors
# that carry the script's name ("cluster: ...", "image: error: ..."), the
# root check, the usage text, and the one way to the running test cluster's
# env file, which honours PODSRC_RUN_DIR as hack/cluster.sh does. Sourced.

LOG_NAME=$(basename "$0" .sh)

# log MESSAGE... writes a line to standard error.
log() { echo "$LOG_NAME: $*" >&2; }

# die MESSAGE... writes an error to standard error and exits 1.
die() {
	echo "$LOG_NAME: error: $*" >&2
	exit 1
}

# require_root WHY dies unless the script runs as root; WHY says what needs it.
require_root() {
	((EUID == 0)) || die "must run as root ($1)"
}

# usage prints the script's header comment, up to `set -euo pipefail`, and
# exits 2.
usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

# cluster_run_dir prints where the test cluster keeps its state while it
# runs: $PODSRC_RUN_DIR, by default /run/podsrc-cluster.
cluster_run_dir() { echo "${PODSRC_RUN_DIR:-/run/podsrc-cluster}"; }

# cluster_env_file prints the path of the running cluster's env file, its
# description as KEY=value lines (hack/README.md lists the keys).
cluster_env_file() { echo "$(cluster_run_dir)/env"; }

# cluster_env KEY prints KEY's value from the env file; nothing when no
# cluster runs or the key is missing.
cluster_env() { sed -n "s/^$1=//p" "$(cluster_env_file)" 2>/dev/null || true; }

# load_cluster_env sets the env file's variables in the calling shell, or
# dies naming the file when no cluster runs.
load_cluster_env() {
	local file
	file=$(cluster_env_file)
	[[ -f $file ]] || die "no $file: is the test cluster up? (sudo hack/cluster.sh up)"
	# shellcheck disable=SC1090 # written by hack/cluster.sh
	. "$file"
}
