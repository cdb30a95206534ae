package sched

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/bitops"
	"github.com/nodesift/sift/select/bitset"
)

// slot is one entry of backfill's node_space_map_t: from begin to end,
// avail are the nodes not reserved for any job.
type slot struct {
	begin, end int64
	avail      bitset.Set
	next       int // index of the next slot; 0 ends the list
}

// nodeSpace is the array-backed linked list of time slots, slot 0 first.
type nodeSpace struct {
	s   []slot
	res int64 // bf_resolution in seconds
	// size is bf_node_space_size: the records s may reach before a
	// reservation is refused (0: no limit).
	size int
	n    int // node id bound
	// order is the slots' indexes in list order, remade after add: the
	// walks start at the first slot a window touches, found by binary
	// search, instead of following the list from slot 0.
	order []int
	dirty bool
	// marks holds two word masks per slot index i, each of mw words: at
	// marks[2*i*mw:] the words of avail where a node is free in the slot
	// before i in the list and not in i (taken), at marks[(2*i+1)*mw:]
	// the words where one is free in i and not in the slot before
	// (freed), or more. A reservation changes a few words, so the slot
	// walk ANDs and tests only those (usable).
	marks []uint64
	mw    int
	// hint is the position of the first slot of usable's last window: a
	// job's rounds ask about later and later windows.
	hint int
	// gen counts the changes of the slots' node sets and order; last is
	// the AND of usable's last window while gen stays.
	gen  uint64
	last lastAnd
}

// lastAnd is the AND of orig's words [lo, hi) over the slots at positions
// [k0, k1) of order, on the map of generation gen; redo is scratch.
type lastAnd struct {
	gen             uint64
	lo, hi, k0, k1  int
	orig, and, redo []uint64
}

// ordered remakes order if the slots changed since.
func (ns *nodeSpace) ordered() {
	if ns.dirty || ns.order == nil {
		ns.order = ns.order[:0]
		for j := 0; ; {
			ns.order = append(ns.order, j)
			if j = ns.s[j].next; j == 0 {
				break
			}
		}
		ns.dirty = false
	}
}

// seek is the first position p of order at which past(p) holds (n, the
// number of positions, if none), past being false up to some position
// and true from there on. It looks from hint on, in steps that double,
// as a job's rounds ask about positions a little after the last ones.
func seek(n, hint int, past func(p int) bool) int {
	lo := min(max(hint, 0), n)
	if lo > 0 && past(lo-1) {
		return sort.Search(lo, past)
	}
	// No position before lo is past.
	for step := 1; ; step *= 2 {
		hi := min(lo+step, n)
		if hi == lo {
			return n
		}
		if past(hi - 1) {
			return lo + sort.Search(hi-1-lo, func(i int) bool { return past(lo + i) })
		}
		lo = hi
	}
}

