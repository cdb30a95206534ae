package index

import (
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
)

// naive is the plain per-node reference implementation every fast path is
// tested against: one map of parsed extra data per node and loops over ids.
type naive struct {
	nodes []*Node // by id; nil for holes
	extra []map[string]extra.Value
	has   []bool
}

func newNaive(nodes []*Node) *naive {
	r := &naive{nodes: nodes, extra: make([]map[string]extra.Value, len(nodes)), has: make([]bool, len(nodes))}
	for id, n := range nodes {
		if n != nil && n.Extra != nil {
			r.extra[id], r.has[id] = oracleExtra(n.Extra)
		}
	}
	return r
}

// oracleExtra types raw with ast.ParseExtra, the independent oracle of
// Slurm's node-side JSON typing, so that the index's own reader is checked
// against it wherever the naive reference is.
func oracleExtra(raw []byte) (map[string]extra.Value, bool) {
	return ast.ParseExtra(raw)
}

func (r *naive) words() int { return (len(r.nodes) + 63) / 64 }

func (r *naive) leaf(match func(id int, n *Node) bool) []uint64 {
	dst := make([]uint64, r.words())
	for id, n := range r.nodes {
		if n != nil && match(id, n) {
			dst[id>>6] |= 1 << (uint(id) & 63)
		}
	}
	return dst
}

func (r *naive) extraLeaf(key string, op extra.Op, v *Operand) []uint64 {
	return r.leaf(func(id int, _ *Node) bool { return v.Match(r.extra[id][key], op) })
}

func (r *naive) propertyLeaf(name string) []uint64 {
	return r.leaf(func(_ int, n *Node) bool { return nodeHas(n, name) })
}

func (r *naive) rankLeaf(ranges []RankRange) []uint64 {
	return r.leaf(func(_ int, n *Node) bool {
		for _, rr := range ranges {
			if n.Rank >= rr.Lo && n.Rank <= rr.Hi {
				return true
			}
		}
		return false
	})
}

func (r *naive) hostLeaf(qs []HostQuery) []uint64 {
	return r.leaf(func(_ int, n *Node) bool {
		for i := range qs {
			if qs[i].Match(n.Name) {
				return true
			}
		}
		return false
	})
}

func (r *naive) keyStats(key string) KeyStats {
	var k KeyStats
	for id, n := range r.nodes {
		if n != nil {
			k.add(r.extra[id][key].Kind, 1)
		}
	}
	return k
}

func (r *naive) propertyCount(name string) int {
	c := 0
	for _, n := range r.nodes {
		if n != nil && nodeHas(n, name) {
			c++
		}
	}
	return c
}
