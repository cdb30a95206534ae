package index

import (
	"math"

	"github.com/nodesift/sift/extra"
)

// maxCheckpoints bounds the cumulative bitmaps kept per sorted column, so a
// column costs at most maxCheckpoints*Words()*8 bytes whatever its size.
const maxCheckpoints = 64

// span is the half-open interval [lo, hi) of positions in a sorted column.
type span struct{ lo, hi uint32 }

// postings lists the ids of one sorted column in value order and writes any
// interval of positions as dense words in O(words) plus at most one
// checkpoint gap of single bits.
type postings struct {
	ids []uint32
	// ck are checkpoint positions, ascending, from 0 to len(ids); empty when
	// the column is small enough that setting bits one by one is as cheap.
	ck []uint32
	// pre[c] holds ids[:ck[c]] as dense words over [w0, w1); pre[0] is nil.
	pre    [][]uint64
	w0, w1 int
	// ascending is set when ids increase with position, as they do for a
	// value that grows with the node id (a load figure, a serial number):
	// any positions whose first and last ids are as far apart as the
	// positions are then a run of consecutive ids, written a word at a time.
	ascending bool
}

// newPostings indexes ids (already in value order); bounds are the positions
// where a new distinct value starts, with 0 first and len(ids) last. Queries
// always cut at distinct-value boundaries, so checkpoints placed exactly on
// them need no bit patching at all.
func newPostings(ids []uint32, bounds []uint32, words int) postings {
	p := postings{ids: ids, ascending: ascend(ids)}
	n := len(ids)
	if n == 0 || n <= 4*words {
		return p
	}
	lo, hi := ids[0], ids[0]
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	p.w0, p.w1 = int(lo>>6), int(hi>>6)+1
	if len(bounds) <= maxCheckpoints {
		p.ck = bounds
	} else {
		step := (n + maxCheckpoints - 2) / (maxCheckpoints - 1)
		for x := 0; x < n; x += step {
			p.ck = append(p.ck, uint32(x))
		}
		p.ck = append(p.ck, uint32(n))
	}
	width := p.w1 - p.w0
	store := make([]uint64, (len(p.ck)-1)*width)
	p.pre = make([][]uint64, len(p.ck))
	cur := make([]uint64, width)
	pos := 0
	for c := 1; c < len(p.ck); c++ {
		for ; pos < int(p.ck[c]); pos++ {
			id := int(ids[pos]) - p.w0*64
			cur[id>>6] |= 1 << (uint(id) & 63)
		}
		w := store[(c-1)*width : c*width : c*width]
		copy(w, cur)
		p.pre[c] = w
	}
	return p
}

// orSpan ORs the ids at positions [s.lo, s.hi) into dst. It only ever sets
// bits, so several spans over one column may be written in any order.
func (p *postings) orSpan(dst []uint64, s span) {
	if s.lo >= s.hi {
		return
	}
	if len(p.ck) > 0 {
		// The widest checkpoint interval inside the span.
		a := searchU32(p.ck, s.lo)
		b := searchU32(p.ck, s.hi+1) - 1
		if a < b && int(p.ck[b]-p.ck[a])*2 > p.w1-p.w0 {
			spanWords(dst[p.w0:p.w1], p.pre[b], p.pre[a], false)
			p.setBits(dst, s.lo, p.ck[a])
			p.setBits(dst, p.ck[b], s.hi)
			return
		}
	}
	p.setBits(dst, s.lo, s.hi)
}

// setBits sets the bits of the ids at positions [lo, hi).
func (p *postings) setBits(dst []uint64, lo, hi uint32) { p.writeBits(dst, lo, hi, true, allIDs) }

// writeBits sets (on) or clears the bits of the ids at positions [lo, hi)
// that lie in r.
func (p *postings) writeBits(dst []uint64, lo, hi uint32, on bool, r idRange) {
	if p.run(lo, hi) {
		if p.ids[lo] >= r.hi || p.ids[hi-1] < r.lo {
			return
		}
		a, b := max(p.ids[lo], r.lo), min(p.ids[hi-1], r.hi-1)
		switch {
		case on:
			setRun(dst, a, b)
		default:
			clearRun(dst, a, b)
		}
		return
	}
	ids := p.ids[lo:hi]
	// A range holding every id of dst needs no test per id: the leaves of
	// a whole cluster set thousands of scattered bits this way.
	all := r.lo == 0 && uint64(r.hi) >= 64*uint64(len(dst))
	switch {
	case all && on:
		for _, id := range ids {
			addBit(dst, id)
		}
	case all:
		for _, id := range ids {
			delBit(dst, id)
		}
	case on:
		for _, id := range ids {
			if r.has(id) {
				addBit(dst, id)
			}
		}
	default:
		for _, id := range ids {
			if r.has(id) {
				delBit(dst, id)
			}
		}
	}
}

// minRun is the fewest positions worth checking for a run of consecutive
// ids: below it, a bit at a time costs no more.
const minRun = 32

// run reports whether the ids at positions [lo, hi) are consecutive (and
// at least minRun of them).
func (p *postings) run(lo, hi uint32) bool {
	return p.ascending && hi >= lo+minRun && p.ids[hi-1]-p.ids[lo] == hi-1-lo
}

// ascend reports whether ids strictly increase.
func ascend(ids []uint32) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return false
		}
	}
	return true
}

