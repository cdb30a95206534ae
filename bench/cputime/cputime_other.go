//go:build !linux

package cputime

import "time"

// Thread returns the CPU time the calling OS thread has used; ok is false
// where the system cannot tell, as here.
func Thread() (d time.Duration, ok bool) { return 0, false }
