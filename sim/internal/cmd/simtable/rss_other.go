//go:build !unix

package main

import "os"

// peakKB is 0 where getrusage is not available.
func peakKB(*os.ProcessState) int64 { return 0 }
