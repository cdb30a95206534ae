package vm

import "math/bits"

// Dense bitmap word operations. Slices are resliced to a common length first
// so the compiler drops the bounds checks in the loops.

func andWords(dst, src []uint64) {
	src = src[:len(dst)]
	i := 0
	// Four words a step: measured a little faster than one at 100k nodes.
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0] &= s[0]
		d[1] &= s[1]
		d[2] &= s[2]
		d[3] &= s[3]
	}
	for ; i < len(dst); i++ {
		dst[i] &= src[i]
	}
}

// and2Words intersects dst with a and b in one pass.
func and2Words(dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, x, y := dst[i:i+4:i+4], a[i:i+4:i+4], b[i:i+4:i+4]
		d[0] &= x[0] & y[0]
		d[1] &= x[1] & y[1]
		d[2] &= x[2] & y[2]
		d[3] &= x[3] & y[3]
	}
	for ; i < len(dst); i++ {
		dst[i] &= a[i] & b[i]
	}
}

// or2Words unites dst with a and b in one pass.
func or2Words(dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, x, y := dst[i:i+4:i+4], a[i:i+4:i+4], b[i:i+4:i+4]
		d[0] |= x[0] | y[0]
		d[1] |= x[1] | y[1]
		d[2] |= x[2] | y[2]
		d[3] |= x[3] | y[3]
	}
	for ; i < len(dst); i++ {
		dst[i] |= a[i] | b[i]
	}
}

func orWords(dst, src []uint64) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0] |= s[0]
		d[1] |= s[1]
		d[2] |= s[2]
		d[3] |= s[3]
	}
	for ; i < len(dst); i++ {
		dst[i] |= src[i]
	}
}

func andNotWords(dst, src []uint64) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0] &^= s[0]
		d[1] &^= s[1]
		d[2] &^= s[2]
		d[3] &^= s[3]
	}
	for ; i < len(dst); i++ {
		dst[i] &^= src[i]
	}
}

// notWords replaces dst with live &^ dst.
func notWords(dst, live []uint64) {
	live = live[:len(dst)]
	for i := range dst {
		dst[i] = live[i] &^ dst[i]
	}
}

func isEmpty(w []uint64) bool {
	for _, x := range w {
		if x != 0 {
			return false
		}
	}
	return true
}

func equalWords(a, b []uint64) bool {
	b = b[:len(a)]
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func popcount(w []uint64) int {
	n := 0
	for _, x := range w {
		n += bits.OnesCount64(x)
	}
	return n
}
