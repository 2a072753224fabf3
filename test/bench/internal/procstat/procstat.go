//go:build linux

// Package procstat reads a process's CPU time and resident memory from
// /proc, for the benchmarks under test/bench.
package procstat

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Mem is a process's resident memory from /proc/<pid>/status, in bytes.
type Mem struct {
	RSS, HWM, Anon, File int64
}

// ReadMem reads VmRSS, VmHWM, RssAnon and RssFile of pid (0 for this process).
func ReadMem(pid int) (Mem, error) {
	path := "/proc/self/status"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/status", pid)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Mem{}, fmt.Errorf("reading memory status: %w", err)
	}
	var m Mem
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM" && key != "RssAnon" && key != "RssFile") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return Mem{}, fmt.Errorf("%s: %s: %w", path, key, err)
		}
		switch key {
		case "VmRSS":
			m.RSS = kb << 10
		case "VmHWM":
			m.HWM = kb << 10
		case "RssAnon":
			m.Anon = kb << 10
		case "RssFile":
			m.File = kb << 10
		}
	}
	return m, nil
}

// SelfCPUTime is the user plus system CPU time of this process so far.
func SelfCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times; it is
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// CPUTime is the user plus system CPU time of another process.
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading CPU time: %w", err)
	}
	// The command name may hold spaces; the fields after it are fixed.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	// utime and stime are fields 14 and 15 of stat, 12 and 13 after ")".
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}
