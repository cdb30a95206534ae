package bitops

import (
	"math/bits"
	"unsafe"
)

// The exported kernels: each reslices its operands to len(d) first (an
// operand shorter than d panics, as an index would), hands whole 16-word
// blocks to the vector loop when there is one, and runs the Go loop over the
// rest. The Go loops take eight words a step through array pointers: without
// bounds checks they are about twice as fast as a word at a time.

// And sets d to d & a.
func And(d, a []uint64) {
	a = a[:len(d)]
	i := andBlocks(d, a)
	andGo(d[i:], a[i:])
}

// And2 sets d to d & a & b.
func And2(d, a, b []uint64) {
	a, b = a[:len(d)], b[:len(d)]
	i := and2Blocks(d, a, b)
	and2Go(d[i:], a[i:], b[i:])
}

// AndAny sets d to a & b and reports whether d has a member. Its Go loop
// takes a word a step: with the test for a member, that beats eight.
func AndAny(d, a, b []uint64) bool {
	a, b = a[:len(d)], b[:len(d)]
	any, i := andAnyBlocks(d, a, b)
	var x uint64
	for ; i < len(d); i++ {
		d[i] = a[i] & b[i]
		x |= d[i]
	}
	return any || x != 0
}

// AndNotAny reports whether a & b &^ c has a member (b and c at least as
// long as a), stopping at the first it finds.
func AndNotAny(a, b, c []uint64) bool {
	b, c = b[:len(a)], c[:len(a)]
	any, i := andNotAnyBlocks(a, b, c)
	if any {
		return true
	}
	for ; i < len(a); i++ {
		if a[i]&b[i]&^c[i] != 0 {
			return true
		}
	}
	return false
}

// Or sets d to d | a.
func Or(d, a []uint64) {
	a = a[:len(d)]
	i := orBlocks(d, a)
	orGo(d[i:], a[i:])
}

// Or2 sets d to d | a | b.
func Or2(d, a, b []uint64) {
	a, b = a[:len(d)], b[:len(d)]
	i := or2Blocks(d, a, b)
	or2Go(d[i:], a[i:], b[i:])
}

// AndNot sets d to d &^ a: the members of d that a lacks.
func AndNot(d, a []uint64) {
	a = a[:len(d)]
	i := andNotBlocks(d, a)
	andNotGo(d[i:], a[i:])
}

// Not sets d to live &^ d: the members of live that d lacks.
func Not(d, live []uint64) {
	live = live[:len(d)]
	i := notBlocks(d, live)
	notGo(d[i:], live[i:])
}

// Diff sets d to hi &^ lo: the members of hi that lo lacks.
func Diff(d, hi, lo []uint64) {
	hi, lo = hi[:len(d)], lo[:len(d)]
	i := diffBlocks(d, hi, lo)
	diffGo(d[i:], hi[i:], lo[i:])
}

// OrDiff sets d to d | hi &^ lo.
func OrDiff(d, hi, lo []uint64) {
	hi, lo = hi[:len(d)], lo[:len(d)]
	i := orDiffBlocks(d, hi, lo)
	orDiffGo(d[i:], hi[i:], lo[i:])
}

// UnionDiff sets d to a | hi &^ lo (the two spans of a != leaf in one pass).
func UnionDiff(d, a, hi, lo []uint64) {
	a, hi, lo = a[:len(d)], hi[:len(d)], lo[:len(d)]
	i := unionDiffBlocks(d, a, hi, lo)
	unionDiffGo(d[i:], a[i:], hi[i:], lo[i:])
}

// Count returns the number of set bits in w.
func Count(w []uint64) int {
	n, i := countBlocks(w)
	for _, x := range w[i:] {
		n += bits.OnesCount64(x)
	}
	return n
}

// Window returns the range [lo, hi) of w outside which every word is zero:
// w[lo] and w[hi-1] are not, and (0, 0) stands for all zero. It tests eight
// words a step, as a leaf or an and leaves long zero runs at either end.
func Window(w []uint64) (lo, hi int) {
	for lo+8 <= len(w) {
		x := (*[8]uint64)(w[lo:])
		if x[0]|x[1]|x[2]|x[3]|x[4]|x[5]|x[6]|x[7] != 0 {
			break
		}
		lo += 8
	}
	for lo < len(w) && w[lo] == 0 {
		lo++
	}
	if lo == len(w) {
		return 0, 0
	}
	hi = len(w)
	for hi-8 > lo {
		x := (*[8]uint64)(w[hi-8:])
		if x[0]|x[1]|x[2]|x[3]|x[4]|x[5]|x[6]|x[7] != 0 {
			break
		}
		hi -= 8
	}
	for w[hi-1] == 0 {
		hi--
	}
	return lo, hi
}

// Equal reports whether a and b hold the same words (b at least as long as
// a; its words past len(a) are not read).
func Equal(a, b []uint64) bool {
	b = b[:len(a)]
	// As strings the words compare through the runtime's memequal, whose
	// vector loop is several times faster than a word at a time on the
	// slot map's 87-word sets (CEA-Curie).
	return bytesOf(a) == bytesOf(b)
}

// bytesOf is w's memory as a string, without a copy; w must not change
// while the string is in use.
func bytesOf(w []uint64) string {
	return unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)
}

