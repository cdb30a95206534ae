package sched

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
)

// plainUsable is nodeSpace.usable without its early return: the slot walk
// of _attempt_backfill as written.
func (ns *nodeSpace) plainUsable(avail, orig bitset.Set, start, end int64) int64 {
	var later int64
	for j := 0; ; {
		s := &ns.s[j]
		if s.end > start && s.next != 0 && later == 0 {
			next := ns.s[s.next].avail
			for w := range avail {
				if orig[w]&next[w]&^(avail[w]&s.avail[w]) != 0 {
					later = s.end
					break
				}
			}
		}
		switch {
		case s.end <= start:
		case s.begin <= end:
			avail.And(s.avail)
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

// plainOverlaps is nodeSpace.overlaps walking every slot from slot 0.
func (ns *nodeSpace) plainOverlaps(nodes bitset.Set, start, end int64) bool {
	for j := 0; ; {
		if ns.s[j].end > start && ns.s[j].begin < end && !nodes.SubsetOf(ns.s[j].avail) {
			return true
		}
		if j = ns.s[j].next; j == 0 {
			return false
		}
	}
}

// randomMap is a new map of n nodes, all free, from a random now on, at
// a random resolution.
func randomMap(r *rand.Rand, n int) (int64, *nodeSpace) {
	all := roaring.New()
	all.AddRange(0, uint64(n))
	now := int64(1000 + r.IntN(100))
	return now, newNodeSpace(now, 20000, int64(1+r.IntN(60)), n, all)
}

// randomSet is a set of n nodes holding each with probability 1-1/keep.
func randomSet(r *rand.Rand, n, keep int) bitset.Set {
	b := bitset.New(n)
	for id := 0; id < n; id++ {
		if r.IntN(keep) != 0 {
			b.Add(uint32(id))
		}
	}
	return b
}

// plainHoldingEnd is nodeSpace.holdingEnd following the list from slot 0.
func (ns *nodeSpace) plainHoldingEnd(t int64) int64 {
	j := 0
	for ns.s[j].end <= t && ns.s[j].next != 0 {
		j = ns.s[j].next
	}
	return ns.s[j].end
}

// TestUsableAgreesWithPlainWalk builds random node-space maps and asks the
// slot walk for random windows: the walk with its early return and the
// plain one give the same nodes and later_start, the overlap test from
// the first touched slot the same answer as the one from slot 0, and the
// kept end of the slot holding a time the one found from slot 0.
func TestUsableAgreesWithPlainWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for round := 0; round < 300; round++ {
		n := 1 + r.IntN(150)
		now, ns := randomMap(r, n)
		for k := r.IntN(40); k > 0; k-- {
			if r.IntN(4) == 0 {
				probe := bitset.New(n)
				if later, _ := ns.usable(probe, probe, now+int64(r.IntN(15000)), now+int64(r.IntN(20000))); later < 0 {
					t.Fatal("negative later_start")
				}
			}
			nodes := roaring.New()
			for id := 0; id < n; id++ {
				if r.IntN(3) == 0 {
					nodes.Add(uint32(id))
				}
			}
			st, end := ns.slotTime(now+int64(r.IntN(15000)), int64(1+r.IntN(5000)))
			ns.add(st, end, ns.bits(nodes))
			for _, at := range []int64{now, now + int64(r.IntN(3))*int64(r.IntN(8000))} {
				if a, b := ns.holdingEnd(at), ns.plainHoldingEnd(at); a != b {
					t.Fatalf("round %d: the slot holding %d ends at %d, the plain walk says %d", round, at, a, b)
				}
			}
		}
		for k := 0; k < 20; k++ {
			orig := bitset.New(n)
			for id := 0; id < n; id++ {
				if r.IntN(4) != 0 {
					orig[id/64] |= 1 << (id % 64)
				}
			}
			start := now + int64(r.IntN(16000))
			end := start + int64(r.IntN(6000)) - 100
			fast, plain := slices.Clone(orig), slices.Clone(orig)
			lf, nf := ns.usable(fast, orig, start, end)
			lp := ns.plainUsable(plain, orig, start, end)
			if lf != lp || !fast.Equal(plain) || nf != plain.Count() {
				t.Fatalf("round %d [%d, %d]: usable gives %d %v (%d nodes), the plain walk %d %v", round, start, end, lf, fast, nf, lp, plain)
			}
			if a, b := ns.overlaps(orig, start, end), ns.plainOverlaps(orig, start, end); a != b {
				t.Fatalf("round %d [%d, %d]: overlaps says %v, the plain walk %v", round, start, end, a, b)
			}
		}
	}
}

// TestUsableRoundsAgreeWithPlainWalk asks the slot walk as a job's
// TRY_LATER rounds do, on random maps: the same orig from later and later
// starts (mostly the later_start of the last answer), at times an earlier
// start, another orig or a new reservation in between, so that the kept
// window slides, restarts and is dropped. Each answer must be the plain
// walk's.
func TestUsableRoundsAgreeWithPlainWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 4))
	slid := 0
	for round := 0; round < 200; round++ {
		n := 1 + r.IntN(300)
		now, ns := randomMap(r, n)
		for k := 10 + r.IntN(60); k > 0; k-- {
			st, end := ns.slotTime(now+int64(r.IntN(15000)), int64(1+r.IntN(3000)))
			ns.add(st, end, randomSet(r, n, 2+r.IntN(8)))
		}
		orig := randomSet(r, n, 2+r.IntN(4))
		if r.IntN(3) == 0 {
			// A partition of one range of ids.
			orig = bitset.New(n)
			lo := r.IntN(n)
			for id := lo; id < lo+r.IntN(n-lo+1); id++ {
				orig.Add(uint32(id))
			}
		}
		limit := int64(r.IntN(6000))
		start := now
		for k := 0; k < 80; k++ {
			switch r.IntN(20) {
			case 0:
				start = now + int64(r.IntN(16000))
			case 1:
				orig = randomSet(r, n, 2+r.IntN(4))
			case 2:
				st, end := ns.slotTime(now+int64(r.IntN(15000)), int64(1+r.IntN(3000)))
				ns.add(st, end, randomSet(r, n, 2+r.IntN(8)))
			}
			fast, plain := bitset.New(n), slices.Clone(orig)
			lf, nf := ns.usable(fast, orig, start, start+limit)
			lp := ns.plainUsable(plain, orig, start, start+limit)
			if lf != lp || !fast.Equal(plain) || nf != plain.Count() {
				t.Fatalf("round %d ask %d [%d, %d]: usable gives %d %v (%d nodes), the plain walk %d %v", round, k, start, start+limit, lf, fast, nf, lp, plain)
			}
			if ns.walk.mid > ns.walk.front {
				slid++
			}
			if lf != 0 {
				start = lf
			} else {
				start = now + int64(r.IntN(16000))
			}
		}
	}
	if slid < 1000 {
		t.Errorf("the kept window served %d answers from its first stack; the test means it to serve many", slid)
	}
}

