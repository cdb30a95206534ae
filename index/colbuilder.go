package index

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/nodesift/sift/extra"
)

// maxInterned bounds the distinct numbers a column builder interns. Past
// it a column spills to 16-byte numEnts a node, all garbage once the column
// is built: at a million nodes a key of a few ten thousand values (a rack
// number) spilled 28 MB at 4096, the most of the build's garbage, which the
// collector held in flight as the build ended (438 MiB peak for sift match
// of the synthetic node file, 425 MiB at 1<<16, the same answer, 4% less
// CPU). Interned, such a column costs a map entry a distinct value. (A
// variable so that tests can spill small columns.)
var maxInterned = 1 << 16

type hotNum struct {
	k uint64
	v uint32 // value index + 1; 0 when empty
}

type hotStr struct {
	s string
	v uint32 // value index + 1; 0 when empty
}

// ref is one node's value as an index into a builder's first-seen distinct
// values of one type.
type ref struct{ id, v uint32 }

// colBuilder gathers one key's values node by node (ids ascending), interning
// each distinct value once so that finishing sorts distinct values only.
type colBuilder struct {
	// key is the extra key of the column (empty in a fold's builders,
	// which are not looked up by key).
	key string
	// Numbers are interned like strings (numRef into numKeys) while the
	// column has at most maxInterned distinct ones: refs are half the size
	// of numEnts and finishing sorts distinct values only. Past that, and in
	// folds, they spill to nums.
	numKeys []uint64
	numRef  []ref
	numHot  [256]hotNum
	numIdx  map[uint64]uint32
	spilled bool

	nums []numEnt
	// unsorted is set once nums are not in key order; late are numbers
	// merged into a sorted nums at the end.
	unsorted bool
	late     []numEnt
	// strHot is a direct-mapped cache in front of strIdx: most keys have
	// few distinct strings.
	strHot [16]hotStr
	nan    []uint32

	strIdx map[string]uint32
	strVal []string
	strRef []ref

	boolRef []ref // v is 0 or 1

	unusable []uint32

	// bound is the id bound of the build, for sizing the lists.
	bound uint32

	// dense, once set, holds each id's value as a vref whose index is
	// first-seen (the final column's dense list, renumbered by finish)
	// in place of numRef, strRef and boolRef: a key most nodes have then
	// costs 4 bytes a node instead of 8, and no list to throw away. NaN,
	// unusable and spilled numbers still keep their lists too. A builder
	// switches when denseAfter of its first ids have the key, at least
	// half of them.
	dense []uint32
	count int // ids that have the key, until dense is set

	// The last id added and its kind, so a duplicate key in one document
	// replaces the earlier value (last wins, as in json-c).
	last     uint32
	lastKind extra.Kind
	any      bool
	// pooled is set when the ref lists come from refPool (a fold's
	// builder), so that finish hands them back.
	pooled bool
}

// refPool recycles folds' ref lists: a fold at 100k nodes would otherwise
// allocate and clear megabytes of them, all garbage once it finishes.
var refPool sync.Pool // of *[]ref

// pooledRefs returns an empty ref list with room for n.
func pooledRefs(n int) []ref {
	if p, ok := refPool.Get().(*[]ref); ok {
		if cap(*p) >= n {
			return (*p)[:0]
		}
		refPool.Put(p)
	}
	return make([]ref, 0, n)
}

func releaseRefs(s []ref) {
	if cap(s) > 0 {
		s = s[:0]
		refPool.Put(&s)
	}
}

func newColBuilder(bound uint32) *colBuilder {
	return &colBuilder{strIdx: map[string]uint32{}, bound: bound}
}

// grow reserves room for s once it is full, projecting its final length
// from its share of the ids seen so far (id is the node being added), so
// that large columns grow once instead of doubling repeatedly.
func grow[T any](s []T, id, bound uint32) []T {
	if len(s) < cap(s) || len(s) < 1024 {
		return s
	}
	want := int(uint64(len(s)) * uint64(bound) / uint64(id+1) * 9 / 8)
	return slices.Grow(s, max(want-len(s), len(s)/4))
}

// denseAfter is the number of ids with a key after which a builder whose
// key at least half the ids so far have switches to dense.
const denseAfter = 1024

