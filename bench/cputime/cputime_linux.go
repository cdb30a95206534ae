package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the CPU time the calling OS thread has used; ok is false
// where the system cannot tell. Lock the goroutine to its thread
// (runtime.LockOSThread) around the span measured.
func Thread() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
