#!/usr/bin/env bash
# proc.sh: the process supervisor of the scripts in hack/. spawn starts a
# daemon of the test cluster detached, in its own session, and records its
# PID and start time in PID_DIR; pid_of, running, stop and wait_until find,
# stop and await it by that record, never by name (they expect PID_DIR,
# WAIT_START and WAIT_STOP: lib/cluster.sh). stop_child stops a benchmark's own
# child by its PID. Sourced; expects common.sh.

# proc_state PID prints the process state letter, or nothing if it is gone.
proc_state() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	echo "${stat%% *}"
}

# proc_start_time PID prints the process start time in clock ticks.
proc_start_time() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	awk '{print $20}' <<<"$stat"
}

# alive PID: true if the process exists and is not a zombie.
alive() {
	local s
	s=$(proc_state "$1")
	[[ -n "$s" && "$s" != Z && "$s" != X ]]
}

# spawn NAME LOG CMD...: starts CMD in its own session with output appended
# to LOG, and records "PID STARTTIME" in the pid file of NAME.
spawn() {
	local name=$1 logfile=$2
	shift 2
	mkdir -p "$PID_DIR" "$(dirname "$logfile")"
	echo "=== $(date -Is) starting: $*" >>"$logfile"
	# The daemon must inherit no descriptor but its standard ones: neither
	# this script's lock nor a caller's (flock LOCKFILE hack/cluster.sh up
	# passes its lock on), or it would hold that lock for as long as it
	# runs.
	(
		for fd in /proc/"$BASHPID"/fd/*; do
			fd=${fd##*/}
			((fd > 2)) && eval "exec $fd>&-"
		done
		exec setsid "$@" >>"$logfile" 2>&1 </dev/null
	) &
	local pid=$!
	echo "$pid $(proc_start_time "$pid")" >"$PID_DIR/$name.pid"
}

# pid_of NAME prints the PID of a running component started by spawn, or
# nothing if it is not running (or the PID now belongs to another process).
pid_of() {
	local f=$PID_DIR/$1.pid pid start
	[[ -f "$f" ]] || return 0
	read -r pid start <"$f" || return 0
	if alive "$pid" && [[ "$(proc_start_time "$pid")" == "$start" ]]; then
		echo "$pid"
	fi
}

running() { [[ -n "$(pid_of "$1")" ]]; }

# wait_gone PID TIMEOUT: waits until the process is gone or a zombie.
wait_gone() {
	local pid=$1 deadline=$((SECONDS + $2))
	while alive "$pid"; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

# stop NAME: SIGTERM, then SIGKILL after WAIT_STOP seconds.
stop() {
	local name=$1 pid
	pid=$(pid_of "$name")
	if [[ -n "$pid" ]]; then
		kill -TERM "$pid" 2>/dev/null || true
		if ! wait_gone "$pid" "$WAIT_STOP"; then
			log "$name (pid $pid) ignored SIGTERM for ${WAIT_STOP}s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
			wait_gone "$pid" 10 || die "$name (pid $pid) does not die"
		fi
	fi
	rm -f "$PID_DIR/$name.pid"
}

# wait_until WHAT NAME LOGFILE CMD...: polls CMD until it succeeds, failing
# with a message naming the component and its log when the component exits
# or WAIT_START seconds pass.
wait_until() {
	local what=$1 name=$2 logfile=$3
	shift 3
	local deadline=$((SECONDS + WAIT_START))
	until "$@" >/dev/null 2>&1; do
		if [[ -n "$name" ]] && ! running "$name"; then
			tail -n 20 "$logfile" >&2 || true
			die "$name exited while waiting for $what; see $logfile"
		fi
		if ((SECONDS >= deadline)); then
			tail -n 20 "$logfile" >&2 || true
			die "timed out after ${WAIT_START}s waiting for $what; see $logfile"
		fi
		sleep 0.2
	done
}

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