// begin drops the value id already has (a duplicate key) before a new one.
func (b *colBuilder) begin(id uint32) {
	if !b.any || b.last != id {
		b.any, b.last = true, id
		if b.dense == nil {
			if b.count++; b.count == denseAfter && 2*uint64(b.count) >= uint64(id)+1 {
				b.toDense()
			}
		}
		return
	}
	// In dense mode the new value overwrites id's entry; only the lists
	// lose their last element.
	switch b.lastKind {
	case extra.KindNumber:
		if n := len(b.nan); n > 0 && b.nan[n-1] == id {
			b.nan = b.nan[:n-1]
		} else if b.spilled {
			b.nums = b.nums[:len(b.nums)-1]
		} else if b.dense == nil {
			b.numRef = b.numRef[:len(b.numRef)-1]
		}
	case extra.KindString:
		if b.dense == nil {
			b.strRef = b.strRef[:len(b.strRef)-1]
		}
	case extra.KindBool:
		if b.dense == nil {
			b.boolRef = b.boolRef[:len(b.boolRef)-1]
		}
	case extra.KindUnusable:
		b.unusable = b.unusable[:len(b.unusable)-1]
	}
	if b.dense != nil {
		b.dense[id] = 0
	}
}

// toDense moves the builder to dense mode.
func (b *colBuilder) toDense() {
	d := make([]uint32, b.bound)
	for _, r := range b.numRef {
		d[r.id] = vref(extra.KindNumber, r.v)
	}
	for _, r := range b.strRef {
		d[r.id] = vref(extra.KindString, r.v)
	}
	for _, r := range b.boolRef {
		d[r.id] = vref(extra.KindBool, r.v)
	}
	// Spilled numbers are placed by finish; these mark them present.
	for _, e := range b.nums {
		d[e.id] = vref(extra.KindNumber, 0)
	}
	for _, e := range b.late {
		d[e.id] = vref(extra.KindNumber, 0)
	}
	for _, id := range b.nan {
		d[id] = vref(extra.KindNumber, nanIdx)
	}
	for _, id := range b.unusable {
		d[id] = vref(extra.KindUnusable, 0)
	}
	if b.pooled {
		releaseRefs(b.numRef)
		releaseRefs(b.strRef)
		releaseRefs(b.boolRef)
	}
	b.numRef, b.strRef, b.boolRef = nil, nil, nil
	b.dense = d
}

func (b *colBuilder) addNum(id uint32, f float64) {
	b.begin(id)
	b.lastKind = extra.KindNumber
	if f != f {
		b.nan = append(b.nan, id)
		if b.dense != nil {
			b.dense[id] = vref(extra.KindNumber, nanIdx)
		}
		return
	}
	k := floatKey(f)
	if b.intern(id, k) {
		return
	}
	if n := len(b.nums); n > 0 && k < b.nums[n-1].key {
		b.unsorted = true
	}
	b.nums = grow(b.nums, id, b.bound)
	b.nums = append(b.nums, numEnt{k, id})
	if b.dense != nil {
		b.dense[id] = vref(extra.KindNumber, 0)
	}
}

// intern records number key k of id as a ref, unless the builder has
// spilled or spills now.
func (b *colBuilder) intern(id uint32, k uint64) bool {
	if b.spilled {
		return false
	}
	h := &b.numHot[(k*0x9E3779B97F4A7C15)>>56]
	if h.v == 0 || h.k != k {
		v, ok := b.numIdx[k]
		if !ok {
			if len(b.numKeys) >= maxInterned {
				b.spill()
				return false
			}
			if b.numIdx == nil {
				b.numIdx = map[uint64]uint32{}
			}
			v = uint32(len(b.numKeys))
			b.numIdx[k] = v
			b.numKeys = append(b.numKeys, k)
		}
		h.k, h.v = k, v+1
	}
	if b.dense != nil {
		b.dense[id] = vref(extra.KindNumber, h.v-1)
		return true
	}
	b.numRef = grow(b.numRef, id, b.bound)
	b.numRef = append(b.numRef, ref{id, h.v - 1})
	return true
}

