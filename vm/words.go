package vm

import "math/bits"

// Dense bitmap word operations. Slices are resliced to a common length first
// so the compiler drops the bounds checks in the loops.

func andWords(dst, src []uint64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] &= src[i]
	}
}

func orWords(dst, src []uint64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] |= src[i]
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
