#!/usr/bin/env bash
# child.sh: stopping a benchmark's child process by its PID. Sourced.

# stop_child PID TENTHS: SIGTERM (the programs clean up on it), up to TENTHS
# tenths of a second to exit, then SIGKILL; reaps it. No PID, or a process
# already gone, is fine.
stop_child() {
	local pid=$1 tenths=$2
	if [[ -z "$pid" ]] || ! kill -0 "$pid" 2>/dev/null; then
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 1 "$tenths"); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