// spill moves the interned numbers to nums, for good.
func (b *colBuilder) spill() {
	if b.spilled {
		return
	}
	b.spilled = true
	if b.dense != nil {
		// In id order, as the refs would be.
		for id, r := range b.dense {
			if extra.Kind(r>>kindShift) == extra.KindNumber && r&idxMask != nanIdx {
				if k := b.numKeys[r&idxMask]; len(b.nums) > 0 && k < b.nums[len(b.nums)-1].key {
					b.unsorted = true
				}
				b.nums = append(b.nums, numEnt{b.numKeys[r&idxMask], uint32(id)})
			}
		}
		b.numKeys, b.numIdx = nil, nil
		return
	}
	b.nums = slices.Grow(b.nums, len(b.numRef))
	for _, r := range b.numRef {
		k := b.numKeys[r.v]
		if n := len(b.nums); n > 0 && k < b.nums[n-1].key {
			b.unsorted = true
		}
		b.nums = append(b.nums, numEnt{k, r.id})
	}
	b.numKeys, b.numRef, b.numIdx = nil, nil, nil
}

// addLateNum adds a number that belongs after the sorted run of nums was
// fed in value order (a fold feeds a column's numbers that way, then the
// few changed nodes' ones).
func (b *colBuilder) addLateNum(id uint32, f float64) {
	if f != f {
		b.nan = append(b.nan, id)
		if b.dense != nil {
			b.dense[id] = vref(extra.KindNumber, nanIdx)
		}
		return
	}
	if k := floatKey(f); !b.intern(id, k) {
		b.late = append(b.late, numEnt{k, id})
		if b.dense != nil {
			b.dense[id] = vref(extra.KindNumber, 0)
		}
	}
}

func (b *colBuilder) addStr(id uint32, s []byte) {
	b.begin(id)
	b.lastKind = extra.KindString
	k := len(s)
	if k > 0 {
		k += int(s[0])*7 + int(s[k-1])*3
	}
	h := &b.strHot[k&15]
	if h.v == 0 || h.s != string(s) {
		v, ok := b.strIdx[string(s)]
		if !ok {
			v = uint32(len(b.strVal))
			str := string(s)
			b.strIdx[str] = v
			b.strVal = append(b.strVal, str)
		}
		h.s, h.v = b.strVal[v], v+1
	}
	if b.dense != nil {
		b.dense[id] = vref(extra.KindString, h.v-1)
		return
	}
	b.strRef = grow(b.strRef, id, b.bound)
	b.strRef = append(b.strRef, ref{id, h.v - 1})
}

func (b *colBuilder) addBool(id uint32, t bool) {
	b.begin(id)
	b.lastKind = extra.KindBool
	v := uint32(0)
	if t {
		v = 1
	}
	if b.dense != nil {
		b.dense[id] = vref(extra.KindBool, v)
		return
	}
	b.boolRef = grow(b.boolRef, id, b.bound)
	b.boolRef = append(b.boolRef, ref{id, v})
}

func (b *colBuilder) addUnusable(id uint32) {
	b.begin(id)
	b.lastKind = extra.KindUnusable
	b.unusable = append(b.unusable, id)
	if b.dense != nil {
		b.dense[id] = vref(extra.KindUnusable, 0)
	}
}

func (b *colBuilder) addValue(id uint32, v extra.Value) {
	switch v.Kind {
	case extra.KindNumber:
		b.addNum(id, v.Num)
	case extra.KindString:
		b.addStr(id, []byte(v.Str))
	case extra.KindBool:
		b.addBool(id, v.Bool)
	case extra.KindUnusable:
		b.addUnusable(id)
	}
}

// finish sorts the distinct values and lays the ids out in value order
// with a stable counting sort: ids ascending within one value, except in
// a fold's ref lists, which list a value's changed ids after its old ones
// (leaves do not depend on the order within a value).
func (b *colBuilder) finish(bound uint32, words int) *column {
	if b.dense != nil {
		return b.finishDense(words)
	}
	c := &column{unusable: b.unusable}
	if n := b.valueCount(); placeSparse && 2*n < int(bound) {
		// compact would keep pairs: place the vrefs there directly rather
		// than in a dense list of bound entries (4 MB at a million ids)
		// that would be garbage once compacted.
		c.slots = b.slots(bound, n)
		c.sparseIDs, c.sparseRefs = c.slots.ids(n), make([]uint32, n)
	} else {
		c.dense = make([]uint32, bound)
	}
	slices.Sort(c.unusable)
	for _, id := range b.unusable {
		c.setRef(id, vref(extra.KindUnusable, 0))
	}
	for _, id := range b.nan {
		c.setRef(id, vref(extra.KindNumber, nanIdx))
	}
	c.nan = b.nan

	var ids, start []uint32
	if b.spilled {
		ids, start = c.placeNums(b.numbers())
	} else {
		ids, start = c.placeInterned(b.numKeys, b.numRef)
	}
	c.numStart, c.num = start, newPostings(ids, start, words)

	order := sortedOrder(len(b.strVal), func(x, y uint32) int { return strings.Compare(b.strVal[x], b.strVal[y]) })
	c.strs = permute(b.strVal, order)
	ids, start = place(b.strRef, order, extra.KindString, c)
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
	ids, start = placeRanked(b.boolRef, order, len(bv), extra.KindBool, c)
	c.boolStart, c.boolP = start, newPostings(ids, start, words)
	c.compact()
	if b.pooled {
		releaseRefs(b.numRef)
		releaseRefs(b.strRef)
		releaseRefs(b.boolRef)
		b.numRef, b.strRef, b.boolRef = nil, nil, nil
	}
	return c
}

