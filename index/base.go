package index

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
)

// hostKey names a hostname column: the alpha prefix and the digit count.
type hostKey struct {
	alpha  string
	digits int
}

// hostCol holds the nodes of one hostname column sorted by numeric suffix.
type hostCol struct {
	// A column whose values and ids both count up in step from v0 and id0
	// (nodes named in id order, the usual case) keeps only those and n.
	seq    bool
	v0     uint64
	id0, n uint32
	vals   []uint64 // by position, ascending (unique: names are unique)
	p      postings
}

func newHostCol(vals []uint64, ids, bounds []uint32, words int) *hostCol {
	seq := true
	for i := range vals {
		if vals[i]-vals[0] != uint64(i) || ids[i]-ids[0] != uint32(i) {
			seq = false
			break
		}
	}
	if seq && len(vals) > 0 {
		return &hostCol{seq: true, v0: vals[0], id0: ids[0], n: uint32(len(vals))}
	}
	return &hostCol{vals: vals, p: newPostings(ids, bounds, words)}
}

// find returns the id of the node whose suffix is v.
func (h *hostCol) find(v uint64) (uint32, bool) {
	if h.seq {
		if v >= h.v0 && v-h.v0 < uint64(h.n) {
			return h.id0 + uint32(v-h.v0), true
		}
		return 0, false
	}
	i := sort.Search(len(h.vals), func(k int) bool { return h.vals[k] >= v })
	if i < len(h.vals) && h.vals[i] == v {
		return h.p.ids[i], true
	}
	return 0, false
}

// orRange ORs into dst the nodes whose suffix is in [lo, hi].
func (h *hostCol) orRange(dst []uint64, lo, hi uint64) {
	if h.seq {
		last := h.v0 + uint64(h.n) - 1
		lo, hi = max(lo, h.v0), min(hi, last)
		if lo <= hi {
			setRun(dst, h.id0+uint32(lo-h.v0), h.id0+uint32(hi-h.v0))
		}
		return
	}
	i := sort.Search(len(h.vals), func(k int) bool { return h.vals[k] >= lo })
	j := sort.Search(len(h.vals), func(k int) bool { return h.vals[k] > hi })
	h.p.orSpan(dst, span{uint32(i), uint32(j)})
}

func (h *hostCol) sizeBytes() int { return 48 + 8*len(h.vals) + h.p.sizeBytes() }

// rankCol holds every node's rank, sorted.
type rankCol struct {
	vals []uint32 // by position, ascending
	p    postings
}

// base is the columnar part of a snapshot: built once, then shared by every
// later snapshot until the next fold.
type base struct {
	bound uint32
	words int
	nodes []*Node  // by id; nil for holes
	has   []uint64 // dense: node has parsed extra data
	liveW []uint64 // dense: live ids
	// other maps the names that have no hostname column (no trailing
	// digits, or too many); every other name is found through its column.
	other map[string]uint32
	cols  map[string]*column
	props map[string]*roaring.Bitmap
	// propW holds, for the properties at least one node in 16 has, the
	// same set as dense words: no larger than roaring's array form, and a
	// leaf copies it instead of setting its bits one by one.
	propW map[string][]uint64
	hosts map[hostKey]*hostCol
	// ranks is nil when every node's rank is its id, the usual case.
	ranks *rankCol
	live  *roaring.Bitmap
}

// lookup returns the id of the live node named name.
func (b *base) lookup(name string) (uint32, bool) {
	alpha, digits := SplitHost(name)
	if digits != "" {
		if v, ok := digitsValue(digits); ok {
			if hc := b.hosts[hostKey{alpha, len(digits)}]; hc != nil {
				return hc.find(v)
			}
			return 0, false
		}
	}
	id, ok := b.other[name]
	return id, ok
}

