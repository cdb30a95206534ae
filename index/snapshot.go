package index

import (
	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/extra"
)

// Snapshot is an immutable view of the node store, safe for any number of
// concurrent readers. It is a columnar base shared with other snapshots plus
// a small overlay of the nodes changed since that base was built.
type Snapshot struct {
	gen uint64
	b   *base
	// ov holds the nodes changed since b was built; each entry replaces the
	// node's base record entirely.
	ov overlay
	// names maps the names of nodes added since b was built to their ids.
	names map[string]uint32
	bound uint32
	live  *roaring.Bitmap
}

// Build makes the first snapshot (generation 1) of nodes; node i gets id i.
// Node names must be unique. The snapshot keeps pointers into nodes: the
// caller must not modify them afterwards.
func Build(nodes []Node) (*Snapshot, error) {
	ptrs := make([]*Node, len(nodes))
	for i := range nodes {
		ptrs[i] = &nodes[i]
	}
	b, err := buildBase(ptrs)
	if err != nil {
		return nil, err
	}
	return &Snapshot{gen: 1, b: b, bound: b.bound, live: b.live}, nil
}

// Generation numbers snapshots in publication order, from 1.
func (s *Snapshot) Generation() uint64 { return s.gen }

// Len is the number of live nodes.
func (s *Snapshot) Len() int { return int(s.live.GetCardinality()) }

// IDBound is one more than the largest id ever given; every id is below it.
func (s *Snapshot) IDBound() uint32 { return s.bound }

// Words is the number of 64-bit words a dense bitmap over all ids needs.
func (s *Snapshot) Words() int { return (int(s.bound) + 63) / 64 }

// Live returns the ids of the nodes that exist. The caller must not modify it.
func (s *Snapshot) Live() *roaring.Bitmap { return s.live }

// entry returns the overlay entry of id, if the node changed since the base.
func (s *Snapshot) entry(id uint32) *ovEntry {
	if s.ov.size() == 0 {
		return nil
	}
	return s.ov.get(id)
}

// Node returns the record of node id. The caller must not modify it.
func (s *Snapshot) Node(id uint32) (*Node, bool) {
	if e := s.entry(id); e != nil {
		return e.n, e.n != nil
	}
	if id >= s.b.bound || s.b.nodes[id] == nil {
		return nil, false
	}
	return s.b.nodes[id], true
}

// ID returns the id of the node named name.
func (s *Snapshot) ID(name string) (uint32, bool) {
	if id, ok := s.names[name]; ok {
		return id, true
	}
	id, ok := s.b.lookup(name)
	if !ok {
		return 0, false
	}
	if e := s.entry(id); e != nil && (e.n == nil || e.n.Name != name) {
		return 0, false
	}
	return id, true
}

// HasExtra reports whether node id has parsed extra data.
func (s *Snapshot) HasExtra(id uint32) bool {
	if e := s.entry(id); e != nil {
		return e.n != nil && e.has
	}
	return id < s.b.bound && hasBit(s.b.has, id)
}

// ExtraValue returns node id's extra value under key.
func (s *Snapshot) ExtraValue(id uint32, key string) extra.Value {
	if e := s.entry(id); e != nil {
		v, _ := e.kv.get(key)
		return v
	}
	c := s.b.cols[key]
	if c == nil {
		return extra.Value{}
	}
	return c.value(id)
}

// ExtraLeaf overwrites dst (at least Words() long) with the live nodes whose
// extra value under key satisfies `value op v`.
func (s *Snapshot) ExtraLeaf(key string, op extra.Op, v *Operand, dst []uint64) {
	s.ExtraLeafIn(key, op, v, dst, 0, len(dst))
}

// ExtraLeafIn overwrites the words [lo, hi) of dst with those ExtraLeaf
// writes there and leaves every other word as it was. A leaf that will be
// intersected with a set whose members all lie in those words costs their
// number, not the cluster's size.
func (s *Snapshot) ExtraLeafIn(key string, op extra.Op, v *Operand, dst []uint64, lo, hi int) {
	k := sink{dst: dst, lo: lo, hi: hi}
	if c := s.b.cols[key]; c != nil {
		c.writeLeaf(op, v, &k)
	}
	s.overlayLeaf(&k, key, func(ev extra.Value) bool { return v.Match(ev, op) })
}

// ExtraRangeLeafIn is ExtraLeafIn of the nodes whose value under key lies
// in r: the and of r's two comparisons, in one pass.
func (s *Snapshot) ExtraRangeLeafIn(key string, r *Range, dst []uint64, lo, hi int) {
	k := sink{dst: dst, lo: lo, hi: hi}
	if c := s.b.cols[key]; c != nil {
		c.writeRange(r, &k)
	}
	s.overlayLeaf(&k, key, r.Match)
}

// overlayLeaf finishes a leaf written into k from the base columns: the
// nodes changed since, in k's words, get their membership by match.
func (s *Snapshot) overlayLeaf(k *sink, key string, match func(extra.Value) bool) {
	k.prepare()
	r := k.ids()
	for _, list := range [2][]*ovEntry{s.ov.old, s.ov.recent} {
		for _, e := range list {
			if !r.has(e.id) {
				continue
			}
			var in bool
			if e.n != nil {
				ev, _ := e.kv.get(key)
				in = match(ev)
			}
			setBit(k.dst, e.id, in)
		}
	}
}

// NodeExtraLeaf reports whether node id satisfies the leaf.
func (s *Snapshot) NodeExtraLeaf(id uint32, key string, op extra.Op, v *Operand) bool {
	_, live := s.Node(id)
	return live && v.Match(s.ExtraValue(id, key), op)
}

