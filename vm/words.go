package vm

import "math/bits"

// Dense bitmap word operations. Slices are resliced to a common length first
// so the compiler drops the bounds checks in the loops.

func andWords(dst, src []uint64) {
	src = src[:len(dst)]
	i := 0
	// Eight words a step through array pointers: no bounds checks, about
	// twice as fast as one word a step at 100k nodes (Go does not
	// vectorize these loops).
	for ; i+8 <= len(dst); i += 8 {
		d, s := (*[8]uint64)(dst[i:]), (*[8]uint64)(src[i:])
		d[0] &= s[0]
		d[1] &= s[1]
		d[2] &= s[2]
		d[3] &= s[3]
		d[4] &= s[4]
		d[5] &= s[5]
		d[6] &= s[6]
		d[7] &= s[7]
	}
	for ; i < len(dst); i++ {
		dst[i] &= src[i]
	}
}

// and2Words intersects dst with a and b in one pass.
func and2Words(dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, x, y := (*[8]uint64)(dst[i:]), (*[8]uint64)(a[i:]), (*[8]uint64)(b[i:])
		d[0] &= x[0] & y[0]
		d[1] &= x[1] & y[1]
		d[2] &= x[2] & y[2]
		d[3] &= x[3] & y[3]
		d[4] &= x[4] & y[4]
		d[5] &= x[5] & y[5]
		d[6] &= x[6] & y[6]
		d[7] &= x[7] & y[7]
	}
	for ; i < len(dst); i++ {
		dst[i] &= a[i] & b[i]
	}
}

// or2Words unites dst with a and b in one pass.
func or2Words(dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, x, y := (*[8]uint64)(dst[i:]), (*[8]uint64)(a[i:]), (*[8]uint64)(b[i:])
		d[0] |= x[0] | y[0]
		d[1] |= x[1] | y[1]
		d[2] |= x[2] | y[2]
		d[3] |= x[3] | y[3]
		d[4] |= x[4] | y[4]
		d[5] |= x[5] | y[5]
		d[6] |= x[6] | y[6]
		d[7] |= x[7] | y[7]
	}
	for ; i < len(dst); i++ {
		dst[i] |= a[i] | b[i]
	}
}

func orWords(dst, src []uint64) {
	src = src[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, s := (*[8]uint64)(dst[i:]), (*[8]uint64)(src[i:])
		d[0] |= s[0]
		d[1] |= s[1]
		d[2] |= s[2]
		d[3] |= s[3]
		d[4] |= s[4]
		d[5] |= s[5]
		d[6] |= s[6]
		d[7] |= s[7]
	}
	for ; i < len(dst); i++ {
		dst[i] |= src[i]
	}
}

func andNotWords(dst, src []uint64) {
	src = src[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, s := (*[8]uint64)(dst[i:]), (*[8]uint64)(src[i:])
		d[0] &^= s[0]
		d[1] &^= s[1]
		d[2] &^= s[2]
		d[3] &^= s[3]
		d[4] &^= s[4]
		d[5] &^= s[5]
		d[6] &^= s[6]
		d[7] &^= s[7]
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
