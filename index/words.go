package index

// The word kernels: bit operations on dense []uint64 node sets, where node
// id is bit id&63 of word id>>6. Every leaf writes its answer this way.

// clearWords zeroes dst.
func clearWords(dst []uint64) {
	for i := range dst {
		dst[i] = 0
	}
}

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
// hi's): assigned when assign is set, ORed in otherwise. The loops take
// eight words a step through array pointers: without bounds checks, about
// twice as fast as a word at a time (Go does not vectorize them).
func spanWords(d, hi, lo []uint64, assign bool) {
	hi = hi[:len(d)]
	if lo == nil {
		if assign {
			copy(d, hi)
			return
		}
		i := 0
		for ; i+8 <= len(d); i += 8 {
			x, h := (*[8]uint64)(d[i:]), (*[8]uint64)(hi[i:])
			x[0] |= h[0]
			x[1] |= h[1]
			x[2] |= h[2]
			x[3] |= h[3]
			x[4] |= h[4]
			x[5] |= h[5]
			x[6] |= h[6]
			x[7] |= h[7]
		}
		for ; i < len(d); i++ {
			d[i] |= hi[i]
		}
		return
	}
	lo = lo[:len(d)]
	i := 0
	if assign {
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
		return
	}
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

// spanWords2 assigns to d the members of hi0 that lo0 lacks and those of
// hi1 that lo1 lacks; a nil lo0 has no members, lo1 must not be nil.
func spanWords2(d, hi0, lo0, hi1, lo1 []uint64) {
	hi0, hi1, lo1 = hi0[:len(d)], hi1[:len(d)], lo1[:len(d)]
	if lo0 == nil {
		// The usual != : everything below the value, and everything above.
		i := 0
		for ; i+8 <= len(d); i += 8 {
			x, a, b, c := (*[8]uint64)(d[i:]), (*[8]uint64)(hi0[i:]), (*[8]uint64)(hi1[i:]), (*[8]uint64)(lo1[i:])
			x[0] = a[0] | b[0]&^c[0]
			x[1] = a[1] | b[1]&^c[1]
			x[2] = a[2] | b[2]&^c[2]
			x[3] = a[3] | b[3]&^c[3]
			x[4] = a[4] | b[4]&^c[4]
			x[5] = a[5] | b[5]&^c[5]
			x[6] = a[6] | b[6]&^c[6]
			x[7] = a[7] | b[7]&^c[7]
		}
		for ; i < len(d); i++ {
			d[i] = hi0[i] | hi1[i]&^lo1[i]
		}
		return
	}
	lo0 = lo0[:len(d)]
	for i := range d {
		d[i] = hi0[i]&^lo0[i] | hi1[i]&^lo1[i]
	}
}
