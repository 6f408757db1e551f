package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTime is the CPU time process pid has used so far (user and system),
// from /proc/PID/stat: fields 14 and 15, in clock ticks of 1/100 s.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	var ticks int64
	for _, x := range f[11:13] { // utime, stime: fields 14 and 15 of the line
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// waitWorked waits until process pid has used at least d of CPU time: a
// wait bounded by the process' progress, not by the wall clock, so that a
// loaded machine only makes it longer. It fails the test if the process
// ends first or has not got there within the named limit of 5 minutes.
func waitWorked(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	const limit = 5 * time.Minute
	for start := time.Now(); time.Since(start) < limit; time.Sleep(20 * time.Millisecond) {
		used, err := cpuTime(pid)
		if err != nil {
			t.Fatalf("process %d ended before it had worked %v: %v", pid, d, err)
		}
		if used >= d {
			return
		}
	}
	t.Fatalf("process %d had not worked %v of CPU time after %v", pid, d, limit)
}

func TestCPUTime(t *testing.T) {
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for start := time.Now(); time.Since(start) < 300*time.Millisecond; x++ {
	}
	after, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("CPU time %v after %d iterations of a busy loop, %v before", after, x, before)
	}
	if _, err := cpuTime(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
