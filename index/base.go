package index

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/valyala/fastjson"
)

// hostKey names a hostname column: the alpha prefix and the digit count.
type hostKey struct {
	alpha  string
	digits int
}

// hostCol holds the nodes of one hostname column sorted by numeric suffix.
type hostCol struct {
	vals []uint64 // by position, ascending (unique: names are unique)
	p    postings
}

// rankCol holds every node's rank, sorted.
type rankCol struct {
	vals []uint32 // by position, ascending
	p    postings
}

// base is the columnar part of a snapshot: built once, then shared by every
// later snapshot until the next fold.
type base struct {
	bound  uint32
	words  int
	nodes  []*Node  // by id; nil for holes
	has    []uint64 // dense: node has parsed extra data
	byName map[string]uint32
	cols   map[string]*column
	props  map[string]*roaring.Bitmap
	hosts  map[hostKey]*hostCol
	ranks  rankCol
	live   *roaring.Bitmap
}

// baseBuilder gathers nodes in id order and then builds their columns.
type baseBuilder struct {
	b       *base
	cols    map[string]*colBuilder
	propIDs map[string][]uint32
	hostIDs map[hostKey][]hostRef
	ranks   []hostRef
	num     []byte
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
			byName: make(map[string]uint32, bound), live: roaring.New(),
		},
		cols:    map[string]*colBuilder{},
		propIDs: map[string][]uint32{},
		hostIDs: map[hostKey][]hostRef{},
	}
}

func (bb *baseBuilder) col(key []byte) *colBuilder {
	c, ok := bb.cols[string(key)]
	if !ok {
		c = newColBuilder()
		bb.cols[string(key)] = c
	}
	return c
}

// addNode records everything but the extra values of a live node.
func (bb *baseBuilder) addNode(id uint32, n *Node, has bool) {
	b := bb.b
	b.nodes[id] = n
	b.byName[n.Name] = id
	if has {
		b.has[id>>6] |= 1 << (id & 63)
	}
	for _, f := range n.Features {
		ids := bb.propIDs[f]
		if len(ids) > 0 && ids[len(ids)-1] == id {
			continue
		}
		bb.propIDs[f] = append(ids, id)
	}
	if alpha, digits := SplitHost(n.Name); digits != "" {
		if v, ok := digitsValue(digits); ok {
			k := hostKey{alpha, len(digits)}
			bb.hostIDs[k] = append(bb.hostIDs[k], hostRef{v, id})
		}
	}
	bb.ranks = append(bb.ranks, hostRef{uint64(n.Rank), id})
}

// addExtra parses raw with p and records its values; it reports whether raw
// is valid JSON (the node then has parsed extra data).
func (bb *baseBuilder) addExtra(p *fastjson.Parser, id uint32, raw []byte) bool {
	v, err := p.ParseBytes(raw)
	if err != nil {
		return false
	}
	o, err := v.Object()
	if err != nil {
		return true
	}
	o.Visit(func(key []byte, v *fastjson.Value) {
		c := bb.col(cBytes(key))
		switch v.Type() {
		case fastjson.TypeNumber:
			bb.num = v.MarshalTo(bb.num[:0])
			c.addNum(id, fastNumber(bb.num))
		case fastjson.TypeString:
			s, _ := v.StringBytes()
			c.addStr(id, cBytes(s))
		case fastjson.TypeTrue:
			c.addBool(id, true)
		case fastjson.TypeFalse:
			c.addBool(id, false)
		default:
			c.addUnusable(id)
		}
	})
	return true
}

func (bb *baseBuilder) finish() *base {
	b := bb.b
	b.cols = make(map[string]*column, len(bb.cols))
	for k, c := range bb.cols {
		b.cols[k] = c.finish(b.bound, b.words)
	}
	b.props = make(map[string]*roaring.Bitmap, len(bb.propIDs))
	for f, ids := range bb.propIDs {
		bm := roaring.New()
		bm.AddMany(ids)
		bm.RunOptimize()
		b.props[f] = bm
	}
	b.hosts = make(map[hostKey]*hostCol, len(bb.hostIDs))
	for k, refs := range bb.hostIDs {
		vals, ids, bounds := sortRefs(refs)
		b.hosts[k] = &hostCol{vals: vals, p: newPostings(ids, bounds, b.words)}
	}
	vals, ids, bounds := sortRefs(bb.ranks)
	rv := make([]uint32, len(vals))
	for i, v := range vals {
		rv[i] = uint32(v)
	}
	b.ranks = rankCol{vals: rv, p: newPostings(ids, bounds, b.words)}
	for id, n := range b.nodes {
		if n != nil {
			b.live.Add(uint32(id))
		}
	}
	b.live.RunOptimize()
	return b
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
	vals = make([]uint64, len(refs))
	ids = make([]uint32, len(refs))
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

// buildBase indexes nodes (nil entries are holes) with one reused parser.
func buildBase(nodes []*Node) *base {
	bb := newBaseBuilder(uint32(len(nodes)))
	var p fastjson.Parser
	for id, n := range nodes {
		if n == nil {
			continue
		}
		has := false
		if n.Extra != nil {
			has = bb.addExtra(&p, uint32(id), n.Extra)
		}
		bb.addNode(uint32(id), n, has)
	}
	return bb.finish()
}

// cString cuts s at its first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
