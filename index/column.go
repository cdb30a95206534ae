package index

import (
	"math"

	"github.com/nodesift/sift/extra"
)

// A vref packs one node's value under a key into 32 bits: the Kind in the
// top three bits (0: missing) and the index of the value among its type's
// distinct values below. NaN numbers sit outside the sorted order, because
// they compare greater than every request: they get index nanIdx.
const (
	kindShift = 29
	idxMask   = 1<<kindShift - 1
	nanIdx    = idxMask
)

func vref(k extra.Kind, idx uint32) uint32 { return uint32(k)<<kindShift | idx }

// column holds every node's value under one extra key, split by the node's
// JSON type. Each type keeps its distinct values in ascending order and the
// ids sorted by value, so every leaf is one or two position intervals.
type column struct {
	// Each node's vref: dense by id, or, for keys most nodes lack, as
	// sparse (id, vref) pairs sorted by id.
	dense      []uint32
	sparseIDs  []uint32
	sparseRefs []uint32
	// slots places the pairs while finish builds a sparse column.
	slots *sparseSlots

	nums     []float64 // distinct non-NaN numbers, ascending
	numStart []uint32  // position where each distinct number starts, then the count
	num      postings
	nan      []uint32 // ids of NaN numbers

	strs     []string // distinct strings, byte-wise ascending
	strStart []uint32
	str      postings

	bools     []bool // distinct booleans, false first
	boolStart []uint32
	boolP     postings

	unusable []uint32 // ids, ascending
}

// ref returns node id's vref (0 when the node lacks the key).
func (c *column) ref(id uint32) uint32 {
	if c.dense != nil {
		if int(id) < len(c.dense) {
			return c.dense[id]
		}
		return 0
	}
	if i := searchU32(c.sparseIDs, id); i < len(c.sparseIDs) && c.sparseIDs[i] == id {
		return c.sparseRefs[i]
	}
	return 0
}

func (c *column) kind(id uint32) extra.Kind { return extra.Kind(c.ref(id) >> kindShift) }

func (c *column) value(id uint32) extra.Value {
	v := c.ref(id)
	r := v & idxMask
	switch extra.Kind(v >> kindShift) {
	case extra.KindNumber:
		if r == nanIdx {
			return extra.Value{Kind: extra.KindNumber, Num: math.NaN()}
		}
		return extra.Value{Kind: extra.KindNumber, Num: c.nums[r]}
	case extra.KindString:
		return extra.Value{Kind: extra.KindString, Str: c.strs[r]}
	case extra.KindBool:
		return extra.Value{Kind: extra.KindBool, Bool: c.bools[r]}
	case extra.KindUnusable:
		return extra.Value{Kind: extra.KindUnusable}
	}
	return extra.Value{}
}

// numBounds returns [i, j): the distinct numbers comparing equal to b under
// extra.NumberOrder. Over ascending values a-b never decreases under IEEE rounding, so the
// three-way result is a monotone LT* EQ* GT* sequence and binary search with
// the exact predicate finds the cuts.
func numBounds(vals []float64, b float64) (i, j int) {
	i = searchFirst(len(vals), func(k int) bool { return extra.NumberOrder(vals[k], b) >= extra.Equal })
	j = searchFirst(len(vals), func(k int) bool { return extra.NumberOrder(vals[k], b) > extra.Equal })
	return i, j
}

func strBounds(vals []string, raw string) (i, j int) {
	i = searchFirst(len(vals), func(k int) bool { return vals[k] >= raw })
	j = searchFirst(len(vals), func(k int) bool { return vals[k] > raw })
	return i, j
}

func boolBounds(vals []bool, b bool) (i, j int) {
	// false < true; vals is a subset of [false, true] in order.
	for k, v := range vals {
		if v == b {
			return k, k + 1
		}
		if v {
			return k, k
		}
	}
	return len(vals), len(vals)
}

