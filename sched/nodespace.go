package sched

import (
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
	// walk is usable's work kept for the next calls, on the slots that
	// stay (slotWalk.valid).
	walk slotWalk
	// holdEnd is holdingEnd's last answer for holdAt (holdOK), the end
	// of the slot at position holdPos: a pass asks it for each record,
	// about the same now, and most reservations change only later slots.
	holdOK          bool
	holdPos         int
	holdAt, holdEnd int64
}

// changed tells the kept walk that the slots from position p of order on
// may have changed (their node sets, or which slot holds the position).
func (ns *nodeSpace) changed(p int) {
	ns.walk.valid = min(ns.walk.valid, p)
	// add may merge the slot before p with the next one, which moves
	// its end.
	if ns.holdPos >= p-1 {
		ns.holdOK = false
	}
}

// holdingEnd is the end of the first slot ending after t (the slot
// holding t).
func (ns *nodeSpace) holdingEnd(t int64) int64 {
	if !ns.holdOK || ns.holdAt != t {
		ns.holdPos = ns.from(t)
		ns.holdOK, ns.holdAt, ns.holdEnd = true, t, ns.s[ns.order[ns.holdPos]].end
	}
	return ns.holdEnd
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
	ns.changed(0)
	ns.s = append(ns.s[:0], slot{avail: ns.spare(0)})
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
	ns.s[j].end = t
	ns.s[j].next = i
	return i
}

