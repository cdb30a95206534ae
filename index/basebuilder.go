package index

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/extra"
)

// baseBuilder gathers nodes in id order and then builds their columns.
type baseBuilder struct {
	b       *base
	cols    map[string]*colBuilder
	propIDs map[string]*propAcc
	hostIDs map[hostKey]*hostAcc
	ranks   []uint32 // by id
	// identity stays set while every node's rank equals its id.
	identity bool
	dup      string // a name seen twice
	// Documents and feature lists mostly repeat their keys in the same
	// order: caching by position skips most map lookups.
	keyCache  []keyed[*colBuilder]
	featCache []keyed[*propAcc]
	lastHost  hostKey
	lastRefs  *hostAcc
}

// hostAcc gathers one hostname column. While suffixes and ids count up
// together (the usual naming) it keeps only the run, so a build of a
// million such nodes holds no per-node references for them.
type hostAcc struct {
	seq    bool
	v0     uint64
	id0, n uint32
	refs   []hostRef // once the run is broken: every node of the column
}

func (a *hostAcc) add(v uint64, id, bound uint32) {
	switch {
	case a.n == 0:
		a.seq, a.v0, a.id0, a.n = true, v, id, 1
		return
	case a.seq && v > a.v0 && v-a.v0 == uint64(a.n) && id-a.id0 == a.n:
		a.n++
		return
	case a.seq:
		a.seq = false
		a.refs = make([]hostRef, a.n, max(2*int(a.n), 8))
		for i := range a.refs {
			a.refs[i] = hostRef{a.v0 + uint64(i), a.id0 + uint32(i)}
		}
	}
	a.refs = append(grow(a.refs, id, bound), hostRef{v, id})
}

type keyed[T any] struct {
	key string
	v   T
}

type hostRef struct {
	v  uint64
	id uint32
}

// newBaseBuilder starts a build of ids below bound; nodes, if not nil, is
// the id-indexed node list the build fills (bound long), else it makes one.
func newBaseBuilder(bound uint32, nodes []*Node) *baseBuilder {
	words := (int(bound) + 63) / 64
	if nodes == nil {
		nodes = make([]*Node, bound)
	}
	return &baseBuilder{
		b: &base{
			bound: bound, words: words, nodes: nodes, has: make([]uint64, words),
			liveW: make([]uint64, words), other: map[string]uint32{}, live: roaring.New(),
		},
		ranks:    make([]uint32, bound),
		identity: true,
		cols:     map[string]*colBuilder{},
		propIDs:  map[string]*propAcc{},
		hostIDs:  map[hostKey]*hostAcc{},
	}
}

func (bb *baseBuilder) col(key []byte) *colBuilder {
	c, ok := bb.cols[string(key)]
	if !ok {
		c = newColBuilder(bb.b.bound)
		c.key = string(key)
		bb.cols[c.key] = c
	}
	return c
}

// colAt is col with a cache of the key seen at position i of the last
// documents.
func (bb *baseBuilder) colAt(i int, key []byte) *colBuilder {
	if i < len(bb.keyCache) && bb.keyCache[i].key == string(key) {
		return bb.keyCache[i].v
	}
	// The builder's own copy of the key: documents whose keys take turns
	// at a position would otherwise copy the key at every turn.
	c := bb.col(key)
	if i < len(bb.keyCache) {
		bb.keyCache[i] = keyed[*colBuilder]{c.key, c}
	} else if i == len(bb.keyCache) {
		bb.keyCache = append(bb.keyCache, keyed[*colBuilder]{c.key, c})
	}
	return c
}

func (bb *baseBuilder) prop(i int, f string) *propAcc {
	if i < len(bb.featCache) && bb.featCache[i].key == f {
		return bb.featCache[i].v
	}
	acc, ok := bb.propIDs[f]
	if !ok {
		acc = &propAcc{bm: roaring.New()}
		bb.propIDs[f] = acc
	}
	if i < len(bb.featCache) {
		bb.featCache[i] = keyed[*propAcc]{f, acc}
	} else if i == len(bb.featCache) {
		bb.featCache = append(bb.featCache, keyed[*propAcc]{f, acc})
	}
	return acc
}

