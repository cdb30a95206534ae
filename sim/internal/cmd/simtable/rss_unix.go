//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakKB is the finished process's peak resident memory in KiB (getrusage's
// ru_maxrss: KiB on Linux, bytes on Darwin).
func peakKB(st *os.ProcessState) int64 {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss / 1024
	}
	return ru.Maxrss
}
