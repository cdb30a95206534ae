//go:build !amd64

package bitops

// Without a vector loop every kernel runs its Go loop over the whole slice.

var useAVX2 = false

func andBlocks(d, a []uint64) int                  { return 0 }
func and2Blocks(d, a, b []uint64) int              { return 0 }
func orBlocks(d, a []uint64) int                   { return 0 }
func or2Blocks(d, a, b []uint64) int               { return 0 }
func andNotBlocks(d, a []uint64) int               { return 0 }
func notBlocks(d, live []uint64) int               { return 0 }
func diffBlocks(d, hi, lo []uint64) int            { return 0 }
func orDiffBlocks(d, hi, lo []uint64) int          { return 0 }
func unionDiffBlocks(d, a, hi, lo []uint64) int    { return 0 }
func countBlocks(w []uint64) (n, done int)         { return 0, 0 }
func andAnyBlocks(d, a, b []uint64) (bool, int)    { return false, 0 }
func andNotAnyBlocks(a, b, c []uint64) (bool, int) { return false, 0 }