// NodeExtraRangeLeaf reports whether node id's value under key lies in r.
func (s *Snapshot) NodeExtraRangeLeaf(id uint32, key string, r *Range) bool {
	_, live := s.Node(id)
	return live && r.Match(s.ExtraValue(id, key))
}

func nodeHas(n *Node, name string) bool {
	if n.Name == name {
		return true
	}
	for _, f := range n.Features {
		if f == name {
			return true
		}
	}
	return false
}

// NodeProperty reports whether node id has feature name or is named name.
func (s *Snapshot) NodeProperty(id uint32, name string) bool {
	n, ok := s.Node(id)
	return ok && nodeHas(n, name)
}

// PropertyLeaf overwrites dst with the live nodes that have feature name or
// are named name.
func (s *Snapshot) PropertyLeaf(name string, dst []uint64) {
	clear(dst)
	s.OrPropertyLeaf(name, dst)
}

// OrPropertyLeaf writes into dst, which must be all zero, the set
// PropertyLeaf writes, and returns the window of words [lo, hi) outside
// which dst is still zero (lo >= hi when the set is empty). It touches only
// the words of that window, so its cost is set by the words it writes, not
// by the cluster's size.
func (s *Snapshot) OrPropertyLeaf(name string, dst []uint64) (lo, hi int) {
	lo, hi = len(dst), 0
	if pw := s.b.propW[name]; pw != nil {
		lo, hi = pw.lo, pw.hi
		copy(dst[lo:hi], pw.w[lo:hi])
	} else if bm := s.b.props[name]; bm != nil && !bm.IsEmpty() {
		bm.WriteDenseTo(dst)
		lo, hi = int(bm.Minimum()>>6), int(bm.Maximum()>>6)+1
	}
	on := func(id uint32) {
		setBit(dst, id, true)
		lo, hi = min(lo, int(id>>6)), max(hi, int(id>>6)+1)
	}
	if id, ok := s.b.lookup(name); ok {
		on(id)
	}
	for _, list := range [2][]*ovEntry{s.ov.old, s.ov.recent} {
		for _, e := range list {
			if e.n != nil && nodeHas(e.n, name) {
				on(e.id)
			} else {
				setBit(dst, e.id, false)
			}
		}
	}
	return lo, hi
}

// PropertyBitmap returns, when the snapshot holds it ready, the set
// PropertyLeaf writes for name as a new bitmap that shares the snapshot's
// containers copy-on-write: changing it copies what it changes and never
// touches the snapshot. Its cost is set by the number of containers, not
// by their contents. It returns nil when the set must be computed (a node
// named name, nodes changed since the snapshot's base was built).
func (s *Snapshot) PropertyBitmap(name string) *roaring.Bitmap {
	if len(s.ov.old)+len(s.ov.recent) > 0 {
		return nil
	}
	if buf := s.b.propBuf[name]; buf != nil {
		bm := roaring.New()
		if _, err := bm.FromBuffer(buf); err != nil {
			return nil
		}
		return bm
	}
	if s.b.props[name] != nil {
		return nil
	}
	if _, ok := s.b.lookup(name); ok {
		return nil
	}
	return roaring.New()
}

// RankLeaf overwrites dst with the live nodes whose rank is in any range.
func (s *Snapshot) RankLeaf(ranges []RankRange, dst []uint64) {
	clear(dst)
	if rc := s.b.ranks; rc != nil {
		for _, r := range ranges {
			if r.Lo > r.Hi {
				continue
			}
			i := searchU32(rc.vals, r.Lo)
			j := len(rc.vals)
			if r.Hi < ^uint32(0) {
				j = searchU32(rc.vals, r.Hi+1)
			}
			rc.p.orSpan(dst, span{uint32(i), uint32(j)})
		}
	} else {
		// Ranks are ids: each range is a run of whole words.
		for _, r := range ranges {
			if r.Lo > r.Hi || r.Lo >= s.b.bound {
				continue
			}
			setRun(dst, r.Lo, min(r.Hi, s.b.bound-1))
		}
		live := s.b.liveW
		for i := range live {
			dst[i] &= live[i]
		}
	}
	for _, list := range [2][]*ovEntry{s.ov.old, s.ov.recent} {
		for _, e := range list {
			on := false
			if e.n != nil {
				for _, r := range ranges {
					if e.n.Rank >= r.Lo && e.n.Rank <= r.Hi {
						on = true
						break
					}
				}
			}
			setBit(dst, e.id, on)
		}
	}
}

// HostLeaf overwrites dst with the live nodes whose hostname satisfies any
// of the queries. A range query costs two binary searches plus the words of
// its answer, whatever the length of the range.
func (s *Snapshot) HostLeaf(qs []HostQuery, dst []uint64) {
	clear(dst)
	for i := range qs {
		q := &qs[i]
		if q.Exact {
			if id, ok := s.b.lookup(q.Name); ok {
				setBit(dst, id, true)
			}
			continue
		}
		hc := s.b.hosts[hostKey{q.Alpha, q.Digits}]
		if hc == nil || q.Digits == 0 || q.Lo > q.Hi {
			continue
		}
		hc.orRange(dst, q.Lo, q.Hi)
	}
	for _, list := range [2][]*ovEntry{s.ov.old, s.ov.recent} {
		for _, e := range list {
			on := false
			if e.n != nil {
				for i := range qs {
					if qs[i].Match(e.n.Name) {
						on = true
						break
					}
				}
			}
			setBit(dst, e.id, on)
		}
	}
}
