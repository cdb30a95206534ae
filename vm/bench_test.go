package vm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

// BenchmarkMachineRun runs a hand-built 3-leaf program (an extra leaf, a
// property and a negated property) with one reused Machine; the compiler's
// BenchmarkRun covers compiled Slurm expressions against the reference.
func BenchmarkMachineRun(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s, err := index.Build(randNodes(rand.New(rand.NewPCG(1, uint64(n))), n))
			if err != nil {
				b.Fatal(err)
			}
			e := &expr{op: "and", kids: []*expr{
				{op: "extra", leaf: ExtraLeaf{Key: "a", Op: extra.Ge, Operand: index.Operand{Raw: "1.5", Num: 1.5, NumOK: true, Bool: true}}},
				{op: "prop", name: "gpu"},
				{op: "not", kids: []*expr{{op: "prop", name: "big"}}},
			}}
			p := e.program(b)
			m := NewMachine()
			got := m.Run(p, s)
			for id := range s.IDBound() {
				if got.Contains(id) != e.eval(s, id) {
					b.Fatalf("node %d: Run says %v", id, got.Contains(id))
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				m.Run(p, s)
			}
		})
	}
}

// BenchmarkMatchNode evaluates the same program one node at a time.
func BenchmarkMatchNode(b *testing.B) {
	s, err := index.Build(randNodes(rand.New(rand.NewPCG(1, 2)), 10000))
	if err != nil {
		b.Fatal(err)
	}
	p := (&expr{op: "and", kids: []*expr{
		{op: "extra", leaf: ExtraLeaf{Key: "a", Op: extra.Ge, Operand: index.Operand{Raw: "1.5", Num: 1.5, NumOK: true, Bool: true}}},
		{op: "prop", name: "gpu"},
		{op: "not", kids: []*expr{{op: "prop", name: "big"}}},
	}}).program(b)
	b.ReportAllocs()
	id := uint32(0)
	for b.Loop() {
		p.MatchNode(s, id)
		id = (id + 1) % s.IDBound()
	}
}

// BenchmarkMachineRunClustered leads an and with a selective clustered
// operand (the first 1000 ranks), as a rack or a host range is: the ands
// after it run inside its window instead of over every word.
func BenchmarkMachineRunClustered(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s, err := index.Build(randNodes(rand.New(rand.NewPCG(1, uint64(n))), n))
			if err != nil {
				b.Fatal(err)
			}
			e := &expr{op: "and", kids: []*expr{
				{op: "ranks", ranks: []index.RankRange{{Lo: 0, Hi: 999}}},
				{op: "extra", leaf: ExtraLeaf{Key: "a", Op: extra.Ge, Operand: index.Operand{Raw: "1.5", Num: 1.5, NumOK: true, Bool: true}}},
				{op: "prop", name: "gpu"},
				{op: "not", kids: []*expr{{op: "prop", name: "big"}}},
			}}
			p := e.program(b)
			m := NewMachine()
			got := m.Run(p, s)
			for id := range s.IDBound() {
				if got.Contains(id) != e.eval(s, id) {
					b.Fatalf("node %d: Run says %v", id, got.Contains(id))
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				m.Run(p, s)
			}
		})
	}
}