// finishDense is finish for a builder in dense mode: the ids are laid out
// by a counting sort over the dense list, which is renumbered in place.
func (b *colBuilder) finishDense(words int) *column {
	c := &column{dense: b.dense, unusable: b.unusable, nan: b.nan}
	b.dense = nil
	slices.Sort(c.unusable)
	if b.spilled {
		ids, start := c.placeNums(b.numbers())
		c.numStart, c.num = start, newPostings(ids, start, words)
	}
	numCount := make([]uint32, len(b.numKeys))
	strCount := make([]uint32, len(b.strVal))
	var boolCount [2]uint32
	for _, r := range c.dense {
		i := r & idxMask
		switch extra.Kind(r >> kindShift) {
		case extra.KindNumber:
			if !b.spilled && i != nanIdx {
				numCount[i]++
			}
		case extra.KindString:
			strCount[i]++
		case extra.KindBool:
			boolCount[i]++
		}
	}
	// rank maps a first-seen index to its position in value order; next
	// starts as each value's first position in its ids.
	lay := func(count []uint32, order []uint32) (rank, next, start, ids []uint32) {
		rank = make([]uint32, len(count))
		start = make([]uint32, 0, len(order)+1)
		pos := uint32(0)
		for k, i := range order {
			rank[i] = uint32(k)
			start = append(start, pos)
			pos += count[i]
		}
		start = append(start, pos)
		return rank, slices.Clone(start[:len(order)]), start, make([]uint32, pos)
	}
	var numRank, numNext, numIDs []uint32
	if !b.spilled {
		order := sortedOrder(len(b.numKeys), func(x, y uint32) int { return cmp.Compare(b.numKeys[x], b.numKeys[y]) })
		c.nums = make([]float64, len(order))
		for k, i := range order {
			c.nums[k] = keyFloat(b.numKeys[i])
		}
		numRank, numNext, c.numStart, numIDs = lay(numCount, order)
	}
	order := sortedOrder(len(b.strVal), func(x, y uint32) int { return strings.Compare(b.strVal[x], b.strVal[y]) })
	c.strs = permute(b.strVal, order)
	strRank, strNext, strStart, strIDs := lay(strCount, order)
	var boolOrder []uint32
	for v := range boolCount {
		if boolCount[v] > 0 {
			c.bools = append(c.bools, v == 1)
			boolOrder = append(boolOrder, uint32(v))
		}
	}
	boolRank, boolNext, boolStart, boolIDs := lay(boolCount[:], boolOrder)
	for id, r := range c.dense {
		i := r & idxMask
		switch extra.Kind(r >> kindShift) {
		case extra.KindNumber:
			if !b.spilled && i != nanIdx {
				k := numRank[i]
				numIDs[numNext[k]] = uint32(id)
				numNext[k]++
				c.dense[id] = vref(extra.KindNumber, k)
			}
		case extra.KindString:
			k := strRank[i]
			strIDs[strNext[k]] = uint32(id)
			strNext[k]++
			c.dense[id] = vref(extra.KindString, k)
		case extra.KindBool:
			k := boolRank[i]
			boolIDs[boolNext[k]] = uint32(id)
			boolNext[k]++
			c.dense[id] = vref(extra.KindBool, k)
		}
	}
	if !b.spilled {
		c.num = newPostings(numIDs, c.numStart, words)
	}
	c.strStart, c.str = strStart, newPostings(strIDs, strStart, words)
	c.boolStart, c.boolP = boolStart, newPostings(boolIDs, boolStart, words)
	c.compact()
	return c
}

