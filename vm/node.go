package vm

import "github.com/nodesift/sift/index"

// MatchNode reports whether node id of s satisfies p, evaluating p for that
// node alone (no bitmap work). It does not allocate for programs whose stack
// depth is at most 512.
func (p *Program) MatchNode(s *index.Snapshot, id uint32) bool {
	n, live := s.Node(id)
	if !live || len(p.code) == 0 {
		return false
	}
	// The stack of truth values is a bit stack: bit i is stack slot i.
	var small [8]uint64
	st := small[:]
	if p.depth > len(small)*64 {
		st = make([]uint64, (p.depth+63)/64)
	}
	sp := -1
	push := func(v bool) {
		sp++
		if v {
			st[sp>>6] |= 1 << (uint(sp) & 63)
		} else {
			st[sp>>6] &^= 1 << (uint(sp) & 63)
		}
	}
	top := func() bool { return st[sp>>6]&(1<<(uint(sp)&63)) != 0 }
	for pc := 0; pc < len(p.code); pc++ {
		in := p.code[pc]
		switch in.Op {
		case OpFalse:
			push(false)
		case OpTrue:
			push(true)
		case OpExtra:
			l := &p.extras[in.A]
			push(s.NodeExtraLeaf(id, l.Key, l.Op, &l.Operand))
		case OpExtraRange:
			l := &p.ranges[in.A]
			push(s.NodeExtraRangeLeaf(id, l.Key, &l.Range))
		case OpProperty:
			push(s.NodeProperty(id, p.props[in.A]))
		case OpRanks:
			push(inRanks(n.Rank, p.rankSets[in.A]))
		case OpHosts:
			push(matchHosts(n.Name, p.hostSets[in.A].Queries))
		case OpAnd:
			b := top()
			sp--
			if !b {
				st[sp>>6] &^= 1 << (uint(sp) & 63)
			}
		case OpOr:
			b := top()
			sp--
			if b {
				st[sp>>6] |= 1 << (uint(sp) & 63)
			}
		case OpAnd2:
			b := top()
			sp--
			b = b && top()
			sp--
			if !b {
				st[sp>>6] &^= 1 << (uint(sp) & 63)
			}
		case OpOr2:
			b := top()
			sp--
			b = b || top()
			sp--
			if b {
				st[sp>>6] |= 1 << (uint(sp) & 63)
			}
		case OpNot:
			st[sp>>6] ^= 1 << (uint(sp) & 63)
		case OpAndNot:
			b := top()
			sp--
			if b {
				st[sp>>6] &^= 1 << (uint(sp) & 63)
			}
		case OpJumpIfEmpty:
			if !top() {
				pc = int(in.A) - 1
			}
		case OpJumpIfFull:
			if top() {
				pc = int(in.A) - 1
			}
		}
	}
	return top()
}

func inRanks(rank uint32, ranges []index.RankRange) bool {
	for _, r := range ranges {
		if rank >= r.Lo && rank <= r.Hi {
			return true
		}
	}
	return false
}

// matchHosts reports whether name satisfies any query, with the meaning
// index.HostQuery documents.
func matchHosts(name string, qs []index.HostQuery) bool {
	for i := range qs {
		if qs[i].Match(name) {
			return true
		}
	}
	return false
}
