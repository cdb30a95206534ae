package sched

import "github.com/RoaringBitmap/roaring/v2"

// slot is one entry of backfill's node_space_map_t: from begin to end,
// avail are the nodes not reserved for any job.
type slot struct {
	begin, end int64
	avail      *roaring.Bitmap
	next       int // index of the next slot; 0 ends the list
}

// nodeSpace is the array-backed linked list of time slots, slot 0 first.
type nodeSpace struct {
	s   []slot
	res int64 // bf_resolution in seconds
}

// newNodeSpace is the initial map: one slot from now rounded down to the
// resolution to the window's end, with the nodes in avail.
func newNodeSpace(now, window, res int64, avail *roaring.Bitmap) *nodeSpace {
	return &nodeSpace{res: res, s: []slot{{begin: now / res * res, end: (now + window) / res * res, avail: avail.Clone()}}}
}

// slotTime is _set_slot_time: the reservation of a job starting at start
// for limit seconds, rounded to the resolution (start down, end up).
func (ns *nodeSpace) slotTime(start, limit int64) (int64, int64) {
	end := start + limit + ns.res - 1
	return start / ns.res * ns.res, end / ns.res * ns.res
}

// split inserts a slot boundary at t inside slot j (begin < t < end) and
// returns the index of the new slot that starts at t.
func (ns *nodeSpace) split(j int, t int64) int {
	i := len(ns.s)
	ns.s = append(ns.s, slot{begin: t, end: ns.s[j].end, avail: ns.s[j].avail.Clone(), next: ns.s[j].next})
	ns.s[j].end = t
	ns.s[j].next = i
	return i
}

// add is _add_reservation: split the slots at start and end and take nodes
// out of every slot in between, then merge one adjacent pair of slots whose
// nodes became identical.
func (ns *nodeSpace) add(start, end int64, nodes *roaring.Bitmap) {
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
		if !ns.s[i].avail.Equals(ns.s[k].avail) {
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
func (ns *nodeSpace) overlaps(nodes *roaring.Bitmap, start, end int64) bool {
	for j := 0; ; {
		if ns.s[j].end > start && ns.s[j].begin < end && !isSubset(nodes, ns.s[j].avail) {
			return true
		}
		if j = ns.s[j].next; j == 0 {
			return false
		}
	}
}