func (p *postings) sizeBytes() int {
	n := 4*len(p.ids) + 4*len(p.ck)
	if len(p.pre) > 0 {
		n += 8 * (len(p.pre) - 1) * (p.w1 - p.w0)
	}
	return n
}

// searchU32 returns the first index i with a[i] >= x.
func searchU32(a []uint32, x uint32) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// opSpans returns the positions satisfying op, given that positions [0, i)
// compare less than the request, [i, j) equal and [j, n) greater.
func opSpans(op extra.Op, i, j, n uint32) (out [2]span) {
	switch op {
	case extra.Eq:
		out[0] = span{i, j}
	case extra.Ne:
		out[0], out[1] = span{0, i}, span{j, n}
	case extra.Lt:
		out[0] = span{0, i}
	case extra.Le:
		out[0] = span{0, j}
	case extra.Gt:
		out[0] = span{j, n}
	case extra.Ge:
		out[0] = span{i, n}
	}
	return out
}

// sink is a leaf's destination: the words [lo, hi) of dst, the only ones
// it writes; until clean is set they still hold stale data, so the first
// full-width write may assign instead of OR.
type sink struct {
	dst    []uint64
	lo, hi int
	clean  bool
}

func (k *sink) prepare() {
	if !k.clean {
		clear(k.dst[k.lo:k.hi])
		k.clean = true
	}
}

// ids is the range of ids whose bits lie in the sink's words.
func (k *sink) ids() idRange { return idRange{uint32(k.lo) * 64, uint32(k.hi) * 64} }

// idRange is the ids [lo, hi) a write may touch.
type idRange struct{ lo, hi uint32 }

// allIDs lets a write touch any id.
var allIDs = idRange{0, math.MaxUint32}

// has reports whether id lies in r.
func (r idRange) has(id uint32) bool { return id-r.lo < r.hi-r.lo }

// nearest returns the index of the checkpoint closest to x.
func (p *postings) nearest(x uint32) int {
	i := searchU32(p.ck, x)
	if i == len(p.ck) || (i > 0 && x-p.ck[i-1] <= p.ck[i]-x) {
		return i - 1
	}
	return i
}

// writeSpans ORs into k the ids at the positions in ss (at most two
// disjoint spans, ascending). Each span costs one pass over the words between
// its nearest checkpoints; the positions between a span's ends and those
// checkpoints are then set to their exact membership. That may clear bits,
// which is safe because no other source writes this column's ids.
func (p *postings) writeSpans(k *sink, ss [2]span) {
	m := 0
	for _, s := range ss {
		if s.hi > s.lo {
			m += int(s.hi - s.lo)
		}
	}
	if m == 0 {
		return
	}
	// The words a checkpoint pass covers: the column's, inside the sink's.
	w0 := min(max(p.w0, k.lo), p.w1)
	w1 := max(w0, min(p.w1, k.hi))
	if len(p.ck) == 0 || m*2 < w1-w0 {
		k.prepare()
		for _, s := range ss {
			if s.hi > s.lo {
				p.writeBits(k.dst, s.lo, s.hi, true, k.ids())
			}
		}
		return
	}
	var a, b [2]int
	n := 0
	for _, s := range ss {
		if s.hi > s.lo {
			a[n], b[n] = p.nearest(s.lo), p.nearest(s.hi)
			ss[n] = s
			n++
		}
	}
	d := k.dst[w0:w1]
	// cut is a checkpoint's words over d (nil stays nil: no members).
	cut := func(c int) []uint64 {
		if p.pre[c] == nil {
			return nil
		}
		return p.pre[c][w0-p.w0 : w1-p.w0]
	}
	// On stale words the first pass assigns: no separate clearing pass.
	assign := !k.clean
	if assign {
		if w0 < w1 {
			clear(k.dst[k.lo:w0])
			clear(k.dst[w1:k.hi])
		} else {
			clear(k.dst[k.lo:k.hi])
		}
		k.clean = true
	}
	if n == 2 && a[0] < b[0] && a[1] < b[1] && assign && p.pre[a[1]] != nil {
		// Both spans of a != in one pass.
		spanWords2(d, cut(b[0]), cut(a[0]), cut(b[1]), cut(a[1]))
	} else {
		for t := 0; t < n; t++ {
			if a[t] < b[t] {
				spanWords(d, cut(b[t]), cut(a[t]), assign)
				assign = false
			}
		}
		if assign {
			clear(d)
		}
	}
	r := k.ids()
	for t := 0; t < n; t++ {
		p.patch(k.dst, ss[:n], ss[t].lo, p.ck[a[t]], r)
		p.patch(k.dst, ss[:n], ss[t].hi, p.ck[b[t]], r)
	}
}

// patch sets the ids in r at positions between x and c to their exact
// membership in ss, touching each id once: set inside a span, cleared
// outside.
func (p *postings) patch(dst []uint64, ss []span, x, c uint32, r idRange) {
	lo, hi := min(x, c), max(x, c)
	for pos := lo; pos < hi; {
		in, end := false, hi
		for _, s := range ss {
			if pos >= s.lo && pos < s.hi {
				in, end = true, min(hi, s.hi)
				break
			}
			if s.lo > pos {
				end = min(end, s.lo)
			}
		}
		p.writeBits(dst, pos, end, in, r)
		pos = end
	}
}
