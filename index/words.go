package index

import "github.com/nodesift/sift/bitops"

// The word kernels: bit operations on dense []uint64 node sets, where node
// id is bit id&63 of word id>>6. Every leaf writes its answer this way;
// the passes over whole word arrays are package bitops' kernels.

// setRun sets the bits of ids lo..hi inclusive.
func setRun(dst []uint64, lo, hi uint32) {
	wl, wh := lo>>6, hi>>6
	first, last := ^uint64(0)<<(lo&63), ^uint64(0)>>(63-hi&63)
	if wl == wh {
		dst[wl] |= first & last
		return
	}
	dst[wl] |= first
	for w := wl + 1; w < wh; w++ {
		dst[w] = ^uint64(0)
	}
	dst[wh] |= last
}

// clearRun clears the bits of ids lo..hi inclusive.
func clearRun(dst []uint64, lo, hi uint32) {
	wl, wh := lo>>6, hi>>6
	first, last := ^uint64(0)<<(lo&63), ^uint64(0)>>(63-hi&63)
	if wl == wh {
		dst[wl] &^= first & last
		return
	}
	dst[wl] &^= first
	clear(dst[wl+1 : wh])
	dst[wh] &^= last
}

// setBit sets (on) or clears the bit of id.
func setBit(dst []uint64, id uint32, on bool) {
	if on {
		addBit(dst, id)
	} else {
		delBit(dst, id)
	}
}

// addBit sets the bit of id.
func addBit(dst []uint64, id uint32) { dst[id>>6] |= 1 << (id & 63) }

// delBit clears the bit of id.
func delBit(dst []uint64, id uint32) { dst[id>>6] &^= 1 << (id & 63) }

// hasBit reports whether the bit of id is set.
func hasBit(w []uint64, id uint32) bool { return w[id>>6]&(1<<(id&63)) != 0 }

// spanWords writes into d the members of hi that lo lacks (lo nil: all of
// hi's): assigned when assign is set, ORed in otherwise.
func spanWords(d, hi, lo []uint64, assign bool) {
	switch {
	case lo == nil && assign:
		copy(d, hi)
	case lo == nil:
		bitops.Or(d, hi)
	case assign:
		bitops.Diff(d, hi, lo)
	default:
		bitops.OrDiff(d, hi, lo)
	}
}

// spanWords2 assigns to d the members of hi0 that lo0 lacks and those of
// hi1 that lo1 lacks; a nil lo0 has no members, lo1 must not be nil.
func spanWords2(d, hi0, lo0, hi1, lo1 []uint64) {
	if lo0 == nil {
		// The usual != : everything below the value, and everything above.
		bitops.UnionDiff(d, hi0, hi1, lo1)
		return
	}
	bitops.Diff(d, hi0, lo0)
	bitops.OrDiff(d, hi1, lo1)
}
