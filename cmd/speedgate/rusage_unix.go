//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSKiB is the peak resident set size of the exited process, in KiB
// (getrusage's ru_maxrss: KiB on Linux, bytes on macOS).
func peakRSSKiB(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