// add is _add_reservation: split the slots at start and end and take nodes
// out of every slot in between, then merge one adjacent pair of slots whose
// nodes became identical.
func (ns *nodeSpace) add(start, end int64, nodes bitset.Set) {
	ns.dirty = true
	start = max(start, ns.s[0].begin)
	if end < start+ns.res {
		// A job always holds at least one resolution step.
		end = start + ns.res
	}
	// Only the words holding nodes change: a job's nodes are often one
	// range of ids.
	lo, hi := nodes.Span()
	placed := false
	oneBefore, oneAfter := 0, -1
	// The slots ending before start keep their nodes and positions: the
	// split and the AND-NOT below begin after them, and the merge at the
	// last of them (oneBefore) keeps its nodes.
	before := 0
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
		before++
		if j = ns.s[j].next; j == 0 {
			break
		}
	}
	ns.changed(before)
	for placed {
		if j = ns.s[j].next; j == 0 {
			break
		}
		if end < ns.s[j].end {
			ns.split(j, end)
		}
		ns.s[j].avail[lo:hi].AndNot(nodes[lo:hi])
		if end == ns.s[j].end {
			if ns.s[j].next != 0 {
				oneAfter = ns.s[j].next
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
// walk of _attempt_backfill), and the number of nodes in avail.
//
// The walk's answer reads two things of the slots: the AND of those the
// window overlaps, and the first slot from the window's start after which
// a node of orig becomes free (until one is found, the walk's narrowed
// nodes are orig's in the current slot, so its test "are orig's nodes of
// the next slot a subset of the narrowed ones" asks just that; see
// plainUsable in the tests, the walk as written). A job's TRY_LATER rounds
// ask with the same orig on the same map, each from a later start, so
// ns.walk keeps both between calls: the AND over a window that slides
// right as a queue of two stacks, each slot ANDed in twice and none past
// the point where the AND is empty (as the walk as written stops there),
// and the freeing test per slot.
func (ns *nodeSpace) usable(avail, orig bitset.Set, start, end int64) (int64, int) {
	// Outside the words where orig has members avail is empty, and orig
	// adds nothing to later_start: a partition's nodes are often one
	// range of ids. The walk sets the words inside.
	lo, hi := orig.Span()
	clear(avail[:lo])
	clear(avail[hi:])
	ns.ordered()
	w := ns.walkFor(orig[lo:hi], lo)
	n := len(ns.order)
	var k0 int
	if w.laterOK && start == w.laterT {
		k0 = w.laterP
	} else {
		k0 = seek(n, w.front, func(p int) bool { return ns.s[ns.order[p]].end > start })
	}
	if k0 == n {
		copy(avail[lo:hi], orig[lo:hi])
		return 0, bitops.Count(avail[lo:hi])
	}
	w.and(ns, avail[lo:hi], k0, end)
	count := bitops.Count(avail[lo:hi])
	// The walk tests every slot it visits that has a next one: the
	// overlapping ones and the first after them.
	for k := k0; k+1 < n; k++ {
		if w.frees(ns, k) {
			return w.later(ns, k), count
		}
		if ns.s[ns.order[k]].begin > end {
			// No slot frees a node by the one after the window: the
			// walk retries from the end of the slot after that.
			if k+2 < n {
				return w.later(ns, k+1), count
			}
			break
		}
	}
	return 0, count
}

// slotWalk is what usable keeps between calls with the same orig's words
// from lo, about the slots at positions [0, valid) of ns.order, which
// stay as they were when it read them: a job's rounds, and the next
// job's with the same candidates while the reservations between start
// after those slots.
type slotWalk struct {
	lo   int
	orig []uint64
	// valid counts the leading positions whose slots are the ones the
	// walk read; add and reset lower it (nodeSpace.changed).
	valid int
	// pre holds orig AND the slots at positions [z, z+i] at i*len(orig)
	// for i < npre, preAny whether it has a member; it stops at the first
	// without one. A job's first round asks from now, at the first slot
	// of nonzero length (position 0, or 1 once a reservation began at the
	// map's start): z is where the walk first restarted after the prefix
	// was lost.
	pre    []uint64
	preAny []bool
	z      int
	npre   int
	// The AND of orig and the slots at positions [front, back) of
	// ns.order, kept as a queue of two stacks: for p in [front, mid), suf
	// holds orig AND the slots [p, mid) at p*len(orig), sufAny whether it
	// has a member; acc is orig AND the slots [mid, back), accAny whether
	// it has one. Once either part is empty so is the AND of any window
	// that holds it: back then stays short of the window's end.
	front, mid, back int
	suf, acc         []uint64
	sufAny           []bool
	accAny           bool
	// freed[k] is 1 when a node of orig is free in the slot after
	// position k and not in k, 2 when none is, 0 not yet known.
	freed []uint8
	// laterT is the last later_start usable returned, the end of the
	// slot at laterP-1 (laterOK): the next round asks from there, and
	// its first slot is at laterP.
	laterT  int64
	laterP  int
	laterOK bool
}

// later is the end of the slot at position k, as later_start, noted with
// the position of the slot after it.
func (w *slotWalk) later(ns *nodeSpace, k int) int64 {
	w.laterT, w.laterP, w.laterOK = ns.s[ns.order[k]].end, k+1, true
	return w.laterT
}

// walkFor is ns.walk for orig's words from lo, started afresh when orig
// changed since its last use, and without what it kept of the slots that
// changed since.
func (ns *nodeSpace) walkFor(orig []uint64, lo int) *slotWalk {
	w := &ns.walk
	if w.lo != lo || len(w.orig) != len(orig) || !bitops.Equal(w.orig, orig) {
		w.lo, w.orig = lo, append(w.orig[:0], orig...)
		w.valid = 0
	}
	n := len(ns.order)
	if w.valid < n {
		w.npre = max(min(w.npre, w.valid-w.z), 0)
		if w.back > w.valid {
			w.front, w.mid, w.back = 0, 0, 0
		}
		// freed[k] reads positions k and k+1; laterP reads the ends of
		// the slots at laterP-1 and laterP, and the end of the last
		// slot before valid may have moved (a merge).
		clear(w.freed[min(max(w.valid-1, 0), len(w.freed)):])
		w.laterOK = w.laterOK && w.laterP+2 <= w.valid
	}
	if len(w.freed) < n {
		w.freed = append(w.freed, make([]uint8, n-len(w.freed))...)
	}
	w.valid = n
	return w
}

// slot is the words of the slot at position k that the walk reads.
func (w *slotWalk) slot(ns *nodeSpace, k int) []uint64 {
	return ns.s[ns.order[k]].avail[w.lo : w.lo+len(w.orig)]
}

// and sets dst to orig's words narrowed to the slots from position k0 that
// begin by end, moving the kept window there: it only slides right, else
// it restarts, from the prefix ANDs when k0 is z.
func (w *slotWalk) and(ns *nodeSpace, dst []uint64, k0 int, end int64) {
	nw := len(w.orig)
	switch {
	case k0 < w.front || k0 >= w.back || ns.s[ns.order[w.back-1]].begin > end:
		w.front, w.mid, w.back = k0, k0, k0
		w.acc, w.accAny = append(w.acc[:0], w.orig...), true
		if w.npre == 0 {
			w.z = k0
		}
		if k0 == w.z {
			if b := w.prefix(ns, end); b > 0 {
				w.back = k0 + b
				w.acc, w.accAny = append(w.acc[:0], w.pre[(b-1)*nw:b*nw]...), w.preAny[b-1]
			}
		}
	case k0 > w.mid:
		// The first stack is used up: the second becomes it, with the
		// AND of each suffix from k0.
		if need := w.back * nw; len(w.suf) < need {
			w.suf = append(w.suf, make([]uint64, need-len(w.suf))...)
		}
		if len(w.sufAny) < w.back {
			w.sufAny = append(w.sufAny, make([]bool, w.back-len(w.sufAny))...)
		}
		next := w.orig
		for p := w.back - 1; p >= k0; p-- {
			sp, sl := w.suf[p*nw:(p+1)*nw], w.slot(ns, p)
			w.sufAny[p], next = bitops.AndAny(sp, sl, next), sp
		}
		w.mid = w.back
		w.acc, w.accAny = append(w.acc[:0], w.orig...), true
	}
	w.front = k0
	if w.front < w.mid && !w.sufAny[w.front] {
		clear(dst)
		return
	}
	for n := len(ns.order); w.accAny && w.back < n && ns.s[ns.order[w.back]].begin <= end; w.back++ {
		w.accAny = bitops.AndAny(w.acc, w.acc, w.slot(ns, w.back))
	}
	switch {
	case !w.accAny:
		clear(dst)
	case w.front < w.mid:
		bitops.AndAny(dst, w.suf[w.front*nw:(w.front+1)*nw], w.acc)
	default:
		copy(dst, w.acc)
	}
}

// prefix extends pre to the slots from position z that begin by end and
// returns the window's length from z: up to the first position past
// them, or past the first empty prefix AND.
func (w *slotWalk) prefix(ns *nodeSpace, end int64) int {
	nw, n, z := len(w.orig), len(ns.order), w.z
	if w.npre > 0 && !w.preAny[w.npre-1] && ns.s[ns.order[z+w.npre-1]].begin <= end {
		return w.npre
	}
	b := seek(n-z, w.npre, func(i int) bool { return ns.s[ns.order[z+i]].begin > end })
	if b <= w.npre {
		return b
	}
	if need := b * nw; len(w.pre) < need {
		w.pre = append(w.pre, make([]uint64, need-len(w.pre))...)
	}
	if len(w.preAny) < b {
		w.preAny = append(w.preAny, make([]bool, b-len(w.preAny))...)
	}
	for ; w.npre < b; w.npre++ {
		i, last := w.npre, w.orig
		if i > 0 {
			if !w.preAny[i-1] {
				break
			}
			last = w.pre[(i-1)*nw : i*nw]
		}
		w.preAny[i] = bitops.AndAny(w.pre[i*nw:(i+1)*nw], last, w.slot(ns, z+i))
	}
	return w.npre
}

// frees reports whether a node of orig is free in the slot after
// position k and not in the one at k.
func (w *slotWalk) frees(ns *nodeSpace, k int) bool {
	if w.freed[k] == 0 {
		w.freed[k] = 2
		if bitops.AndNotAny(w.orig, w.slot(ns, k+1), w.slot(ns, k)) {
			w.freed[k] = 1
		}
	}
	return w.freed[k] == 1
}