// propAcc gathers a property's ids into its bitmap propBatch at a time: a
// list of every id (8 MB at a million nodes with two features each) would
// be garbage as the build ends, when the heap is at its peak.
type propAcc struct {
	bm   *roaring.Bitmap
	buf  []uint32 // ids not yet in bm
	last uint32   // the id added last, when n > 0
	n    int      // ids added
}

const propBatch = 1024

// add records id once, however often a node lists the property.
func (a *propAcc) add(id uint32) {
	if a.n > 0 && a.last == id {
		return
	}
	a.last = id
	a.n++
	a.buf = append(a.buf, id)
	if len(a.buf) == propBatch {
		a.flush()
	}
}

func (a *propAcc) flush() {
	a.bm.AddMany(a.buf)
	a.buf = a.buf[:0]
}

// addNode records everything but the extra values of a live node.
func (bb *baseBuilder) addNode(id uint32, n *Node, has bool) {
	bb.addNodeNamed(id, n, has)
	bb.addFeatures(id, n)
}

// addFeatures records a node's features.
func (bb *baseBuilder) addFeatures(id uint32, n *Node) {
	for i, f := range n.Features {
		bb.prop(i, f).add(id)
	}
}

// addNodeNamed records everything but the extra values and features of a
// live node: it is live, has parsed extra data or not, its name and rank.
func (bb *baseBuilder) addNodeNamed(id uint32, n *Node, has bool) {
	b := bb.b
	if b.nodes[id] != n { // a fold; a build starts from the node list
		b.nodes[id] = n
	}
	addBit(b.liveW, id)
	if has {
		addBit(b.has, id)
	}
	bb.ranks[id] = n.Rank
	bb.identity = bb.identity && n.Rank == id
	hosted := false
	if alpha, digits := SplitHost(n.Name); digits != "" {
		if v, ok := digitsValue(digits); ok {
			hosted = true
			k := hostKey{alpha, len(digits)}
			if bb.lastRefs == nil || k != bb.lastHost {
				acc, ok := bb.hostIDs[k]
				if !ok {
					acc = new(hostAcc)
					bb.hostIDs[k] = acc
				}
				bb.lastHost, bb.lastRefs = k, acc
			}
			bb.lastRefs.add(v, id, b.bound)
		}
	}
	if !hosted {
		if _, dup := b.other[n.Name]; dup {
			bb.dup = n.Name
		}
		b.other[n.Name] = id
	}
}

// addExtra parses raw with r and records its values; it reports whether raw
// is accepted (the node then has parsed extra data).
func (bb *baseBuilder) addExtra(r *extraReader, id uint32, raw []byte) bool {
	members, ok := r.read(raw)
	if !ok {
		return false
	}
	bb.addMembers(id, members, raw, r.dec)
	return true
}

// addMembers records a node's parsed members; their spans resolve into raw,
// or into dec for decoded strings.
func (bb *baseBuilder) addMembers(id uint32, members []member, raw, dec []byte) {
	text := func(sp textSpan) []byte {
		if sp.dec {
			return dec[sp.lo:sp.hi]
		}
		return raw[sp.lo:sp.hi]
	}
	for i, m := range members {
		c := bb.colAt(i, text(m.key))
		switch m.kind {
		case extra.KindNumber:
			c.addNum(id, m.num)
		case extra.KindString:
			c.addStr(id, text(m.val))
		case extra.KindBool:
			c.addBool(id, m.t)
		default:
			c.addUnusable(id)
		}
	}
}

// finish builds the columns; it fails when two nodes share a name.
func (bb *baseBuilder) finish() (*base, error) {
	if err := bb.finishNodes(); err != nil {
		return nil, err
	}
	bb.finishProps()
	bb.finishCols(1)
	return bb.b, nil
}

// finishCols builds the extra-value columns on workers goroutines: each
// column finishes on its own.
func (bb *baseBuilder) finishCols(workers int) {
	b := bb.b
	bb.keyCache = nil
	type job struct {
		key string
		cb  *colBuilder
		c   *column
	}
	jobs := make([]job, 0, len(bb.cols))
	for k, c := range bb.cols {
		jobs = append(jobs, job{key: k, cb: c})
	}
	bb.cols = nil
	var next atomic.Int32
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(jobs) {
				return
			}
			jobs[i].c = jobs[i].cb.finish(b.bound, b.words)
			// Let the collector take each builder while the next one finishes.
			jobs[i].cb = nil
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	b.cols = make(map[string]*column, len(jobs))
	for _, j := range jobs {
		b.cols[j.key] = j.c
	}
}

