package main

import (
	"os"
	"runtime/debug"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Inventories of at least largeInventory nodes get a soft memory limit of
// memoryBase plus memoryPerNode bytes a node.
const (
	largeInventory = 200_000
	memoryBase     = 64 << 20
	memoryPerNode  = 360
)

// limitMemory sets a soft memory limit sized to an inventory of n nodes,
// unless GOMEMLIMIT is set or the inventory is small. sift holds its
// inventory (about 290 bytes a node on the synthetic cluster) and builds its
// index (about 110 bytes a node) at once, and by default the collector lets
// the heap grow to twice what was live at its last cycle: at a million nodes
// that overshoot, not live data, is what pushes the peak RSS past the 500 MB
// budget. The limit makes the collector run a little more often near the
// end of the build instead. It is soft: an inventory whose live data exceeds
// it costs collector time (the runtime caps that at about half the CPU),
// never a failure (the streaming node-file reader makes a million nodes as
// compact as the synthetic cluster's: both peak at about 436 MiB). Small
// inventories are left alone because their overshoot
// is small and their GC time matters more than their memory.
func limitMemory(n int) {
	if n < largeInventory || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(memoryBase + int64(n)*memoryPerNode)
}
