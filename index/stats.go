package index

import "github.com/nodesift/sift/extra"

// KeyStats describes one extra key's column for the optimizer: how many live
// nodes have the key, split by JSON type, and how many distinct values the
// columns hold.
type KeyStats struct {
	Nodes, Numbers, Strings, Bools, Unusable, Distinct int
}

func (k *KeyStats) add(kind extra.Kind, d int) {
	switch kind {
	case extra.KindNumber:
		k.Numbers += d
	case extra.KindString:
		k.Strings += d
	case extra.KindBool:
		k.Bools += d
	case extra.KindUnusable:
		k.Unusable += d
	default:
		return
	}
	k.Nodes += d
}

// KeyStats returns the statistics of key. Counts are exact; Distinct counts
// the distinct values of the columnar base and ignores recent updates.
func (s *Snapshot) KeyStats(key string) KeyStats {
	var k KeyStats
	c := s.b.cols[key]
	if c != nil {
		k.Numbers = len(c.num.ids) + len(c.nan)
		k.Strings = len(c.str.ids)
		k.Bools = len(c.boolP.ids)
		k.Unusable = len(c.unusable)
		k.Nodes = k.Numbers + k.Strings + k.Bools + k.Unusable
		k.Distinct = len(c.nums) + len(c.strs) + len(c.bools)
		if len(c.nan) > 0 {
			k.Distinct++
		}
	}
	for _, e := range s.ov.latest() {
		if c != nil {
			k.add(c.kind(e.id), -1)
		}
		if e.n != nil {
			v, _ := e.kv.get(key)
			k.add(v.Kind, 1)
		}
	}
	return k
}

// PropertyCount returns the number of live nodes that have feature name or
// are named name.
func (s *Snapshot) PropertyCount(name string) int {
	n := 0
	bm := s.b.props[name]
	if bm != nil {
		n = int(bm.GetCardinality())
	}
	id, named := s.b.lookup(name)
	if named && (bm == nil || !bm.Contains(id)) {
		n++
	}
	for _, e := range s.ov.latest() {
		if e.id < s.b.bound {
			if (bm != nil && bm.Contains(e.id)) || (named && id == e.id) {
				n--
			}
		}
		if e.n != nil && nodeHas(e.n, name) {
			n++
		}
	}
	return n
}

// EstimateLeaf returns about how many live nodes satisfy the leaf: exact
// over the columnar base, ignoring nodes changed since it was built. It costs
// a few binary searches.
func (s *Snapshot) EstimateLeaf(key string, op extra.Op, v *Operand) int {
	c := s.b.cols[key]
	if c == nil {
		return 0
	}
	return c.estimate(op, v)
}

// SizeBytes approximates the memory held by the snapshot's index structures
// (columns, bitmaps, maps and overlay), excluding the node records themselves.
func (s *Snapshot) SizeBytes() int {
	b := s.b
	n := 8*len(b.nodes) + 8*len(b.has) + 8*len(b.liveW) + int(b.live.GetSizeInBytes())
	for name := range b.other {
		n += 16 + 4 + len(name) + 8
	}
	for key, c := range b.cols {
		n += len(key) + 16 + c.sizeBytes()
	}
	for f, bm := range b.props {
		n += len(f) + 16 + int(bm.GetSizeInBytes()) + propBytes(b.propW[f])
	}
	for k, h := range b.hosts {
		n += len(k.alpha) + 24 + h.sizeBytes()
	}
	if b.ranks != nil {
		n += 4*len(b.ranks.vals) + b.ranks.p.sizeBytes()
	}
	n += 48 * s.ov.size()
	return n
}

func propBytes(pw *propWords) int {
	if pw == nil {
		return 0
	}
	return 8 * len(pw.w)
}