// TestUsablePassesAgreeWithPlainWalk asks the slot walk as a backfill
// pass does, on random maps: job after job with mostly the same orig, a
// first round from now and a few later ones, then a reservation from a
// random start (at times from the map's start, or one that takes every
// node of a slot, so that slots merge), so that the prefix ANDs, the
// freeing tests and the later_start positions kept across reservations
// are used and cut back. Each answer must be the plain walk's.
func TestUsablePassesAgreeWithPlainWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 9))
	kept := 0
	for round := 0; round < 150; round++ {
		n := 1 + r.IntN(300)
		now, ns := randomMap(r, n)
		origs := []bitset.Set{randomSet(r, n, 2+r.IntN(4)), randomSet(r, n, 8)}
		for k := 0; k < 60; k++ {
			orig := origs[0]
			if r.IntN(8) == 0 {
				orig = origs[1]
			}
			limit := int64(r.IntN(6000))
			start := now
			for try := 0; try < 1+r.IntN(6); try++ {
				ns.ordered()
				lo, hi := orig.Span()
				if w := &ns.walk; start == now && w.lo == lo && slices.Equal(w.orig, orig[lo:hi]) && min(w.npre, w.valid-w.z) > 0 && ns.from(now) == w.z {
					kept++
				}
				fast, plain := bitset.New(n), slices.Clone(orig)
				lf, nf := ns.usable(fast, orig, start, start+limit)
				lp := ns.plainUsable(plain, orig, start, start+limit)
				if lf != lp || !fast.Equal(plain) || nf != plain.Count() {
					t.Fatalf("round %d job %d try %d [%d, %d]: usable gives %d %v (%d nodes), the plain walk %d %v", round, k, try, start, start+limit, lf, fast, nf, lp, plain)
				}
				if lf == 0 {
					break
				}
				start = lf
			}
			var st, end int64
			switch r.IntN(6) {
			case 0:
				st, end = ns.slotTime(now, int64(1+r.IntN(3000)))
			default:
				st, end = ns.slotTime(now+int64(r.IntN(15000)), int64(1+r.IntN(3000)))
			}
			// A job's nodes: a few, mostly one range of ids.
			nodes := bitset.New(n)
			lo := r.IntN(n)
			for id := lo; id < min(n, lo+1+r.IntN(n/8+1)); id++ {
				nodes.Add(uint32(id))
			}
			if r.IntN(5) == 0 {
				nodes = bitset.New(n)
				nodes.Or(ns.s[ns.order[ns.from(st)]].avail)
			}
			ns.add(st, end, nodes)
		}
	}
	if kept < 3000 {
		t.Errorf("%d first rounds found prefix ANDs kept from an earlier job; the test means many", kept)
	}
}

