package index

import (
	"math"
	"slices"
	"strings"
)

// nanRef marks a NaN number in column.ref: NaN nodes sit outside the sorted
// order because they compare greater than every request.
const nanRef = math.MaxUint32

// column holds every node's value under one extra key, split by the node's
// JSON type. Each type keeps its distinct values in ascending order and the
// ids sorted by value, so every leaf is one or two position intervals.
type column struct {
	kind []Kind   // by id; KindMissing past the end
	ref  []uint32 // by id: index of the node's value among its type's distinct values

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

	unusable int
}

func (c *column) value(id uint32) Value {
	if int(id) >= len(c.kind) {
		return Value{}
	}
	r := c.ref[id]
	switch c.kind[id] {
	case KindNumber:
		if r == nanRef {
			return Value{Kind: KindNumber, Num: math.NaN()}
		}
		return Value{Kind: KindNumber, Num: c.nums[r]}
	case KindString:
		return Value{Kind: KindString, Str: c.strs[r]}
	case KindBool:
		return Value{Kind: KindBool, Bool: c.bools[r]}
	case KindUnusable:
		return Value{Kind: KindUnusable}
	}
	return Value{}
}

// numBounds returns [i, j): the distinct numbers comparing equal to b under
// cmp3. Over ascending values a-b never decreases under IEEE rounding, so the
// three-way result is a monotone LT* EQ* GT* sequence and binary search with
// the exact predicate finds the cuts.
func numBounds(vals []float64, b float64) (i, j int) {
	i = searchFirst(len(vals), func(k int) bool { return cmp3(vals[k], b) >= 0 })
	j = searchFirst(len(vals), func(k int) bool { return cmp3(vals[k], b) > 0 })
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

// orLeaf ORs into dst the ids in this column satisfying `value op o`.
func (c *column) orLeaf(op Op, o *Operand, dst []uint64) {
	if o.NumOK && len(c.num.ids) > 0 {
		i, j := numBounds(c.nums, o.Num)
		c.orSpans(&c.num, op, c.numStart[i], c.numStart[j], dst)
	}
	if len(c.nan) > 0 && o.NumOK && op.holds(1) {
		for _, id := range c.nan {
			dst[id>>6] |= 1 << (id & 63)
		}
	}
	if len(c.str.ids) > 0 {
		i, j := strBounds(c.strs, o.Raw)
		c.orSpans(&c.str, op, c.strStart[i], c.strStart[j], dst)
	}
	if len(c.boolP.ids) > 0 {
		i, j := boolBounds(c.bools, o.Bool)
		c.orSpans(&c.boolP, op, c.boolStart[i], c.boolStart[j], dst)
	}
}

func (c *column) orSpans(p *postings, op Op, i, j uint32, dst []uint64) {
	ss := opSpans(op, i, j, uint32(len(p.ids)))
	p.orSpan(dst, ss[0])
	p.orSpan(dst, ss[1])
}

// estimate counts the ids in this column satisfying the leaf.
func (c *column) estimate(op Op, o *Operand) int {
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
	if o.NumOK && op.holds(1) {
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
	n := 5*len(c.kind) + 8*len(c.nums) + 4*len(c.numStart) + 4*len(c.nan)
	n += c.num.sizeBytes() + c.str.sizeBytes() + c.boolP.sizeBytes()
	n += 4*len(c.strStart) + 4*len(c.boolStart) + 2*len(c.bools)
	for _, s := range c.strs {
		n += 16 + len(s)
	}
	return n
}

// ref is one node's value as an index into a builder's first-seen distinct
// values of one type.
type ref struct{ id, v uint32 }

// colBuilder gathers one key's values node by node (ids ascending), interning
// each distinct value once so that finishing sorts distinct values only.
type colBuilder struct {
	numIdx map[float64]uint32
	numVal []float64
	numRef []ref
	nan    []uint32

	strIdx map[string]uint32
	strVal []string
	strRef []ref

	boolRef []ref // v is 0 or 1

	unusable []uint32

	// The last id added and its kind, so a duplicate key in one document
	// replaces the earlier value (last wins, as in json-c).
	last     uint32
	lastKind Kind
	any      bool
}

func newColBuilder() *colBuilder {
	return &colBuilder{numIdx: map[float64]uint32{}, strIdx: map[string]uint32{}}
}

// begin drops the value id already has (a duplicate key) before a new one.
func (b *colBuilder) begin(id uint32) {
	if !b.any || b.last != id {
		b.any, b.last = true, id
		return
	}
	switch b.lastKind {
	case KindNumber:
		if n := len(b.nan); n > 0 && b.nan[n-1] == id {
			b.nan = b.nan[:n-1]
		} else {
			b.numRef = b.numRef[:len(b.numRef)-1]
		}
	case KindString:
		b.strRef = b.strRef[:len(b.strRef)-1]
	case KindBool:
		b.boolRef = b.boolRef[:len(b.boolRef)-1]
	case KindUnusable:
		b.unusable = b.unusable[:len(b.unusable)-1]
	}
}

func (b *colBuilder) addNum(id uint32, f float64) {
	b.begin(id)
	b.lastKind = KindNumber
	if f != f {
		b.nan = append(b.nan, id)
		return
	}
	v, ok := b.numIdx[f]
	if !ok {
		v = uint32(len(b.numVal))
		b.numIdx[f] = v
		b.numVal = append(b.numVal, f)
	}
	b.numRef = append(b.numRef, ref{id, v})
}

func (b *colBuilder) addStr(id uint32, s []byte) {
	b.begin(id)
	b.lastKind = KindString
	v, ok := b.strIdx[string(s)]
	if !ok {
		v = uint32(len(b.strVal))
		str := string(s)
		b.strIdx[str] = v
		b.strVal = append(b.strVal, str)
	}
	b.strRef = append(b.strRef, ref{id, v})
}

func (b *colBuilder) addBool(id uint32, t bool) {
	b.begin(id)
	b.lastKind = KindBool
	v := uint32(0)
	if t {
		v = 1
	}
	b.boolRef = append(b.boolRef, ref{id, v})
}

func (b *colBuilder) addUnusable(id uint32) {
	b.begin(id)
	b.lastKind = KindUnusable
	b.unusable = append(b.unusable, id)
}

func (b *colBuilder) addValue(id uint32, v Value) {
	switch v.Kind {
	case KindNumber:
		b.addNum(id, v.Num)
	case KindString:
		b.addStr(id, []byte(v.Str))
	case KindBool:
		b.addBool(id, v.Bool)
	case KindUnusable:
		b.addUnusable(id)
	}
}

// finish sorts the distinct values and lays the ids out in value order
// (ids ascending within one value) with a stable counting sort.
func (b *colBuilder) finish(bound uint32, words int) *column {
	c := &column{kind: make([]Kind, bound), ref: make([]uint32, bound), unusable: len(b.unusable)}
	for _, id := range b.unusable {
		c.kind[id] = KindUnusable
	}
	for _, id := range b.nan {
		c.kind[id], c.ref[id] = KindNumber, nanRef
	}
	c.nan = b.nan

	order := sortedOrder(len(b.numVal), func(x, y uint32) int { return cmpFloat(b.numVal[x], b.numVal[y]) })
	c.nums = permute(b.numVal, order)
	ids, start := place(b.numRef, order, KindNumber, c)
	c.numStart, c.num = start, newPostings(ids, start, words)

	order = sortedOrder(len(b.strVal), func(x, y uint32) int { return strings.Compare(b.strVal[x], b.strVal[y]) })
	c.strs = permute(b.strVal, order)
	ids, start = place(b.strRef, order, KindString, c)
	c.strStart, c.str = start, newPostings(ids, start, words)

	var seen [2]bool
	for _, r := range b.boolRef {
		seen[r.v] = true
	}
	var bv []uint32
	for v := range seen {
		if seen[v] {
			c.bools = append(c.bools, v == 1)
			bv = append(bv, uint32(v))
		}
	}
	order = make([]uint32, 2)
	for rank, v := range bv {
		order[v] = uint32(rank)
	}
	ids, start = placeRanked(b.boolRef, order, len(bv), KindBool, c)
	c.boolStart, c.boolP = start, newPostings(ids, start, words)
	return c
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// sortedOrder returns the values' indices sorted by cmp.
func sortedOrder(n int, cmp func(x, y uint32) int) []uint32 {
	idx := make([]uint32, n)
	for i := range idx {
		idx[i] = uint32(i)
	}
	slices.SortFunc(idx, cmp)
	return idx
}

func permute[T any](vals []T, order []uint32) []T {
	out := make([]T, len(order))
	for k, i := range order {
		out[k] = vals[i]
	}
	return out
}

// place lays refs out in the order of their values; order[k] is the k-th
// smallest value's first-seen index.
func place(refs []ref, order []uint32, kind Kind, c *column) (ids, start []uint32) {
	rank := make([]uint32, len(order))
	for k, i := range order {
		rank[i] = uint32(k)
	}
	return placeRanked(refs, rank, len(order), kind, c)
}

func placeRanked(refs []ref, rank []uint32, distinct int, kind Kind, c *column) (ids, start []uint32) {
	start = make([]uint32, distinct+1)
	for _, r := range refs {
		start[rank[r.v]+1]++
	}
	for k := 1; k <= distinct; k++ {
		start[k] += start[k-1]
	}
	next := slices.Clone(start[:distinct])
	ids = make([]uint32, len(refs))
	for _, r := range refs {
		k := rank[r.v]
		ids[next[k]] = r.id
		next[k]++
		c.kind[r.id], c.ref[r.id] = kind, k
	}
	return ids, start
}