// placeSparse lets finish place a sparse column's pairs directly; tests
// clear it to compare with the dense list compact turns into pairs.
var placeSparse = true

// valueCount is the number of ids with a value, as the column finish makes
// will count them.
func (b *colBuilder) valueCount() int {
	n := len(b.unusable) + len(b.nan) + len(b.strRef) + len(b.boolRef)
	if b.spilled {
		return n + len(b.nums) + len(b.late)
	}
	return n + len(b.numRef)
}

// sparseSlots gives each of a set of ids its position in the set's
// ascending order: the ids are bits, and before[w] counts those in the
// words below w.
type sparseSlots struct {
	bits   []uint64
	before []uint32
}

// slots marks the n ids that have a value in b (for finish, not dense mode).
func (b *colBuilder) slots(bound uint32, n int) *sparseSlots {
	words := (int(bound) + 63) / 64
	s := &sparseSlots{bits: make([]uint64, words), before: make([]uint32, words)}
	for _, id := range b.unusable {
		addBit(s.bits, id)
	}
	for _, id := range b.nan {
		addBit(s.bits, id)
	}
	for _, refs := range [][]ref{b.numRef, b.strRef, b.boolRef} {
		for _, r := range refs {
			addBit(s.bits, r.id)
		}
	}
	if b.spilled {
		for _, es := range [][]numEnt{b.nums, b.late} {
			for _, e := range es {
				addBit(s.bits, e.id)
			}
		}
	}
	k := uint32(0)
	for w, x := range s.bits {
		s.before[w] = k
		k += uint32(bits.OnesCount64(x))
	}
	return s
}

// ids lists the marked ids in ascending order.
func (s *sparseSlots) ids(n int) []uint32 {
	ids := make([]uint32, 0, n)
	for w, x := range s.bits {
		for ; x != 0; x &= x - 1 {
			ids = append(ids, uint32(w*64+bits.TrailingZeros64(x)))
		}
	}
	return ids
}

// setRef records id's vref, in the dense list or, while finish places a
// sparse column, at id's slot among its pairs.
func (c *column) setRef(id, r uint32) {
	if c.slots == nil {
		c.dense[id] = r
		return
	}
	w := id >> 6
	c.sparseRefs[c.slots.before[w]+uint32(bits.OnesCount64(c.slots.bits[w]&(1<<(id&63)-1)))] = r
}

// compact switches to sparse vrefs when fewer than half the ids have the
// key: pairs cost 8 bytes a node that has it, dense 4 bytes an id. A
// column finish placed as pairs already is.
func (c *column) compact() {
	if c.slots != nil {
		c.slots = nil
		return
	}
	n := len(c.num.ids) + len(c.nan) + len(c.str.ids) + len(c.boolP.ids) + len(c.unusable)
	if 2*n >= len(c.dense) {
		return
	}
	c.sparseIDs, c.sparseRefs = make([]uint32, 0, n), make([]uint32, 0, n)
	for id, r := range c.dense {
		if r != 0 {
			c.sparseIDs = append(c.sparseIDs, uint32(id))
			c.sparseRefs = append(c.sparseRefs, r)
		}
	}
	c.dense = nil
}

// numbers returns every number in key order.
func (b *colBuilder) numbers() []numEnt {
	if b.unsorted {
		return radixSort(append(b.nums, b.late...))
	}
	if len(b.late) == 0 {
		return b.nums
	}
	slices.SortFunc(b.late, func(x, y numEnt) int {
		if x.key < y.key {
			return -1
		}
		if x.key > y.key {
			return 1
		}
		return 0
	})
	out := make([]numEnt, 0, len(b.nums)+len(b.late))
	i, j := 0, 0
	for i < len(b.nums) && j < len(b.late) {
		if b.late[j].key < b.nums[i].key {
			out = append(out, b.late[j])
			j++
		} else {
			out = append(out, b.nums[i])
			i++
		}
	}
	out = append(out, b.nums[i:]...)
	return append(out, b.late[j:]...)
}