// finishProps builds the property bitmaps.
func (bb *baseBuilder) finishProps() {
	b := bb.b
	b.props = make(map[string]*roaring.Bitmap, len(bb.propIDs))
	b.propBuf = make(map[string][]byte, len(bb.propIDs))
	b.propW = map[string]*propWords{}
	for f, acc := range bb.propIDs {
		acc.flush()
		bm := acc.bm
		bm.RunOptimize()
		buf, err := bm.ToBytes()
		view := roaring.New()
		if err == nil {
			_, err = view.FromBuffer(buf)
		}
		if err != nil {
			// Serializing a bitmap in memory cannot fail; should it, the
			// property is kept as built and never shared.
			view, buf = bm, nil
		}
		b.props[f] = view
		// A node named like the property adds itself (the hostname rule):
		// such a property is never shared as stored. Names are known here
		// (finishNodes ran first), so queries need not look them up.
		if _, named := b.lookup(f); buf != nil && !named {
			b.propBuf[f] = buf
		}
		if 16*acc.n >= int(b.bound) {
			pw := &propWords{w: make([]uint64, b.words), lo: b.words}
			bm.Iterate(func(id uint32) bool {
				addBit(pw.w, id)
				pw.lo, pw.hi = min(pw.lo, int(id>>6)), max(pw.hi, int(id>>6)+1)
				return true
			})
			b.propW[f] = pw
		}
	}
}

// finishNodes builds the hostname and rank columns and the live set. It
// fails when two nodes share a name.
func (bb *baseBuilder) finishNodes() error {
	b := bb.b
	if bb.dup != "" {
		return fmt.Errorf("index: duplicate node name %q", bb.dup)
	}
	b.hosts = make(map[hostKey]*hostCol, len(bb.hostIDs))
	for k, acc := range bb.hostIDs {
		if acc.seq {
			b.hosts[k] = &hostCol{seq: true, v0: acc.v0, id0: acc.id0, n: acc.n}
			continue
		}
		vals, ids, bounds := sortRefs(acc.refs)
		if len(bounds) != len(vals)+1 {
			for i := 1; i < len(vals); i++ {
				if vals[i] == vals[i-1] {
					return fmt.Errorf("index: duplicate node name %q", b.nodes[ids[i]].Name)
				}
			}
		}
		b.hosts[k] = newHostCol(vals, ids, bounds, b.words)
	}
	if !bb.identity {
		refs := make([]hostRef, 0, len(bb.ranks))
		for id, n := range b.nodes {
			if n != nil {
				refs = append(refs, hostRef{uint64(bb.ranks[id]), uint32(id)})
			}
		}
		vals, ids, bounds := sortRefs(refs)
		rv := make([]uint32, len(vals))
		for i, v := range vals {
			rv[i] = uint32(v)
		}
		b.ranks = &rankCol{vals: rv, p: newPostings(ids, bounds, b.words)}
	}
	b.live = roaring.FromDense(b.liveW, false)
	b.live.RunOptimize()
	return nil
}

// sortRefs orders refs by (value, id) and returns the values and ids by
// position and the positions where a new value starts (0 first, len last).
func sortRefs(refs []hostRef) (vals []uint64, ids, bounds []uint32) {
	slices.SortFunc(refs, func(x, y hostRef) int {
		if x.v != y.v {
			if x.v < y.v {
				return -1
			}
			return 1
		}
		return int(x.id) - int(y.id)
	})
	distinct := 0
	for i, r := range refs {
		if i == 0 || r.v != refs[i-1].v {
			distinct++
		}
	}
	vals = make([]uint64, len(refs))
	ids = make([]uint32, len(refs))
	bounds = make([]uint32, 0, distinct+1)
	for i, r := range refs {
		vals[i], ids[i] = r.v, r.id
		if i == 0 || r.v != refs[i-1].v {
			bounds = append(bounds, uint32(i))
		}
	}
	bounds = append(bounds, uint32(len(refs)))
	return vals, ids, bounds
}