// searchFirst returns the first k in [0, n) with f(k), or n.
func searchFirst(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if !f(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// writeLeaf ORs into k the ids in this column satisfying `value op o`.
func (c *column) writeLeaf(op extra.Op, o *Operand, k *sink) {
	if o.NumOK && len(c.num.ids) > 0 {
		i, j := numBounds(c.nums, o.Num)
		c.num.writeSpans(k, opSpans(op, c.numStart[i], c.numStart[j], uint32(len(c.num.ids))))
	}
	if len(c.nan) > 0 && o.NumOK && op.Holds(extra.Greater) {
		k.prepare()
		r := k.ids()
		for _, id := range c.nan {
			if r.has(id) {
				addBit(k.dst, id)
			}
		}
	}
	if len(c.str.ids) > 0 {
		i, j := strBounds(c.strs, o.Raw)
		c.str.writeSpans(k, opSpans(op, c.strStart[i], c.strStart[j], uint32(len(c.str.ids))))
	}
	if len(c.boolP.ids) > 0 {
		i, j := boolBounds(c.bools, o.Bool)
		c.boolP.writeSpans(k, opSpans(op, c.boolStart[i], c.boolStart[j], uint32(len(c.boolP.ids))))
	}
}

// writeRange ORs into k the ids in this column whose value lies in r: for
// each type, the positions both bounds' spans hold. A NaN is greater than
// every request, so never below an upper bound.
func (c *column) writeRange(r *Range, k *sink) {
	if !r.bounds() {
		return
	}
	if r.Lo.NumOK && r.Hi.NumOK && len(c.num.ids) > 0 {
		li, lj := numBounds(c.nums, r.Lo.Num)
		ui, uj := numBounds(c.nums, r.Hi.Num)
		c.num.writeSpans(k, r.spans(c.numStart, li, lj, ui, uj))
	}
	if len(c.str.ids) > 0 {
		li, lj := strBounds(c.strs, r.Lo.Raw)
		ui, uj := strBounds(c.strs, r.Hi.Raw)
		c.str.writeSpans(k, r.spans(c.strStart, li, lj, ui, uj))
	}
	if len(c.boolP.ids) > 0 {
		li, lj := boolBounds(c.bools, r.Lo.Bool)
		ui, uj := boolBounds(c.bools, r.Hi.Bool)
		c.boolP.writeSpans(k, r.spans(c.boolStart, li, lj, ui, uj))
	}
}

// estimate counts the ids in this column satisfying the leaf.
func (c *column) estimate(op extra.Op, o *Operand) int {
	n := 0
	count := func(p *postings, i, j uint32) {
		ss := opSpans(op, i, j, uint32(len(p.ids)))
		for _, s := range ss {
			if s.hi > s.lo {
				n += int(s.hi - s.lo)
			}
		}
	}
	if o.NumOK && len(c.num.ids) > 0 {
		i, j := numBounds(c.nums, o.Num)
		count(&c.num, c.numStart[i], c.numStart[j])
	}
	if o.NumOK && op.Holds(extra.Greater) {
		n += len(c.nan)
	}
	if len(c.str.ids) > 0 {
		i, j := strBounds(c.strs, o.Raw)
		count(&c.str, c.strStart[i], c.strStart[j])
	}
	if len(c.boolP.ids) > 0 {
		i, j := boolBounds(c.bools, o.Bool)
		count(&c.boolP, c.boolStart[i], c.boolStart[j])
	}
	return n
}

func (c *column) sizeBytes() int {
	n := 4*len(c.dense) + 4*len(c.sparseIDs) + 4*len(c.sparseRefs) + 4*len(c.unusable) + 8*len(c.nums) + 4*len(c.numStart) + 4*len(c.nan)
	n += c.num.sizeBytes() + c.str.sizeBytes() + c.boolP.sizeBytes()
	n += 4*len(c.strStart) + 4*len(c.boolStart) + 2*len(c.bools)
	for _, s := range c.strs {
		n += 16 + len(s)
	}
	return n
}