// from is the position in order of the first slot ending after t.
func (ns *nodeSpace) from(t int64) int {
	ns.ordered()
	lo, hi := 0, len(ns.order)
	for lo < hi {
		m := (lo + hi) / 2
		if ns.s[ns.order[m]].end > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// newNodeSpace is the initial map: one slot from now rounded down to the
// resolution to the window's end, with the nodes in avail.
func newNodeSpace(now, window, res int64, n int, avail *roaring.Bitmap) *nodeSpace {
	ns := &nodeSpace{}
	ns.reset(now, window, res, n, avail)
	return ns
}

// reset makes ns newNodeSpace's map again, keeping its storage for the
// slots the next pass makes.
func (ns *nodeSpace) reset(now, window, res int64, n int, avail *roaring.Bitmap) {
	ns.res, ns.n = res, n
	ns.order, ns.dirty = ns.order[:0], true
	ns.s = append(ns.s[:0], slot{avail: ns.spare(0)})
	ns.hint = 0
	ns.gen++
	ns.mw = ((n+63)/64 + 63) / 64
	ns.marks = append(ns.marks[:0], make([]uint64, 2*ns.mw)...)
	ns.s[0] = slot{begin: now / res * res, end: (now + window) / res * res, avail: ns.s[0].avail.Fill(avail)}
}

// spare is the node set storage of slot i from an earlier use of ns, or
// a new set (when i is past the slots made before).
func (ns *nodeSpace) spare(i int) bitset.Set {
	if i < cap(ns.s) {
		if b := ns.s[:i+1][i].avail; len(b) == (ns.n+63)/64 {
			return b
		}
	}
	return bitset.New(ns.n)
}

// bits converts r to the map's dense form.
func (ns *nodeSpace) bits(r *roaring.Bitmap) bitset.Set { return bitset.New(ns.n).Fill(r) }

// slotTime is _set_slot_time: the reservation of a job starting at start
// for limit seconds, rounded to the resolution (start down, end up).
func (ns *nodeSpace) slotTime(start, limit int64) (int64, int64) {
	end := start + limit + ns.res - 1
	return start / ns.res * ns.res, end / ns.res * ns.res
}

// reserveRunning is _bf_reserve_running for running job j: a job holding
// whole nodes (Allocation.WholeNode) and not preemptable (its preempt mode
// is off) keeps them from the
// start of the map to its end rounded up to the resolution. Backfill calls
// it for each job it starts (always) and, with bf_running_job_reserve, for
// the jobs running when the pass begins; a job sharing its nodes is left to
// the select plugin's will-run. It is false only when the map is full
// (bf_node_space_size).
func (ns *nodeSpace) reserveRunning(j *Job, preemptable bool) bool {
	if j.Alloc == nil || !j.Alloc.WholeNode || j.Nodes == nil || preemptable {
		return true
	}
	if ns.size > 0 && len(ns.s) >= ns.size {
		return false
	}
	end := (j.End + ns.res - 1) / ns.res * ns.res
	ns.add(ns.s[0].begin, end, ns.bits(j.Nodes))
	return true
}

// split inserts a slot boundary at t inside slot j (begin < t < end) and
// returns the index of the new slot that starts at t.
func (ns *nodeSpace) split(j int, t int64) int {
	i := len(ns.s)
	avail := ns.spare(i)
	copy(avail, ns.s[j].avail)
	ns.s = append(ns.s, slot{begin: t, end: ns.s[j].end, avail: avail, next: ns.s[j].next})
	ns.marks = append(ns.marks, make([]uint64, 2*ns.mw)...)
	ns.s[j].end = t
	ns.s[j].next = i
	return i
}

// add is _add_reservation: split the slots at start and end and take nodes
// out of every slot in between, then merge one adjacent pair of slots whose
// nodes became identical.
func (ns *nodeSpace) add(start, end int64, nodes bitset.Set) {
	ns.dirty = true
	ns.gen++
	start = max(start, ns.s[0].begin)
	if end < start+ns.res {
		// A job always holds at least one resolution step.
		end = start + ns.res
	}
	// Only the words holding nodes change: a job's nodes are often one
	// range of ids.
	lo, hi := nodes.Span()
	placed, first := false, true
	oneBefore, oneAfter := 0, -1
	j := 0
	for {
		if ns.s[j].end > start {
			// Slot j now ends at start; the walk below begins with the
			// new slot after it.
			ns.split(j, start)
			placed = true
			break
		}
		if ns.s[j].end == start {
			placed = true
			break
		}
		oneBefore = j
		if j = ns.s[j].next; j == 0 {
			break
		}
	}
	for placed {
		if j = ns.s[j].next; j == 0 {
			break
		}
		if end < ns.s[j].end {
			ns.split(j, end)
		}
		ns.s[j].avail[lo:hi].AndNot(nodes[lo:hi])
		if first {
			// The nodes are taken at the reservation's start ...
			mark(ns.taken(j), nodes, lo, hi)
			first = false
		}
		if end == ns.s[j].end {
			if k := ns.s[j].next; k != 0 {
				// ... and freed at its end.
				mark(ns.freed(k), nodes, lo, hi)
				oneAfter = k
			}
			break
		}
	}
	for i := oneBefore; i != oneAfter; {
		k := ns.s[i].next
		if k == 0 {
			break
		}
		if !ns.s[i].avail.Equal(ns.s[k].avail) {
			i = k
			continue
		}
		ns.s[i].end = ns.s[k].end
		ns.s[i].next = ns.s[k].next
		break
	}
}

// taken is the mask of the words of slot i's avail where a node is
// reserved from its begin on (marks).
func (ns *nodeSpace) taken(i int) []uint64 { return ns.marks[2*i*ns.mw : (2*i+1)*ns.mw] }

// freed is the mask of the words of slot i's avail where a node is free
// from its begin on (marks).
func (ns *nodeSpace) freed(i int) []uint64 { return ns.marks[(2*i+1)*ns.mw : (2*i+2)*ns.mw] }

// mark adds to mask the words [lo, hi) of nodes that have a member.
func mark(mask []uint64, nodes bitset.Set, lo, hi int) {
	for i := lo; i < hi; i++ {
		if nodes[i] != 0 {
			mask[i/64] |= 1 << (i % 64)
		}
	}
}

// overlaps is _test_resv_overlap: whether nodes, used from start to end,
// collide with a reservation in the map.
func (ns *nodeSpace) overlaps(nodes bitset.Set, start, end int64) bool {
	lo, hi := nodes.Span()
	for _, j := range ns.order[ns.from(start):] {
		s := &ns.s[j]
		if s.begin >= end {
			return false
		}
		if !nodes[lo:hi].SubsetOf(s.avail[lo:hi]) {
			return true
		}
	}
	return false
}

// usable sets avail to orig narrowed to the nodes free in every slot
// overlapping [start, end] and returns later_start: the end of the first
// overlapping slot after which more nodes are free, 0 if none (the slot
// walk of _attempt_backfill), and the number of nodes in avail, which
// must not share orig's storage.
//
// The walk's answer reads two things of the slots: the AND of those the
// window overlaps, and the first slot from the window's start after which
// a node of orig becomes free (until one is found, the walk's narrowed
// nodes are orig's in the current slot, so its test "are orig's nodes of
// the next slot a subset of the narrowed ones" asks just that; see
// plainUsable in the tests, the walk as written). After the window's
// first slot, each slot changes the AND only in the words where it took
// nodes (taken), and frees a node only in its freed words: the walk reads
// those, and a job's next round reuses the last AND (and).
func (ns *nodeSpace) usable(avail, orig bitset.Set, start, end int64) (int64, int) {
	copy(avail, orig)
	// Outside the words where orig has members avail is empty and stays
	// so, and orig adds nothing to later_start: a partition's nodes are
	// often one range of ids.
	lo, hi := orig.Span()
	ns.ordered()
	n := len(ns.order)
	k0 := seek(n, ns.hint, func(p int) bool { return ns.s[ns.order[p]].end > start })
	if k0 == n {
		return 0, bitops.Count(avail[lo:hi])
	}
	ns.hint = k0
	if ns.s[ns.order[k0]].begin <= end {
		ns.and(avail, orig, lo, hi, k0, end)
	}
	count := bitops.Count(avail[lo:hi])
	// The walk tests every slot it visits that has a next one: the
	// overlapping ones and the first after them.
	for k := k0; k+1 < n; k++ {
		if ns.frees(orig, k) {
			return ns.s[ns.order[k]].end, count
		}
		if ns.s[ns.order[k]].begin > end {
			// No slot frees a node by the one after the window: the
			// walk retries from the end of the slot after that.
			if k+2 < n {
				return ns.s[ns.order[k+1]].end, count
			}
			break
		}
	}
	return 0, count
}

// and narrows avail (orig's words [lo, hi), in other storage) to the
// slots from position k0 (which begins by end) to the last that begins by
// end. A job's next round asks from a later k0 with the same orig, to a
// later end: the AND of the last call, over positions [w.k0, w.k1), then
// holds but in the words where a slot after w.k0 up to k0 freed a node
// (elsewhere each slot from w.k0 to k0 holds the next one's nodes), so
// only those are walked again, then the slots past w.k1.
func (ns *nodeSpace) and(avail, orig bitset.Set, lo, hi, k0 int, end int64) {
	n := len(ns.order)
	w := &ns.last
	from := k0 + 1
	if w.gen == ns.gen && w.lo == lo && w.hi == hi && w.k0 <= k0 && k0 < w.k1 && ns.s[ns.order[w.k1-1]].begin <= end && slices.Equal(w.orig, orig[lo:hi]) {
		copy(avail[lo:hi], w.and)
		redo := append(w.redo[:0], make([]uint64, ns.mw)...)
		for k := w.k0 + 1; k <= k0; k++ {
			for m, f := range ns.freed(ns.order[k]) {
				redo[m] |= f
			}
		}
		s := ns.s[ns.order[k0]].avail
		for m, b := range redo {
			for ; b != 0; b &= b - 1 {
				i := m*64 + bits.TrailingZeros64(b)
				avail[i] = orig[i] & s[i]
			}
		}
		for k := k0 + 1; k < w.k1; k++ {
			s := ns.s[ns.order[k]].avail
			for m, t := range ns.taken(ns.order[k]) {
				for t &= redo[m]; t != 0; t &= t - 1 {
					i := m*64 + bits.TrailingZeros64(t)
					avail[i] &= s[i]
				}
			}
		}
		w.redo = redo
		from = w.k1
	} else {
		avail[lo:hi].And(ns.s[ns.order[k0]].avail[lo:hi])
	}
	// avail is within the last slot ANDed, which has every node of the
	// next one outside the words the next one took.
	k := from
	for ; k < n; k++ {
		s := &ns.s[ns.order[k]]
		if s.begin > end {
			break
		}
		for m, t := range ns.taken(ns.order[k]) {
			for ; t != 0; t &= t - 1 {
				i := m*64 + bits.TrailingZeros64(t)
				avail[i] &= s.avail[i]
			}
		}
	}
	w.gen, w.lo, w.hi, w.k0, w.k1 = ns.gen, lo, hi, k0, k
	w.orig = append(w.orig[:0], orig[lo:hi]...)
	w.and = append(w.and[:0], avail[lo:hi]...)
}

// frees reports whether a node of orig is free in the slot after
// position k and not in the one at k.
func (ns *nodeSpace) frees(orig bitset.Set, k int) bool {
	cur, next := ns.s[ns.order[k]].avail, ns.s[ns.order[k+1]].avail
	for m, w := range ns.freed(ns.order[k+1]) {
		for ; w != 0; w &= w - 1 {
			i := m*64 + bits.TrailingZeros64(w)
			if orig[i]&next[i]&^cur[i] != 0 {
				return true
			}
		}
	}
	return false
}
