package vm

import (
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/bitops"
	"github.com/nodesift/sift/index"
)

// Machine runs programs over snapshots. It keeps its scratch words between
// runs, so after warm-up a run allocates only its result, and it keeps the
// last snapshot it ran on (with that snapshot's live set as words) until
// the next run. A Machine is not safe for concurrent use; Run takes one from
// a pool.
type Machine struct {
	stack [][]uint64
	// win[i] bounds the non-zero words of stack[i] (see window).
	win     []window
	live    []uint64
	liveWin window
	liveOf  *index.Snapshot
	// cards holds the member count of each 65,536-id chunk of a result.
	cards []int
}

// window is the range of words [lo, hi) holding every member of a set: the
// set's words outside it are zero, and those at lo and hi-1 are not (an
// empty set has the zero window). Set algebra runs inside windows only, so a
// selective operand (a rack, a range of names: clustered ids) makes every
// later and over a large cluster cost a few words instead of all of them.
type window struct{ lo, hi int }

// tight returns the window of w[lo:hi], given that w is zero outside it.
// It reads only the zero words at either end and the first non-zero ones.
func tight(w []uint64, lo, hi int) window {
	l, h := bitops.Window(w[lo:hi])
	if l == h {
		return window{}
	}
	return window{lo + l, lo + h}
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

// Step is one executed instruction in an explanation: its text, where it
// comes from in the source constraint, the number of nodes in the set it
// left on top of the stack, and the time it took.
type Step struct {
	Instr string
	// Source is the range of the source constraint the instruction was
	// compiled from (Program.Source); the zero Span for none.
	Source  Span
	Count   int
	Elapsed time.Duration
}

// Run evaluates p over s and returns the ids of the nodes that satisfy it.
func (m *Machine) Run(p *Program, s *index.Snapshot) *roaring.Bitmap {
	if r := oneProperty(p, s); r != nil {
		return r
	}
	top := m.exec(p, s, nil)
	if top == nil {
		return roaring.New()
	}
	return m.result(top)
}

// oneProperty answers a program that is one property leaf with the
// snapshot's own bitmap, shared copy-on-write, when the snapshot holds it
// ready: nothing is written at all. It returns nil otherwise.
func oneProperty(p *Program, s *index.Snapshot) *roaring.Bitmap {
	if len(p.code) == 1 && p.code[0].Op == OpProperty {
		return s.PropertyBitmap(p.props[p.code[0].A])
	}
	return nil
}

// Explain evaluates p over s like Run and also returns one Step for every
// instruction executed, in order (jumps taken skip instructions).
func (m *Machine) Explain(p *Program, s *index.Snapshot) ([]Step, *roaring.Bitmap) {
	start := time.Now()
	if r := oneProperty(p, s); r != nil {
		elapsed := time.Since(start)
		src, _ := p.Source(0)
		return []Step{{Instr: p.instrText(0), Source: src, Count: int(r.GetCardinality()), Elapsed: elapsed}}, r
	}
	var steps []Step
	top := m.exec(p, s, &steps)
	if top == nil {
		return steps, roaring.New()
	}
	return steps, m.result(top)
}

// prepare sizes the scratch stack for p over s. Every scratch slot is zero
// outside its window, between runs too, so a leaf that writes only a few
// words clears only what the slot's last use left.
func (m *Machine) prepare(p *Program, words int) {
	for len(m.stack) < p.depth {
		m.stack = append(m.stack, nil)
		m.win = append(m.win, window{})
	}
	for i := 0; i < p.depth; i++ {
		switch {
		case cap(m.stack[i]) < words:
			m.stack[i] = make([]uint64, words)
			m.win[i] = window{}
		case len(m.stack[i]) != words:
			// Another snapshot size: whatever lies past either length
			// is out of the windows' reach, so start from zero.
			full := m.stack[i][:cap(m.stack[i])]
			clear(full)
			m.stack[i] = full[:words]
			m.win[i] = window{}
		}
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
	m.liveWin = tight(m.live, 0, words)
	m.liveOf = s
	return m.live
}

// exec runs p and returns the top of the stack (scratch words owned by m,
// cut after the last non-zero word), or nil for a program with no
// instructions. When steps is not nil it records every instruction
// executed.
func (m *Machine) exec(p *Program, s *index.Snapshot, steps *[]Step) []uint64 {
	if len(p.code) == 0 {
		return nil
	}
	words := s.Words()
	m.prepare(p, words)
	st, win := m.stack, m.win
	sp := -1
	var start time.Time
	for pc := 0; pc < len(p.code); pc++ {
		if steps != nil {
			start = time.Now()
		}
		at, in := pc, p.code[pc]
		switch in.Op {
		case OpFalse:
			sp++
			clear(st[sp][win[sp].lo:max(win[sp].lo, win[sp].hi)])
			win[sp] = window{}
		case OpTrue:
			sp++
			copy(st[sp], m.liveWords(s, words))
			win[sp] = m.liveWin
		case OpExtra, OpExtraRange:
			sp++
			w := window{0, words}
			// Explaining counts each leaf's whole set: it is not bounded.
			if p.within != nil && p.within[pc] != unbounded && steps == nil {
				w = win[sp-1]
				if p.within[pc] == belowTwo {
					w = intersect(win[sp-2], w)
				}
				if (words-(w.hi-w.lo))*8 < words {
					// Nearly every word: bounding saves little and would
					// test each scattered id the leaf patches.
					w = window{0, words}
				}
			}
			extraLeaf(p, in, s, st[sp], &win[sp], w)
		case OpProperty:
			sp++
			clear(st[sp][win[sp].lo:max(win[sp].lo, win[sp].hi)])
			lo, hi := s.OrPropertyLeaf(p.props[in.A], st[sp])
			win[sp] = window{}
			if lo < hi {
				win[sp] = tight(st[sp], lo, hi)
			}
		case OpRanks:
			sp++
			s.RankLeaf(p.rankSets[in.A], st[sp])
			win[sp] = tight(st[sp], 0, words)
		case OpHosts:
			sp++
			s.HostLeaf(p.hostSets[in.A].Queries, st[sp])
			win[sp] = tight(st[sp], 0, words)
		case OpAnd:
			sp--
			w := narrow(st[sp], win[sp], win[sp+1])
			if w.lo < w.hi {
				bitops.And(st[sp][w.lo:w.hi], st[sp+1][w.lo:w.hi])
				w = tight(st[sp], w.lo, w.hi)
			}
			win[sp] = w
		case OpAnd2:
			sp -= 2
			w := narrow(st[sp], win[sp], intersect(win[sp+1], win[sp+2]))
			if w.lo < w.hi {
				bitops.And2(st[sp][w.lo:w.hi], st[sp+1][w.lo:w.hi], st[sp+2][w.lo:w.hi])
				w = tight(st[sp], w.lo, w.hi)
			}
			win[sp] = w
		case OpOr:
			sp--
			w := hull(win[sp], win[sp+1])
			bitops.Or(st[sp][w.lo:w.hi], st[sp+1][w.lo:w.hi])
			win[sp] = w
		case OpOr2:
			sp -= 2
			w := hull(win[sp], hull(win[sp+1], win[sp+2]))
			bitops.Or2(st[sp][w.lo:w.hi], st[sp+1][w.lo:w.hi], st[sp+2][w.lo:w.hi])
			win[sp] = w
		case OpNot:
			bitops.Not(st[sp], m.liveWords(s, words))
			win[sp] = tight(st[sp], m.liveWin.lo, m.liveWin.hi)
		case OpAndNot:
			sp--
			// Only the words where both sets have members change.
			if w := intersect(win[sp], win[sp+1]); w.lo < w.hi {
				bitops.AndNot(st[sp][w.lo:w.hi], st[sp+1][w.lo:w.hi])
				win[sp] = tight(st[sp], win[sp].lo, win[sp].hi)
			}
		case OpJumpIfEmpty:
			if win[sp].lo >= win[sp].hi {
				pc = int(in.A) - 1
			}
		case OpJumpIfFull:
			live := m.liveWords(s, words)
			if win[sp] == m.liveWin && bitops.Equal(st[sp], live) {
				pc = int(in.A) - 1
			}
		}
		if steps != nil {
			// Time first: counting is part of explaining, not of the step.
			elapsed := time.Since(start)
			src, _ := p.Source(at)
			*steps = append(*steps, Step{Instr: p.instrText(at), Source: src, Count: bitops.Count(st[sp]), Elapsed: elapsed})
		}
	}
	return st[0][:win[0].hi]
}

// extraLeaf writes into dst, whose window is *win, the leaf of in exactly
// inside window w and nothing outside it, and sets *win. A leaf bounded by
// the sets it will be intersected with gets their window: only its words
// can matter.
func extraLeaf(p *Program, in Instr, s *index.Snapshot, dst []uint64, win *window, w window) {
	old := *win
	if w.lo >= w.hi {
		clear(dst[old.lo:max(old.lo, old.hi)])
		*win = window{}
		return
	}
	if in.Op == OpExtra {
		l := &p.extras[in.A]
		s.ExtraLeafIn(l.Key, l.Op, &l.Operand, dst, w.lo, w.hi)
	} else {
		l := &p.ranges[in.A]
		s.ExtraRangeLeafIn(l.Key, &l.Range, dst, w.lo, w.hi)
	}
	// What the slot's last use left outside w.
	if old.lo < old.hi {
		clear(dst[old.lo:max(old.lo, min(old.hi, w.lo))])
		clear(dst[min(old.hi, max(old.lo, w.hi)):old.hi])
	}
	*win = tight(dst, w.lo, w.hi)
}

// intersect is the window of the words two windows share (lo >= hi when
// none).
func intersect(a, b window) window { return window{max(a.lo, b.lo), min(a.hi, b.hi)} }

// hull is the smallest window holding both; an empty window adds nothing.
func hull(a, b window) window {
	switch {
	case a.lo >= a.hi:
		return b
	case b.lo >= b.hi:
		return a
	}
	return window{min(a.lo, b.lo), max(a.hi, b.hi)}
}

// narrow clears the words of dst (whose window is d) outside window o and
// returns the part of d inside o, empty as {0, 0}: the words an and of dst
// with a set in o can leave non-zero.
func narrow(dst []uint64, d, o window) window {
	w := intersect(d, o)
	if w.lo >= w.hi {
		clear(dst[d.lo:max(d.lo, d.hi)])
		return window{}
	}
	clear(dst[d.lo:w.lo])
	clear(dst[w.hi:d.hi])
	return w
}