// baseBuilder gathers nodes in id order and then builds their columns.
type baseBuilder struct {
	b       *base
	cols    map[string]*colBuilder
	propIDs map[string]*[]uint32
	hostIDs map[hostKey]*hostAcc
	ranks   []uint32 // by id
	// identity stays set while every node's rank equals its id.
	identity bool
	dup      string // a name seen twice
	// Documents and feature lists mostly repeat their keys in the same
	// order: caching by position skips most map lookups.
	keyCache  []keyed[*colBuilder]
	featCache []keyed[*[]uint32]
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

func newBaseBuilder(bound uint32) *baseBuilder {
	words := (int(bound) + 63) / 64
	return &baseBuilder{
		b: &base{
			bound: bound, words: words, nodes: make([]*Node, bound), has: make([]uint64, words),
			liveW: make([]uint64, words), other: map[string]uint32{}, live: roaring.New(),
		},
		ranks:    make([]uint32, bound),
		identity: true,
		cols:     map[string]*colBuilder{},
		propIDs:  map[string]*[]uint32{},
		hostIDs:  map[hostKey]*hostAcc{},
	}
}

func (bb *baseBuilder) col(key []byte) *colBuilder {
	c, ok := bb.cols[string(key)]
	if !ok {
		c = newColBuilder(bb.b.bound)
		bb.cols[string(key)] = c
	}
	return c
}

// colAt is col with a cache of the key seen at position i of the last
// documents.
func (bb *baseBuilder) colAt(i int, key []byte) *colBuilder {
	if i < len(bb.keyCache) && bb.keyCache[i].key == string(key) {
		return bb.keyCache[i].v
	}
	c := bb.col(key)
	if i < len(bb.keyCache) {
		bb.keyCache[i] = keyed[*colBuilder]{string(key), c}
	} else if i == len(bb.keyCache) {
		bb.keyCache = append(bb.keyCache, keyed[*colBuilder]{string(key), c})
	}
	return c
}

func (bb *baseBuilder) prop(i int, f string) *[]uint32 {
	if i < len(bb.featCache) && bb.featCache[i].key == f {
		return bb.featCache[i].v
	}
	ids, ok := bb.propIDs[f]
	if !ok {
		ids = new([]uint32)
		bb.propIDs[f] = ids
	}
	if i < len(bb.featCache) {
		bb.featCache[i] = keyed[*[]uint32]{f, ids}
	} else if i == len(bb.featCache) {
		bb.featCache = append(bb.featCache, keyed[*[]uint32]{f, ids})
	}
	return ids
}

// addNode records everything but the extra values of a live node.
func (bb *baseBuilder) addNode(id uint32, n *Node, has bool) {
	bb.addNodeNamed(id, n, has)
	bb.addFeatures(id, n)
}

// addFeatures records a node's features.
func (bb *baseBuilder) addFeatures(id uint32, n *Node) {
	for i, f := range n.Features {
		ids := bb.prop(i, f)
		if len(*ids) > 0 && (*ids)[len(*ids)-1] == id {
			continue
		}
		*ids = append(grow(*ids, id, bb.b.bound), id)
	}
}

// addNodeNamed records everything but the extra values and features of a
// live node: it is live, has parsed extra data or not, its name and rank.
func (bb *baseBuilder) addNodeNamed(id uint32, n *Node, has bool) {
	b := bb.b
	if b.nodes[id] != n { // a fold; a build starts from the node list
		b.nodes[id] = n
	}
	b.liveW[id>>6] |= 1 << (id & 63)
	if has {
		b.has[id>>6] |= 1 << (id & 63)
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
		case KindNumber:
			c.addNum(id, m.num)
		case KindString:
			c.addStr(id, text(m.val))
		case KindBool:
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
	b.propW = map[string][]uint64{}
	for f, ids := range bb.propIDs {
		bm := roaring.New()
		bm.AddMany(*ids)
		bm.RunOptimize()
		b.props[f] = bm
		if 16*len(*ids) >= int(b.bound) {
			w := make([]uint64, b.words)
			for _, id := range *ids {
				w[id>>6] |= 1 << (id & 63)
			}
			b.propW[f] = w
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

// digitsValue reads a run of decimal digits; ok is false on uint64 overflow
// (such a name then matches no range query, as in HostQuery.matchHost).
func digitsValue(digits string) (uint64, bool) {
	var v uint64
	for i := 0; i < len(digits); i++ {
		d := uint64(digits[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// cBytes cuts b at its first NUL: Slurm keeps json-c strings as C strings.
func cBytes(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// fastNumber is jsonNumber without allocating: integers are read as int64
// (clamped at its bounds, like strconv.ParseInt's error results), reals with
// strtod semantics.
func fastNumber(text []byte) float64 {
	real := false
	for _, c := range text {
		if c == '.' || c == 'e' || c == 'E' {
			real = true
			break
		}
	}
	if real {
		if f, ok := simpleDecimal(text); ok {
			return f
		}
		f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
		return f
	}
	s := text
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	clamp := float64(math.MaxInt64)
	if len(text) > 0 && text[0] == '-' {
		clamp = float64(math.MinInt64)
	}
	if len(s) == 0 {
		return clamp
	}
	var u uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return clamp
		}
		if u > (math.MaxUint64-9)/10 {
			return clamp
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return clamp
		}
		return float64(-int64(u))
	}
	if u > math.MaxInt64 {
		return clamp
	}
	return float64(int64(u))
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// simpleDecimal reads [-]digits.digits with at most 15 digits in all:
// mantissa and power of ten are then exact float64s and one IEEE division
// rounds correctly, exactly as strtod would.
func simpleDecimal(text []byte) (float64, bool) {
	s := text
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// buildBase indexes nodes (nil entries are holes) with one reused parser.
func buildBase(nodes []*Node) (*base, error) {
	bb := newBaseBuilder(uint32(len(nodes)))
	bb.b.nodes = nodes
	if len(nodes) < pipelineMin {
		var r extraReader
		for id, n := range nodes {
			if n == nil {
				continue
			}
			has := false
			if n.Extra != nil {
				has = bb.addExtra(&r, uint32(id), n.Extra)
			}
			bb.addNode(uint32(id), n, has)
		}
		return bb.finish()
	}
	// Large builds parse JSON ahead on two workers, a chunk of nodes at a
	// time, while this goroutine feeds the parsed chunks in id order to the
	// column builders and another records names, ranks and features. The
	// workers block once they are pipelineAhead chunks ahead, so the four
	// goroutines keep both cores busy however the costs shift; each writes
	// its own part of the builder.
	p := newChunkPipe(nodes)
	for range parseWorkers {
		go p.parse()
	}
	nodesDone := make(chan error, 1)
	go func() {
		for id, n := range nodes {
			if n != nil {
				bb.addNodeNamed(uint32(id), n, false)
				bb.addFeatures(uint32(id), n)
			}
		}
		err := bb.finishNodes()
		if err == nil {
			bb.finishProps()
		}
		nodesDone <- err
	}()
	has := bb.b.has
	for i := range p.chunks {
		c := p.next(i)
		for k := range c.hi - c.lo {
			if c.from[k] >= 0 {
				id := uint32(c.lo + k)
				has[id>>6] |= 1 << (id & 63)
				bb.addMembers(id, c.members[c.from[k]:c.to[k]], nodes[id].Extra, c.dec)
			}
		}
		p.release(i, c)
	}
	p.close()
	bb.finishCols(2)
	if err := <-nodesDone; err != nil {
		return nil, err
	}
	return bb.b, nil
}

// Large builds: from pipelineMin nodes, parseWorkers goroutines read JSON
// pipelineChunk nodes at a time, at most pipelineAhead chunks ahead.
const (
	pipelineMin   = 4096
	pipelineChunk = 2048
	pipelineAhead = 4
	parseWorkers  = 2
)

// parsedChunk is the extra JSON of nodes [lo, hi), read ahead: node lo+k's
// members are members[from[k]:to[k]], or from[k] < 0 when it has no parsed
// extra data. Decoded strings' spans point into dec.
type parsedChunk struct {
	lo, hi   int
	from, to []int32
	members  []member
	dec      []byte
}

// chunkPipe hands chunk indices to parse workers and their results back in
// order. Chunk i uses slot i%pipelineAhead: free[slot] holds the buffer
// until a worker takes it for chunk i, and ready[slot] holds the parsed
// chunk until the feeder takes it.
type chunkPipe struct {
	nodes  []*Node
	chunks int
	taken  atomic.Int64
	free   [pipelineAhead]chan *parsedChunk
	ready  [pipelineAhead]chan *parsedChunk
}

func newChunkPipe(nodes []*Node) *chunkPipe {
	p := &chunkPipe{nodes: nodes, chunks: (len(nodes) + pipelineChunk - 1) / pipelineChunk}
	for i := range pipelineAhead {
		p.free[i] = make(chan *parsedChunk, 1)
		p.ready[i] = make(chan *parsedChunk, 1)
		c, _ := chunkPool.Get().(*parsedChunk)
		if c == nil {
			c = new(parsedChunk)
		}
		p.free[i] <- c
	}
	return p
}

// chunkPool keeps parsed chunks' buffers from one large build to the next.
var chunkPool sync.Pool // of *parsedChunk

// close returns the buffers to chunkPool once every chunk is released.
func (p *chunkPipe) close() {
	for i := range pipelineAhead {
		chunkPool.Put(<-p.free[i])
	}
}

// parse reads chunks, taking the next unread one each time, until none is
// left.
func (p *chunkPipe) parse() {
	var r extraReader
	for {
		i := int(p.taken.Add(1)) - 1
		if i >= p.chunks {
			return
		}
		c := <-p.free[i%pipelineAhead]
		c.lo = i * pipelineChunk
		c.hi = min(c.lo+pipelineChunk, len(p.nodes))
		c.from, c.to = c.from[:0], c.to[:0]
		r.members, r.dec = c.members[:0], c.dec[:0]
		for _, n := range p.nodes[c.lo:c.hi] {
			from := int32(len(r.members))
			if n == nil || n.Extra == nil || !r.readMore(n.Extra) {
				from = -1
			}
			c.from = append(c.from, from)
			c.to = append(c.to, int32(len(r.members)))
		}
		c.members, c.dec = r.members, r.dec
		p.ready[i%pipelineAhead] <- c
	}
}

// next waits for chunk i.
func (p *chunkPipe) next(i int) *parsedChunk { return <-p.ready[i%pipelineAhead] }

// release hands chunk i's buffer back for chunk i+pipelineAhead.
func (p *chunkPipe) release(i int, c *parsedChunk) { p.free[i%pipelineAhead] <- c }

// cString cuts s at its first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