// placeNums records the numbers' distinct values; es is in key order.
func (c *column) placeNums(es []numEnt) (ids, start []uint32) {
	if len(es) == 0 {
		return nil, []uint32{0}
	}
	distinct := 1
	for i := 1; i < len(es); i++ {
		if es[i].key != es[i-1].key {
			distinct++
		}
	}
	// Sized exactly: these are kept, and at a million nodes doubling
	// would leave megabytes of slack.
	start = make([]uint32, 0, distinct+1)
	c.nums = make([]float64, 0, distinct)
	ids = make([]uint32, len(es))
	for i, e := range es {
		if i == 0 || e.key != es[i-1].key {
			start = append(start, uint32(i))
			c.nums = append(c.nums, keyFloat(e.key))
		}
		ids[i] = e.id
		c.setRef(e.id, vref(extra.KindNumber, uint32(len(c.nums)-1)))
	}
	return ids, append(start, uint32(len(es)))
}

// placeInterned records the distinct numbers keys and lays refs out in
// their order.
func (c *column) placeInterned(keys []uint64, refs []ref) (ids, start []uint32) {
	order := sortedOrder(len(keys), func(x, y uint32) int { return cmp.Compare(keys[x], keys[y]) })
	rank := make([]uint32, len(keys))
	c.nums = make([]float64, len(keys))
	for r, i := range order {
		rank[i] = uint32(r)
		c.nums[r] = keyFloat(keys[i])
	}
	return placeRanked(refs, rank, len(keys), extra.KindNumber, c)
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
func place(refs []ref, order []uint32, kind extra.Kind, c *column) (ids, start []uint32) {
	rank := make([]uint32, len(order))
	for k, i := range order {
		rank[i] = uint32(k)
	}
	return placeRanked(refs, rank, len(order), kind, c)
}

func placeRanked(refs []ref, rank []uint32, distinct int, kind extra.Kind, c *column) (ids, start []uint32) {
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
		c.setRef(r.id, vref(kind, k))
	}
	return ids, start
}

// feed adds this column's values, except those of the ids set in skip, to
// cb in value order, so that cb needs no sorting; cb keeps room for late
// more values of each type.
func (c *column) feed(cb *colBuilder, skip []uint64, late int) {
	skipped := func(id uint32) bool { return hasBit(skip, id) }
	if len(c.nums) <= maxInterned {
		cb.numKeys = make([]uint64, len(c.nums), len(c.nums)+1)
		cb.numIdx = make(map[uint64]uint32, len(c.nums))
		for d, v := range c.nums {
			cb.numKeys[d] = floatKey(v)
			cb.numIdx[cb.numKeys[d]] = uint32(d)
		}
		cb.pooled = true
		cb.numRef = pooledRefs(len(c.num.ids) + late)
		for d := range c.nums {
			for _, id := range c.num.ids[c.numStart[d]:c.numStart[d+1]] {
				if !skipped(id) {
					cb.numRef = append(cb.numRef, ref{id, uint32(d)})
				}
			}
		}
	} else {
		cb.spill()
		cb.nums = slices.Grow(cb.nums, len(c.num.ids))
		for d, v := range c.nums {
			k := floatKey(v)
			for _, id := range c.num.ids[c.numStart[d]:c.numStart[d+1]] {
				if !skipped(id) {
					cb.nums = append(cb.nums, numEnt{k, id})
				}
			}
		}
	}
	cb.pooled = true
	cb.strRef = pooledRefs(len(c.str.ids) + late)
	cb.boolRef = pooledRefs(len(c.boolP.ids) + late)
	for _, id := range c.nan {
		if !skipped(id) {
			cb.nan = append(cb.nan, id)
		}
	}
	for d, v := range c.strs {
		r := uint32(len(cb.strVal))
		cb.strIdx[v] = r
		cb.strVal = append(cb.strVal, v)
		for _, id := range c.str.ids[c.strStart[d]:c.strStart[d+1]] {
			if !skipped(id) {
				cb.strRef = append(cb.strRef, ref{id, r})
			}
		}
	}
	for d, v := range c.bools {
		r := uint32(0)
		if v {
			r = 1
		}
		for _, id := range c.boolP.ids[c.boolStart[d]:c.boolStart[d+1]] {
			if !skipped(id) {
				cb.boolRef = append(cb.boolRef, ref{id, r})
			}
		}
	}
	for _, id := range c.unusable {
		if !skipped(id) {
			cb.unusable = append(cb.unusable, id)
		}
	}
}
