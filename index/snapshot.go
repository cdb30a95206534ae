package index

import (
	"fmt"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/valyala/fastjson"
)

// Snapshot is an immutable view of the node store, safe for any number of
// concurrent readers.
type Snapshot struct {
	gen    uint64
	nodes  []*Node // by id; nil for removed ids
	extra  []map[string]Value
	has    []bool // node has parsed extra data
	byName map[string]uint32
	live   *roaring.Bitmap
}

// Build makes the first snapshot (generation 1) of nodes; node i gets id i.
// Node names must be unique.
func Build(nodes []Node) (*Snapshot, error) {
	s := &Snapshot{gen: 1, byName: make(map[string]uint32, len(nodes)), live: roaring.New()}
	var p fastjson.Parser
	for i := range nodes {
		n := nodes[i]
		if _, dup := s.byName[n.Name]; dup {
			return nil, fmt.Errorf("index: duplicate node name %q", n.Name)
		}
		s.append(&p, &n)
	}
	return s, nil
}

func (s *Snapshot) append(p *fastjson.Parser, n *Node) {
	id := uint32(len(s.nodes))
	s.nodes = append(s.nodes, n)
	var kv map[string]Value
	ok := false
	if n.Extra != nil {
		kv, ok = parseExtra(p, n.Extra)
	}
	s.extra = append(s.extra, kv)
	s.has = append(s.has, ok)
	s.byName[n.Name] = id
	s.live.Add(id)
}

// Generation numbers snapshots in publication order, from 1.
func (s *Snapshot) Generation() uint64 { return s.gen }

// Len is the number of live nodes.
func (s *Snapshot) Len() int { return int(s.live.GetCardinality()) }

// IDBound is one more than the largest id ever given; every id is below it.
func (s *Snapshot) IDBound() uint32 { return uint32(len(s.nodes)) }

// Words is the number of 64-bit words a dense bitmap over all ids needs.
func (s *Snapshot) Words() int { return (len(s.nodes) + 63) / 64 }

// Live returns the ids of the nodes that exist. The caller must not modify it.
func (s *Snapshot) Live() *roaring.Bitmap { return s.live }

// Node returns the record of node id. The caller must not modify it.
func (s *Snapshot) Node(id uint32) (*Node, bool) {
	if int(id) >= len(s.nodes) || s.nodes[id] == nil {
		return nil, false
	}
	return s.nodes[id], true
}

// ID returns the id of the node named name.
func (s *Snapshot) ID(name string) (uint32, bool) {
	id, ok := s.byName[name]
	return id, ok
}

// HasExtra reports whether node id has parsed extra data.
func (s *Snapshot) HasExtra(id uint32) bool { return int(id) < len(s.has) && s.has[id] }

// ExtraValue returns node id's extra value under key.
func (s *Snapshot) ExtraValue(id uint32, key string) Value {
	if int(id) >= len(s.extra) {
		return Value{}
	}
	return s.extra[id][key]
}

func clearWords(dst []uint64) {
	for i := range dst {
		dst[i] = 0
	}
}

// ExtraLeaf overwrites dst (at least Words() long) with the live nodes whose
// extra value under key satisfies `value op v`.
func (s *Snapshot) ExtraLeaf(key string, op Op, v *Operand, dst []uint64) {
	clearWords(dst)
	for id, kv := range s.extra {
		if s.nodes[id] != nil && kv[key].Match(op, v) {
			dst[id>>6] |= 1 << (uint(id) & 63)
		}
	}
}

// NodeExtraLeaf reports whether node id satisfies the leaf.
func (s *Snapshot) NodeExtraLeaf(id uint32, key string, op Op, v *Operand) bool {
	_, live := s.Node(id)
	return live && s.ExtraValue(id, key).Match(op, v)
}

// NodeProperty reports whether node id has feature name or is named name.
func (s *Snapshot) NodeProperty(id uint32, name string) bool {
	n, ok := s.Node(id)
	if !ok {
		return false
	}
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

// PropertyLeaf overwrites dst with the live nodes that have feature name or
// are named name.
func (s *Snapshot) PropertyLeaf(name string, dst []uint64) {
	clearWords(dst)
	for id := range s.nodes {
		if s.NodeProperty(uint32(id), name) {
			dst[id>>6] |= 1 << (uint(id) & 63)
		}
	}
}

// RankLeaf overwrites dst with the live nodes whose rank is in any range.
func (s *Snapshot) RankLeaf(ranges []RankRange, dst []uint64) {
	clearWords(dst)
	for id, n := range s.nodes {
		if n == nil {
			continue
		}
		for _, r := range ranges {
			if n.Rank >= r.Lo && n.Rank <= r.Hi {
				dst[id>>6] |= 1 << (uint(id) & 63)
				break
			}
		}
	}
}

// Store holds the current snapshot and serializes writers; readers take a
// snapshot and are never blocked.
type Store struct {
	mu  sync.Mutex
	cur *Snapshot
}

// HostLeaf overwrites dst with the live nodes whose hostname satisfies any
// of the queries.
func (s *Snapshot) HostLeaf(qs []HostQuery, dst []uint64) {
	clearWords(dst)
	for id, n := range s.nodes {
		if n == nil {
			continue
		}
		for i := range qs {
			if qs[i].matchHost(n.Name) {
				dst[id>>6] |= 1 << (uint(id) & 63)
				break
			}
		}
	}
}