// TestResetMapIsANewMap: a map reset for the next pass, whose slots reuse
// the node sets of the last pass's (of another cluster size at times),
// takes the same reservations into the same slots as a new map.
func TestResetMapIsANewMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	reused := &nodeSpace{}
	for round := 0; round < 300; round++ {
		n := 1 + r.IntN(150)
		if round%50 > 10 {
			n = 100
		}
		all := roaring.New()
		for id := 0; id < n; id++ {
			if r.IntN(5) != 0 {
				all.Add(uint32(id))
			}
		}
		now := int64(1000 + r.IntN(100))
		res := int64(1 + r.IntN(60))
		fresh := newNodeSpace(now, 20000, res, n, all)
		reused.reset(now, 20000, res, n, all)
		for k := r.IntN(40); k > 0; k-- {
			nodes := bitset.New(n)
			for id := 0; id < n; id++ {
				if r.IntN(3) == 0 {
					nodes.Add(uint32(id))
				}
			}
			st, end := fresh.slotTime(now+int64(r.IntN(15000)), int64(1+r.IntN(5000)))
			fresh.add(st, end, nodes)
			reused.add(st, end, nodes)
		}
		if len(reused.s) != len(fresh.s) {
			t.Fatalf("round %d: the reset map has %d slots, a new one %d", round, len(reused.s), len(fresh.s))
		}
		for i := range fresh.s {
			a, b := fresh.s[i], reused.s[i]
			if a.begin != b.begin || a.end != b.end || a.next != b.next || len(a.avail) != len(b.avail) || !a.avail.Equal(b.avail) {
				t.Fatalf("round %d slot %d: reset map %+v, new map %+v", round, i, b, a)
			}
		}
		probe := now + int64(r.IntN(15000))
		if reused.from(probe) != fresh.from(probe) {
			t.Fatalf("round %d: the reset map's slot order differs", round)
		}
	}
}

// TestSeekFindsTheFirstPastPosition: from any hint, seek finds what a scan
// from position 0 finds.
func TestSeekFindsTheFirstPastPosition(t *testing.T) {
	for n := 0; n < 40; n++ {
		for first := 0; first <= n; first++ {
			for hint := -1; hint <= n+1; hint++ {
				if got := seek(n, hint, func(p int) bool { return p >= first }); got != first {
					t.Fatalf("n %d, first past %d, hint %d: seek gives %d", n, first, hint, got)
				}
			}
		}
	}
}
