package sched

import (
	"github.com/RoaringBitmap/roaring/v2"
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
}

// from is the position in order of the first slot ending after t.
func (ns *nodeSpace) from(t int64) int {
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
	placed := false
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
		ns.s[j].avail.AndNot(nodes)
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

// usable narrows avail to the nodes free in every slot overlapping
// [start, end] and returns later_start: the end of the first overlapping
// slot after which more nodes are free, 0 if none (the slot walk of
// _attempt_backfill). orig is avail as it came in; scratch is reused.
func (ns *nodeSpace) usable(avail, orig bitset.Set, start, end int64) int64 {
	var later int64
	// The slots ending by start change nothing.
	k := ns.from(start)
	if k == len(ns.order) {
		return 0
	}
	// Outside the words where orig has members avail is empty and stays
	// so, and orig adds nothing to later_start: a partition's nodes are
	// often one range of ids.
	lo, hi := orig.Span()
	for j := ns.order[k]; ; {
		s := &ns.s[j]
		if s.end > start && s.next != 0 && later == 0 {
			// Is orig & next.avail a subset of avail & s.avail?
			next := ns.s[s.next].avail
			for w := lo; w < hi; w++ {
				if orig[w]&next[w]&^(avail[w]&s.avail[w]) != 0 {
					later = s.end
					break
				}
			}
		}
		switch {
		case s.end <= start:
		case s.begin <= end:
			if !avail[lo:hi].AndAny(s.avail[lo:hi]) && later != 0 {
				// Nothing is left to narrow, and later_start is known.
				return later
			}
		default:
			if n := s.next; later == 0 && n != 0 && ns.s[n].next != 0 {
				later = ns.s[n].end
			}
			return later
		}
		if j = s.next; j == 0 {
			return later
		}
	}
}
