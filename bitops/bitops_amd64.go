package bitops

import "golang.org/x/sys/cpu"

// useAVX2 selects the vector loops; tests turn it off to run the Go loops
// over whole slices.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// vectorLoop is the signature every vector loop shares: it takes n 16-word
// blocks (128 bytes) from d and the operands a, b and c it reads (those it
// does not read are passed as d).
type vectorLoop func(d, a, b, c *uint64, n int)

//go:noescape
func andAVX2(d, a, b, c *uint64, n int)

//go:noescape
func and2AVX2(d, a, b, c *uint64, n int)

//go:noescape
func orAVX2(d, a, b, c *uint64, n int)

//go:noescape
func or2AVX2(d, a, b, c *uint64, n int)

//go:noescape
func andNotAVX2(d, a, b, c *uint64, n int)

//go:noescape
func notAVX2(d, a, b, c *uint64, n int)

//go:noescape
func diffAVX2(d, a, b, c *uint64, n int)

//go:noescape
func orDiffAVX2(d, a, b, c *uint64, n int)

//go:noescape
func unionDiffAVX2(d, a, b, c *uint64, n int)

//go:noescape
func countPOPCNT(w *uint64, n int) int

//go:noescape
func andAnyAVX2(d, a, b *uint64, n int) bool

//go:noescape
func andNotAnyAVX2(a, b, c *uint64, n int) bool

// vector runs loop over the whole 16-word blocks of d (a, b and c at least
// as long) and returns how many words it took: 0 without AVX2.
func vector(loop vectorLoop, d, a, b, c []uint64) int {
	n := len(d) >> 4
	if !useAVX2 || n == 0 {
		return 0
	}
	loop(&d[0], &a[0], &b[0], &c[0], n)
	return n << 4
}

func andBlocks(d, a []uint64) int               { return vector(andAVX2, d, a, d, d) }
func and2Blocks(d, a, b []uint64) int           { return vector(and2AVX2, d, a, b, d) }
func orBlocks(d, a []uint64) int                { return vector(orAVX2, d, a, d, d) }
func or2Blocks(d, a, b []uint64) int            { return vector(or2AVX2, d, a, b, d) }
func andNotBlocks(d, a []uint64) int            { return vector(andNotAVX2, d, a, d, d) }
func notBlocks(d, live []uint64) int            { return vector(notAVX2, d, live, d, d) }
func diffBlocks(d, hi, lo []uint64) int         { return vector(diffAVX2, d, hi, lo, d) }
func orDiffBlocks(d, hi, lo []uint64) int       { return vector(orDiffAVX2, d, hi, lo, d) }
func unionDiffBlocks(d, a, hi, lo []uint64) int { return vector(unionDiffAVX2, d, a, hi, lo) }

func andAnyBlocks(d, a, b []uint64) (any bool, done int) {
	n := len(d) >> 4
	if !useAVX2 || n == 0 {
		return false, 0
	}
	return andAnyAVX2(&d[0], &a[0], &b[0], n), n << 4
}

func andNotAnyBlocks(a, b, c []uint64) (any bool, done int) {
	n := len(a) >> 4
	if !useAVX2 || n == 0 {
		return false, 0
	}
	return andNotAnyAVX2(&a[0], &b[0], &c[0], n), n << 4
}

func countBlocks(w []uint64) (count, done int) {
	n := len(w) >> 4
	if !useAVX2 || n == 0 {
		return 0, 0
	}
	return countPOPCNT(&w[0], n), n << 4
}
