//go:build !unix

package sched

import "time"

// cpuTime is not measured here; the cpu-ms/op metric then reads 0.
func cpuTime() time.Duration { return 0 }
