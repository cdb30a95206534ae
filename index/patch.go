package index

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/nodesift/sift/extra"
)

// late is a changed node's new value under one key, in a fold.
type late struct {
	id uint32
	v  extra.Value
}

// placed is a late value located among its type's distinct values.
type placed struct{ d, id uint32 }

// patch returns old with the changed ids (set in skip) removed and the late
// values (ids ascending) added, when every late value is one old already
// has and no distinct value loses its last node: the distinct values, and
// so every other node's vref, stay as they are. It then costs a copy and a
// merge per type instead of a rebuild; ok is false otherwise.
func (old *column) patch(lates []late, skip []uint64, bound uint32, words int) (c *column, ok bool) {
	if old.dense == nil || len(old.dense) != int(bound) {
		return nil, false
	}
	var nums, strs, bools []placed
	var nan, unusable []uint32
	for _, l := range lates {
		switch l.v.Kind {
		case extra.KindNumber:
			if l.v.Num != l.v.Num {
				nan = append(nan, l.id)
				continue
			}
			k := floatKey(l.v.Num)
			d := sort.Search(len(old.nums), func(i int) bool { return floatKey(old.nums[i]) >= k })
			if d == len(old.nums) || floatKey(old.nums[d]) != k {
				return nil, false
			}
			nums = append(nums, placed{uint32(d), l.id})
		case extra.KindString:
			d, found := slices.BinarySearchFunc(old.strs, l.v.Str, strings.Compare)
			if !found {
				return nil, false
			}
			strs = append(strs, placed{uint32(d), l.id})
		case extra.KindBool:
			d := slices.Index(old.bools, l.v.Bool)
			if d < 0 {
				return nil, false
			}
			bools = append(bools, placed{uint32(d), l.id})
		case extra.KindUnusable:
			unusable = append(unusable, l.id)
		}
	}
	var gone []uint32 // the changed ids
	for w, word := range skip {
		for word != 0 {
			gone = append(gone, uint32(w*64+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	c = &column{nums: old.nums, strs: old.strs, bools: old.bools}
	var ids []uint32
	if ids, c.numStart, ok = mergeRuns(old.num.ids, old.numStart, nums, skip); !ok {
		return nil, false
	}
	c.num = old.num.patched(ids, c.numStart, words, gone, nums)
	if ids, c.strStart, ok = mergeRuns(old.str.ids, old.strStart, strs, skip); !ok {
		return nil, false
	}
	c.str = old.str.patched(ids, c.strStart, words, gone, strs)
	if ids, c.boolStart, ok = mergeRuns(old.boolP.ids, old.boolStart, bools, skip); !ok {
		return nil, false
	}
	c.boolP = old.boolP.patched(ids, c.boolStart, words, gone, bools)
	c.nan = append(keep(old.nan, skip), nan...)
	c.unusable = append(keep(old.unusable, skip), unusable...)
	slices.Sort(c.unusable)

	c.dense = slices.Clone(old.dense)
	for _, id := range gone {
		c.dense[id] = 0
	}
	for _, p := range nums {
		c.dense[p.id] = vref(extra.KindNumber, p.d)
	}
	for _, id := range nan {
		c.dense[id] = vref(extra.KindNumber, nanIdx)
	}
	for _, p := range strs {
		c.dense[p.id] = vref(extra.KindString, p.d)
	}
	for _, p := range bools {
		c.dense[p.id] = vref(extra.KindBool, p.d)
	}
	for _, id := range unusable {
		c.dense[id] = vref(extra.KindUnusable, 0)
	}
	c.compact()
	return c, true
}

// mergeRuns lays out one type's ids by value: each old run without the
// skipped ids, merged with the late ids placed on that value (adds is in id
// order, so each value's adds are too once grouped stably). ok is false
// when a value is left with no node.
func mergeRuns(ids, start []uint32, adds []placed, skip []uint64) (out, outStart []uint32, ok bool) {
	slices.SortStableFunc(adds, func(x, y placed) int { return int(x.d) - int(y.d) })
	distinct := len(start) - 1
	out = make([]uint32, len(ids)+len(adds))
	outStart = make([]uint32, distinct+1)
	k, j := 0, 0
	for d := 0; d < distinct; d++ {
		outStart[d] = uint32(k)
		// next is the smallest late id left for d; MaxUint32 when none
		// (no id reaches it: ids are below the bound).
		next := uint32(math.MaxUint32)
		if j < len(adds) && adds[j].d == uint32(d) {
			next = adds[j].id
		}
		for _, id := range ids[start[d]:start[d+1]] {
			if hasBit(skip, id) {
				continue
			}
			for next < id {
				out[k] = next
				k, j = k+1, j+1
				next = math.MaxUint32
				if j < len(adds) && adds[j].d == uint32(d) {
					next = adds[j].id
				}
			}
			out[k] = id
			k++
		}
		for j < len(adds) && adds[j].d == uint32(d) {
			out[k] = adds[j].id
			k, j = k+1, j+1
		}
		if uint32(k) == outStart[d] {
			return nil, nil, false
		}
	}
	outStart[distinct] = uint32(k)
	return out[:k:k], outStart, true
}

// keep returns the ids not set in skip, in a new slice.
func keep(ids []uint32, skip []uint64) []uint32 {
	out := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if !hasBit(skip, id) {
			out = append(out, id)
		}
	}
	return out
}

// patched returns the postings of ids and bounds, which are p's with the
// gone ids removed and adds placed, over the same distinct values. When p
// has a checkpoint at every value boundary, so will the result, and each
// checkpoint (the ids of values below d) is p's with the gone ids' bits
// cleared and the adds' on values below d set: no pass over every id.
// Otherwise the postings are built afresh.
func (p *postings) patched(ids, bounds []uint32, words int, gone []uint32, adds []placed) postings {
	n := len(ids)
	if len(p.ck) == 0 || len(bounds) != len(p.ck) || len(bounds) > maxCheckpoints || n == 0 || n <= 4*words {
		return newPostings(ids, bounds, words)
	}
	lo, hi := uint32(p.w0*64), uint32(p.w1*64)
	for _, a := range adds {
		if a.id < lo || a.id >= hi {
			return newPostings(ids, bounds, words)
		}
	}
	// Every id stays inside [w0, w1): the removed ones only narrow it.
	q := postings{ids: ids, ck: bounds, w0: p.w0, w1: p.w1, ascending: ascend(ids)}
	width := p.w1 - p.w0
	store := make([]uint64, (len(bounds)-1)*width)
	q.pre = make([][]uint64, len(bounds))
	for c := 1; c < len(bounds); c++ {
		w := store[(c-1)*width : c*width : c*width]
		copy(w, p.pre[c])
		for _, id := range gone {
			if id >= lo && id < hi {
				x := id - lo
				delBit(w, x)
			}
		}
		for _, a := range adds {
			if a.d < uint32(c) {
				x := a.id - lo
				addBit(w, x)
			}
		}
		q.pre[c] = w
	}
	return q
}
