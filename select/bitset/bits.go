package bitset

import (
	mbits "math/bits"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/bitops"
)

// Set is a dense bitset over node ids.
type Set []uint64

// New returns an empty set able to hold ids below n.
func New(n int) Set { return make(Set, (n+63)/64) }

// FromRoaring returns the members of b below n as a dense set.
func FromRoaring(b *roaring.Bitmap, n int) Set {
	s := New(n)
	if b == nil || b.IsEmpty() {
		return s
	}
	if int(b.Maximum()) < n {
		b.WriteDenseTo(s)
		return s
	}
	it := b.Iterator()
	for it.HasNext() {
		id := it.Next()
		if int(id) >= n {
			break
		}
		s.Add(id)
	}
	return s
}

// Fill makes s the members of b below len(s)*64 and returns it.
func (s Set) Fill(b *roaring.Bitmap) Set {
	clear(s)
	if b == nil || b.IsEmpty() {
		return s
	}
	if int(b.Maximum()/64) < len(s) {
		b.WriteDenseTo(s)
		return s
	}
	it := b.Iterator()
	for it.HasNext() {
		id := it.Next()
		if int(id/64) >= len(s) {
			break
		}
		s.Add(id)
	}
	return s
}

// Roaring returns the set as a roaring bitmap.
func (s Set) Roaring() *roaring.Bitmap { return roaring.FromDense(s, false) }

// Has reports whether id is in the set.
func (s Set) Has(id uint32) bool { return s[id>>6]&(1<<(id&63)) != 0 }

// Add puts id in the set.
func (s Set) Add(id uint32) { s[id>>6] |= 1 << (id & 63) }

// Del removes id from the set.
func (s Set) Del(id uint32) { s[id>>6] &^= 1 << (id & 63) }

// Count is the number of members.
func (s Set) Count() int {
	n := 0
	for _, w := range s {
		n += mbits.OnesCount64(w)
	}
	return n
}

// AndCount is the number of members of s in o, counted over words
// [lo, hi) (s's members lie there).
func (s Set) AndCount(o Set, lo, hi int) int {
	n := 0
	for i := lo; i < hi; i++ {
		n += mbits.OnesCount64(s[i] & o[i])
	}
	return n
}

// Copy overwrites s with o (same length).
func (s Set) Copy(o Set) { copy(s, o) }

// Clone returns a copy of s.
func (s Set) Clone() Set { return append(Set(nil), s...) }

// And keeps only members of o.
func (s Set) And(o Set) {
	for i := range s {
		s[i] &= o[i]
	}
}

// Or adds the members of o.
func (s Set) Or(o Set) {
	for i := range s {
		s[i] |= o[i]
	}
}

// AndNot removes the members of o.
func (s Set) AndNot(o Set) {
	for i := range s {
		s[i] &^= o[i]
	}
}

// Clear empties the set.
func (s Set) Clear() {
	for i := range s {
		s[i] = 0
	}
}

// SubsetOf reports whether every member of s is in o.
func (s Set) SubsetOf(o Set) bool {
	for i := range s {
		if s[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

// AndAny is And, reporting whether any member is left.
func (s Set) AndAny(o Set) bool {
	var any uint64
	for i := range s {
		s[i] &= o[i]
		any |= s[i]
	}
	return any != 0
}

// Equal reports whether s and o have the same members (o at least as long).
func (s Set) Equal(o Set) bool { return bitops.Equal(s, o) }

// Span is the range of words holding s's members, (0, 0) when empty.
func (s Set) Span() (lo, hi int) {
	for lo < len(s) && s[lo] == 0 {
		lo++
	}
	hi = len(s)
	for hi > lo && s[hi-1] == 0 {
		hi--
	}
	if lo == hi {
		return 0, 0
	}
	return lo, hi
}

// Intersects reports whether s and o share a member.
func (s Set) Intersects(o Set) bool {
	for i := range s {
		if s[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// Each calls f for every member in increasing order until f returns false.
func (s Set) Each(f func(id uint32) bool) {
	for w, word := range s {
		for word != 0 {
			t := mbits.TrailingZeros64(word)
			if !f(uint32(w*64 + t)) {
				return
			}
			word &= word - 1
		}
	}
}

// IDs appends the members in increasing order to dst.
func (s Set) IDs(dst []uint32) []uint32 {
	for w, word := range s {
		for word != 0 {
			t := mbits.TrailingZeros64(word)
			dst = append(dst, uint32(w*64+t))
			word &= word - 1
		}
	}
	return dst
}

// Runs calls f with the first and last id of every run of consecutive
// members, in increasing order, until f returns false.
func (s Set) Runs(f func(first, last int) bool) {
	n := len(s) * 64
	i := 0
	for i < n {
		w := i >> 6
		word := s[w] >> (uint(i) & 63)
		if word == 0 {
			i = (w + 1) << 6
			continue
		}
		i += mbits.TrailingZeros64(word)
		start := i
		for i < n {
			w = i >> 6
			word = ^s[w] >> (uint(i) & 63)
			if word == 0 {
				i = (w + 1) << 6
				continue
			}
			i += mbits.TrailingZeros64(word)
			break
		}
		if !f(start, i-1) {
			return
		}
	}
}

// AddRange puts the ids of [lo, hi) in the set.
func (s Set) AddRange(lo, hi int) {
	for lo < hi {
		w, off := lo>>6, uint(lo)&63
		n := min(64-int(off), hi-lo)
		s[w] |= (^uint64(0) >> (64 - uint(n))) << off
		lo += n
	}
}

// CountRange is the number of members in [lo, hi).
func (s Set) CountRange(lo, hi int) int {
	n := 0
	for lo < hi {
		w := lo >> 6
		off := uint(lo) & 63
		word := s[w] >> off
		span := 64 - int(off)
		if hi-lo < span {
			span = hi - lo
			word &= (1 << uint(span)) - 1
		}
		n += mbits.OnesCount64(word)
		lo += span
	}
	return n
}
