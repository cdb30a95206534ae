package index

import (
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
)

// hostKey names a hostname column: the alpha prefix and the digit count.
type hostKey struct {
	alpha  string
	digits int
}

// hostCol holds the nodes of one hostname column sorted by numeric suffix.
type hostCol struct {
	// A column whose values and ids both count up in step from v0 and id0
	// (nodes named in id order, the usual case) keeps only those and n.
	seq    bool
	v0     uint64
	id0, n uint32
	vals   []uint64 // by position, ascending (unique: names are unique)
	p      postings
}

func newHostCol(vals []uint64, ids, bounds []uint32, words int) *hostCol {
	seq := true
	for i := range vals {
		if vals[i]-vals[0] != uint64(i) || ids[i]-ids[0] != uint32(i) {
			seq = false
			break
		}
	}
	if seq && len(vals) > 0 {
		return &hostCol{seq: true, v0: vals[0], id0: ids[0], n: uint32(len(vals))}
	}
	return &hostCol{vals: vals, p: newPostings(ids, bounds, words)}
}

// find returns the id of the node whose suffix is v.
func (h *hostCol) find(v uint64) (uint32, bool) {
	if h.seq {
		if v >= h.v0 && v-h.v0 < uint64(h.n) {
			return h.id0 + uint32(v-h.v0), true
		}
		return 0, false
	}
	i := sort.Search(len(h.vals), func(k int) bool { return h.vals[k] >= v })
	if i < len(h.vals) && h.vals[i] == v {
		return h.p.ids[i], true
	}
	return 0, false
}

// orRange ORs into dst the nodes whose suffix is in [lo, hi].
func (h *hostCol) orRange(dst []uint64, lo, hi uint64) {
	if h.seq {
		last := h.v0 + uint64(h.n) - 1
		lo, hi = max(lo, h.v0), min(hi, last)
		if lo <= hi {
			setRun(dst, h.id0+uint32(lo-h.v0), h.id0+uint32(hi-h.v0))
		}
		return
	}
	i := sort.Search(len(h.vals), func(k int) bool { return h.vals[k] >= lo })
	j := sort.Search(len(h.vals), func(k int) bool { return h.vals[k] > hi })
	h.p.orSpan(dst, span{uint32(i), uint32(j)})
}

func (h *hostCol) sizeBytes() int { return 48 + 8*len(h.vals) + h.p.sizeBytes() }

// rankCol holds every node's rank, sorted.
type rankCol struct {
	vals []uint32 // by position, ascending
	p    postings
}

// base is the columnar part of a snapshot: built once, then shared by every
// later snapshot until the next fold.
type base struct {
	bound uint32
	words int
	nodes []*Node  // by id; nil for holes
	has   []uint64 // dense: node has parsed extra data
	liveW []uint64 // dense: live ids
	// other maps the names that have no hostname column (no trailing
	// digits, or too many); every other name is found through its column.
	other map[string]uint32
	cols  map[string]*column
	// props are read-only views of each property's bitmap in roaring's
	// serialized form; propBuf holds those forms for the properties no node
	// is named like, which a one-property result shares copy-on-write.
	props   map[string]*roaring.Bitmap
	propBuf map[string][]byte
	// propW holds, for the properties at least one node in 16 has, the
	// same set as dense words: no larger than roaring's array form, and a
	// leaf copies it instead of setting its bits one by one.
	propW map[string]*propWords
	hosts map[hostKey]*hostCol
	// ranks is nil when every node's rank is its id, the usual case.
	ranks *rankCol
	live  *roaring.Bitmap
}

// lookup returns the id of the live node named name.
// propWords is a property's set as dense words with the window [lo, hi)
// of words that hold its members.
type propWords struct {
	w      []uint64
	lo, hi int
}

func (b *base) lookup(name string) (uint32, bool) {
	alpha, digits := SplitHost(name)
	if digits != "" {
		if v, ok := digitsValue(digits); ok {
			if hc := b.hosts[hostKey{alpha, len(digits)}]; hc != nil {
				return hc.find(v)
			}
			return 0, false
		}
	}
	id, ok := b.other[name]
	return id, ok
}
