package vm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

func TestTightWindowHoldsEveryMember(t *testing.T) {
	tests := []struct {
		name string
		w    []uint64
		want window
	}{
		{"no words", nil, window{0, 0}},
		{"all zero", []uint64{0, 0, 0}, window{0, 0}},
		{"one word in the middle", []uint64{0, 4, 0}, window{1, 2}},
		{"both ends", []uint64{1, 0, 1 << 63}, window{0, 3}},
		{"zero tail", []uint64{0, 1, 2, 0, 0}, window{1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tight(tt.w, 0, len(tt.w)); got != tt.want {
				t.Errorf("tight = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLeafBoundFollowsTheSlotToItsConsumer(t *testing.T) {
	tests := []struct {
		name string
		next []Opcode // the instructions after the leaf
		want bound
	}{
		{"and pops it", []Opcode{OpAnd}, belowOne},
		{"and-not pops it", []Opcode{OpAndNot}, belowOne},
		{"first operand of and2", []Opcode{OpExtra, OpAnd2}, belowOne},
		{"second operand of and2", []Opcode{OpAnd2}, belowTwo},
		{"or pops it", []Opcode{OpOr}, unbounded},
		{"or2 pops it", []Opcode{OpExtra, OpOr2}, unbounded},
		{"negated first", []Opcode{OpNot, OpAnd}, unbounded},
		{"a jump before its and", []Opcode{OpJumpIfEmpty, OpExtra, OpAnd, OpAnd}, unbounded},
		{"its slot is written first", []Opcode{OpExtra, OpAnd, OpAnd}, unbounded},
		{"a nested and above it", []Opcode{OpExtra, OpExtra, OpAnd, OpOr, OpAnd}, unbounded},
		{"an or above it, then and2", []Opcode{OpExtra, OpExtra, OpOr, OpAnd2}, belowOne},
		{"an or2 above it, then and", []Opcode{OpExtra, OpExtra, OpExtra, OpOr2, OpAnd}, unbounded},
		{"an and2 above it, then and", []Opcode{OpExtra, OpExtra, OpAnd2, OpAnd}, unbounded},
		{"an and2 above it, then and2", []Opcode{OpExtra, OpExtra, OpExtra, OpAnd2, OpAnd2}, belowOne},
		{"nothing pops it", nil, unbounded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var next []Instr
			for _, op := range tt.next {
				next = append(next, Instr{Op: op})
			}
			if got := leafBound(next); got != tt.want {
				t.Errorf("leafBound = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestBoundedLeavesAgreeWithWholeOnes runs and-chains of extra leaves and
// ranges (checked against the and of their two comparisons), whose
// later leaves are written only inside the window of what they are
// intersected with, on clusters large enough for checkpoints (a key rising
// with the id, one scattered, one with few values, ranks for narrow
// windows, a sparse property whose complement reads its whole slot), against the per-node meaning and against Explain, which writes
// every leaf whole. One Machine runs them all, so every slot holds what
// another program left.
func TestBoundedLeavesAgreeWithWholeOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	m := NewMachine()
	bounded := 0
	for iter := range 12 {
		n := 500 + r.IntN(6000)
		nodes := make([]index.Node, n)
		for i := range nodes {
			nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), Rank: uint32(i)}
			if r.IntN(3) == 0 {
				nodes[i].Features = []string{"gpu"}
			}
			if i%(n/4) < 8 {
				nodes[i].Features = append(nodes[i].Features, "rare")
			}
			switch r.IntN(10) {
			case 0:
				nodes[i].Extra = []byte(testExtras[r.IntN(len(testExtras))])
			default:
				nodes[i].Extra = fmt.Appendf(nil, `{"load":%g,"m":%g,"foo":"v%d"}`, float64(i*1000/n)/1000, float64(i*37%300)/100, i/3%8)
			}
		}
		s, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		leaf := func() *expr {
			if r.IntN(8) == 0 {
				// Written into the slot's zero words: stale words a bounded
				// leaf left outside its window would show here.
				return &expr{op: "prop", name: "gpu"}
			}
			if r.IntN(5) == 0 {
				lo := uint32(r.IntN(n))
				return &expr{op: "ranks", ranks: []index.RankRange{{Lo: lo, Hi: lo + uint32(r.IntN(n/4))}}}
			}
			var o index.Operand
			key := []string{"load", "m", "foo"}[r.IntN(3)]
			switch key {
			case "foo":
				o = index.Operand{Raw: fmt.Sprintf("v%d", r.IntN(9)), Bool: true}
			default:
				f := float64(r.IntN(1100)) / 1000
				if key == "m" {
					f *= 3
				}
				o = index.Operand{Raw: fmt.Sprint(f), Num: f, NumOK: true, Bool: f != 0}
			}
			e := &expr{op: "extra", leaf: ExtraLeaf{Key: key, Op: extra.Op(r.IntN(6)), Operand: o}}
			if r.IntN(3) == 0 {
				// A range: the lower bound above, an upper bound near it.
				up := o
				if o.NumOK {
					up.Num += float64(r.IntN(300)) / 1000
					up.Raw = fmt.Sprint(up.Num)
				}
				e.op = "range"
				e.leaf.Op = []extra.Op{extra.Gt, extra.Ge}[r.IntN(2)]
				e.upper = ExtraLeaf{Key: key, Op: []extra.Op{extra.Lt, extra.Le}[r.IntN(2)], Operand: up}
			}
			return e
		}
		for range 25 {
			e := &expr{op: "or"}
			for range 1 + r.IntN(3) {
				and := &expr{op: "and"}
				for range 1 + r.IntN(5) {
					and.kids = append(and.kids, leaf())
				}
				e.kids = append(e.kids, and)
				if r.IntN(4) == 0 {
					// A sparse property ORs into its slot's words, and its
					// complement reads every word of the slot.
					e.kids = append(e.kids, &expr{op: "not", kids: []*expr{{op: "prop", name: "rare"}}})
				}
			}
			p := e.program(t)
			if p.within != nil {
				bounded++
			}
			want := roaring.New()
			for id := range uint32(n) {
				if e.eval(s, id) {
					want.Add(id)
				}
			}
			if got := m.Run(p, s); !got.Equals(want) {
				t.Fatalf("iter %d (%d nodes): Run has %d nodes, want %d\n%s", iter, n, got.GetCardinality(), want.GetCardinality(), p.Disassemble())
			}
			if _, whole := m.Explain(p, s); !whole.Equals(want) {
				t.Fatalf("iter %d (%d nodes): Explain has %d nodes, want %d\n%s", iter, n, whole.GetCardinality(), want.GetCardinality(), p.Disassemble())
			}
			for range 20 {
				id := uint32(r.IntN(n))
				if p.MatchNode(s, id) != want.Contains(id) {
					t.Fatalf("iter %d (%d nodes): MatchNode(%d) = %v\n%s", iter, n, id, !want.Contains(id), p.Disassemble())
				}
			}
		}
	}
	if bounded < 100 {
		t.Fatalf("only %d of 300 programs have a bounded leaf", bounded)
	}
}

func TestExtraRangeNeedsALowerAndAnUpperBound(t *testing.T) {
	for _, r := range []index.Range{{Lower: extra.Lt, Upper: extra.Gt}, {Lower: extra.Ge, Upper: extra.Ne}, {Lower: extra.Eq, Upper: extra.Le}} {
		var b Builder
		b.ExtraRange("a", r)
		if _, err := b.Program(); !errors.Is(err, ErrInvalidProgram) {
			t.Errorf("ExtraRange %s %s: Program() error = %v, want ErrInvalidProgram", r.Lower, r.Upper, err)
		}
	}
}
