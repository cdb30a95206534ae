package vm

import (
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
)

// Machine runs programs over snapshots. It keeps its scratch words between
// runs, so after warm-up a run allocates only its result, and it keeps the
// last snapshot it ran on (with that snapshot's live set as words) until
// the next run. A Machine is not safe for concurrent use; Run takes one from
// a pool.
type Machine struct {
	stack  [][]uint64
	live   []uint64
	liveOf *index.Snapshot
}

// NewMachine returns a Machine with no scratch yet.
func NewMachine() *Machine { return &Machine{} }

var machines = sync.Pool{New: func() any { return NewMachine() }}

// Run evaluates p over s with a pooled Machine and returns the matching
// node ids.
func Run(p *Program, s *index.Snapshot) *roaring.Bitmap {
	m := machines.Get().(*Machine)
	r := m.Run(p, s)
	machines.Put(m)
	return r
}

// Step is one executed instruction in an explanation: its text, the number
// of nodes in the set it left on top of the stack, and the time it took.
type Step struct {
	Instr   string
	Count   int
	Elapsed time.Duration
}

// Run evaluates p over s and returns the ids of the nodes that satisfy it.
func (m *Machine) Run(p *Program, s *index.Snapshot) *roaring.Bitmap {
	top := m.exec(p, s, nil)
	if top == nil {
		return roaring.New()
	}
	return roaring.FromDense(top, true)
}

// Explain evaluates p over s like Run and also returns one Step for every
// instruction executed, in order (jumps taken skip instructions).
func (m *Machine) Explain(p *Program, s *index.Snapshot) ([]Step, *roaring.Bitmap) {
	var steps []Step
	top := m.exec(p, s, &steps)
	if top == nil {
		return steps, roaring.New()
	}
	return steps, roaring.FromDense(top, true)
}

// prepare sizes the scratch stack for p over s.
func (m *Machine) prepare(p *Program, words int) {
	for len(m.stack) < p.depth {
		m.stack = append(m.stack, nil)
	}
	for i := 0; i < p.depth; i++ {
		if cap(m.stack[i]) < words {
			m.stack[i] = make([]uint64, words)
		}
		m.stack[i] = m.stack[i][:words]
	}
}

// liveWords returns the dense live set of s, cached per snapshot because
// snapshots are immutable.
func (m *Machine) liveWords(s *index.Snapshot, words int) []uint64 {
	if m.liveOf == s && len(m.live) == words {
		return m.live
	}
	if cap(m.live) < words {
		m.live = make([]uint64, words)
	}
	m.live = m.live[:words]
	clear(m.live)
	s.Live().WriteDenseTo(m.live)
	m.liveOf = s
	return m.live
}

// exec runs p and returns the top of the stack (scratch words owned by m),
// or nil for a program with no instructions. When steps is not nil it
// records every instruction executed.
func (m *Machine) exec(p *Program, s *index.Snapshot, steps *[]Step) []uint64 {
	if len(p.code) == 0 {
		return nil
	}
	words := s.Words()
	m.prepare(p, words)
	sp := -1
	var start time.Time
	// known says the and just executed already found whether the top set
	// is empty (nonEmpty), so a jump_if_empty after it needs no pass.
	known, nonEmpty := false, false
	for pc := 0; pc < len(p.code); pc++ {
		if steps != nil {
			start = time.Now()
		}
		at, in := pc, p.code[pc]
		wasKnown := known
		known = false
		switch in.Op {
		case OpFalse:
			sp++
			clear(m.stack[sp])
		case OpTrue:
			sp++
			copy(m.stack[sp], m.liveWords(s, words))
		case OpExtra:
			sp++
			l := &p.extras[in.A]
			s.ExtraLeaf(l.Key, l.Op, &l.Operand, m.stack[sp])
		case OpProperty:
			sp++
			s.PropertyLeaf(p.props[in.A], m.stack[sp])
		case OpRanks:
			sp++
			s.RankLeaf(p.rankSets[in.A], m.stack[sp])
		case OpHosts:
			sp++
			s.HostLeaf(p.hostSets[in.A].Queries, m.stack[sp])
		case OpAnd:
			nonEmpty, known = andWords(m.stack[sp-1], m.stack[sp]), true
			sp--
		case OpAnd2:
			nonEmpty, known = and2Words(m.stack[sp-2], m.stack[sp-1], m.stack[sp]), true
			sp -= 2
		case OpOr:
			orWords(m.stack[sp-1], m.stack[sp])
			sp--
		case OpOr2:
			or2Words(m.stack[sp-2], m.stack[sp-1], m.stack[sp])
			sp -= 2
		case OpNot:
			notWords(m.stack[sp], m.liveWords(s, words))
		case OpAndNot:
			nonEmpty, known = andNotWords(m.stack[sp-1], m.stack[sp]), true
			sp--
		case OpJumpIfEmpty:
			empty := !nonEmpty
			if !wasKnown {
				empty = isEmpty(m.stack[sp])
			}
			if empty {
				pc = int(in.A) - 1
			}
		case OpJumpIfFull:
			if equalWords(m.stack[sp], m.liveWords(s, words)) {
				pc = int(in.A) - 1
			}
		}
		if steps != nil {
			// Time first: counting is part of explaining, not of the step.
			elapsed := time.Since(start)
			*steps = append(*steps, Step{Instr: p.instrText(at), Count: popcount(m.stack[sp]), Elapsed: elapsed})
		}
	}
	return m.stack[0]
}
