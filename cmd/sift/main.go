package main

import (
	"os"
	"runtime/debug"

	"github.com/nodesift/sift/inventory"
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
// never a failure. At a million nodes of the synthetic cluster's node file
// about 390 MiB are live once the index is built, so the collector runs back
// to back as the build ends; 380 bytes a node (426 MiB) cost 9% less CPU in
// sift match for the same peak, but raised sift inventory convert's peak
// from 402 to 431 MiB, as a command that makes garbage after the load peaks
// near the limit. Small inventories are left alone because their overshoot
// is small and their GC time matters more than their memory.
func limitMemory(n int) {
	if n < largeInventory || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(memoryBase + int64(n)*memoryPerNode)
}

// A node file of at least largeFile bytes is read with the collector off
// (pauseGC), within a memory limit of memoryBase plus fileFactor bytes a
// byte of it.
const (
	largeFile  = 32 << 20
	fileFactor = 4
)

// pauseGC turns the collector off while the inventory of spec is read, if it
// is a large sift node file in its common form (inventory.OpensAsNodeLines)
// and neither GOGC nor GOMEMLIMIT is set, and returns what turns it back on.
// The streaming reader of such a file makes next to no garbage (303 MiB
// allocated for 288 MiB live at a million nodes), so a collection during
// the read frees nothing; worse, the first one starts as the node slice is
// allocated and scans it while it is untouched, so each of its pages faults
// twice, read and then written (166 thousand page faults in a run instead
// of 122 thousand). Other readers make garbage and keep the collector. The
// limit is the backstop for a file the streaming reader declines after
// all, which the general reader then holds whole with its parse tree: a
// collection runs at the limit, as a soft limit does.
func pauseGC(spec inventory.Spec) (restore func()) {
	if spec.Synthetic || (spec.Format != "" && spec.Format != "sift-json") || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	st, err := os.Stat(spec.Path)
	if err != nil || !st.Mode().IsRegular() || st.Size() < largeFile || !inventory.OpensAsNodeLines(spec.Path) {
		return func() {}
	}
	paused := memoryBase + fileFactor*st.Size()
	limit := debug.SetMemoryLimit(paused)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		// Unless limitMemory has set a limit for the nodes meanwhile.
		if debug.SetMemoryLimit(-1) == paused {
			debug.SetMemoryLimit(limit)
		}
	}
}