func andGo(d, a []uint64) {
	a = a[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, y := (*[8]uint64)(d[i:]), (*[8]uint64)(a[i:])
		x[0] &= y[0]
		x[1] &= y[1]
		x[2] &= y[2]
		x[3] &= y[3]
		x[4] &= y[4]
		x[5] &= y[5]
		x[6] &= y[6]
		x[7] &= y[7]
	}
	for ; i < len(d); i++ {
		d[i] &= a[i]
	}
}

func and2Go(d, a, b []uint64) {
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, y, z := (*[8]uint64)(d[i:]), (*[8]uint64)(a[i:]), (*[8]uint64)(b[i:])
		x[0] &= y[0] & z[0]
		x[1] &= y[1] & z[1]
		x[2] &= y[2] & z[2]
		x[3] &= y[3] & z[3]
		x[4] &= y[4] & z[4]
		x[5] &= y[5] & z[5]
		x[6] &= y[6] & z[6]
		x[7] &= y[7] & z[7]
	}
	for ; i < len(d); i++ {
		d[i] &= a[i] & b[i]
	}
}

func orGo(d, a []uint64) {
	a = a[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, y := (*[8]uint64)(d[i:]), (*[8]uint64)(a[i:])
		x[0] |= y[0]
		x[1] |= y[1]
		x[2] |= y[2]
		x[3] |= y[3]
		x[4] |= y[4]
		x[5] |= y[5]
		x[6] |= y[6]
		x[7] |= y[7]
	}
	for ; i < len(d); i++ {
		d[i] |= a[i]
	}
}

func or2Go(d, a, b []uint64) {
	a, b = a[:len(d)], b[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, y, z := (*[8]uint64)(d[i:]), (*[8]uint64)(a[i:]), (*[8]uint64)(b[i:])
		x[0] |= y[0] | z[0]
		x[1] |= y[1] | z[1]
		x[2] |= y[2] | z[2]
		x[3] |= y[3] | z[3]
		x[4] |= y[4] | z[4]
		x[5] |= y[5] | z[5]
		x[6] |= y[6] | z[6]
		x[7] |= y[7] | z[7]
	}
	for ; i < len(d); i++ {
		d[i] |= a[i] | b[i]
	}
}

func andNotGo(d, a []uint64) {
	a = a[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, y := (*[8]uint64)(d[i:]), (*[8]uint64)(a[i:])
		x[0] &^= y[0]
		x[1] &^= y[1]
		x[2] &^= y[2]
		x[3] &^= y[3]
		x[4] &^= y[4]
		x[5] &^= y[5]
		x[6] &^= y[6]
		x[7] &^= y[7]
	}
	for ; i < len(d); i++ {
		d[i] &^= a[i]
	}
}

func notGo(d, live []uint64) {
	live = live[:len(d)]
	for i := range d {
		d[i] = live[i] &^ d[i]
	}
}

func diffGo(d, hi, lo []uint64) {
	hi, lo = hi[:len(d)], lo[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, h, l := (*[8]uint64)(d[i:]), (*[8]uint64)(hi[i:]), (*[8]uint64)(lo[i:])
		x[0] = h[0] &^ l[0]
		x[1] = h[1] &^ l[1]
		x[2] = h[2] &^ l[2]
		x[3] = h[3] &^ l[3]
		x[4] = h[4] &^ l[4]
		x[5] = h[5] &^ l[5]
		x[6] = h[6] &^ l[6]
		x[7] = h[7] &^ l[7]
	}
	for ; i < len(d); i++ {
		d[i] = hi[i] &^ lo[i]
	}
}

func orDiffGo(d, hi, lo []uint64) {
	hi, lo = hi[:len(d)], lo[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, h, l := (*[8]uint64)(d[i:]), (*[8]uint64)(hi[i:]), (*[8]uint64)(lo[i:])
		x[0] |= h[0] &^ l[0]
		x[1] |= h[1] &^ l[1]
		x[2] |= h[2] &^ l[2]
		x[3] |= h[3] &^ l[3]
		x[4] |= h[4] &^ l[4]
		x[5] |= h[5] &^ l[5]
		x[6] |= h[6] &^ l[6]
		x[7] |= h[7] &^ l[7]
	}
	for ; i < len(d); i++ {
		d[i] |= hi[i] &^ lo[i]
	}
}

func unionDiffGo(d, a, hi, lo []uint64) {
	a, hi, lo = a[:len(d)], hi[:len(d)], lo[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		x, y, h, l := (*[8]uint64)(d[i:]), (*[8]uint64)(a[i:]), (*[8]uint64)(hi[i:]), (*[8]uint64)(lo[i:])
		x[0] = y[0] | h[0]&^l[0]
		x[1] = y[1] | h[1]&^l[1]
		x[2] = y[2] | h[2]&^l[2]
		x[3] = y[3] | h[3]&^l[3]
		x[4] = y[4] | h[4]&^l[4]
		x[5] = y[5] | h[5]&^l[5]
		x[6] = y[6] | h[6]&^l[6]
		x[7] = y[7] | h[7]&^l[7]
	}
	for ; i < len(d); i++ {
		d[i] = a[i] | hi[i]&^lo[i]
	}
}
