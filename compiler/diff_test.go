package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// plainEval is a per-node walk of the unoptimized tree, the meaning every
// compiled program must reproduce.
func plainEval(n ast.Node, s *index.Snapshot, id uint32) bool {
	nd, live := s.Node(id)
	if !live {
		return false
	}
	switch n := n.(type) {
	case *ast.And:
		for _, x := range n.X {
			if !plainEval(x, s, id) {
				return false
			}
		}
		return true
	case *ast.Or:
		for _, x := range n.X {
			if plainEval(x, s, id) {
				return true
			}
		}
		return false
	case *ast.Not:
		return !plainEval(n.X, s, id)
	case *ast.Const:
		return n.Value
	case *ast.Compare:
		o := operand(n.Value)
		return s.HasExtra(id) && s.ExtraValue(id, n.Key).Match(cmpOps[n.Op], &o)
	case *ast.Property:
		if nd.Name == n.Name {
			return true
		}
		for _, f := range nd.Features {
			if f == n.Name {
				return true
			}
		}
	case *ast.Ranks:
		for _, r := range n.Ranges {
			if nd.Rank >= r.Lo && nd.Rank <= r.Hi {
				return true
			}
		}
	}
	return false
}

// countStats computes the optimizer's statistics by counting.
type countStats struct{ s *index.Snapshot }

func (c countStats) Len() int { return c.s.Len() }

func (c countStats) PropertyCount(name string) int {
	n := 0
	for id := range c.s.IDBound() {
		if c.s.NodeProperty(id, name) {
			n++
		}
	}
	return n
}

func (c countStats) KeyCounts(key string) (int, int) {
	n := 0
	distinct := map[index.Value]bool{}
	for id := range c.s.IDBound() {
		if v := c.s.ExtraValue(id, key); v.Kind != index.KindMissing {
			n++
			distinct[v] = true
		}
	}
	return n, len(distinct)
}

// checkCase compiles tree with and without statistics and checks Run and
// MatchNode against plainEval on every node.
func checkCase(t *testing.T, nodes []index.Node, tree ast.Node) {
	t.Helper()
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatalf("index.Build: %v", err)
	}
	want := roaring.New()
	for id := range s.IDBound() {
		if plainEval(tree, s, id) {
			want.Add(id)
		}
	}
	for _, stats := range []Stats{nil, countStats{s}} {
		p, err := CompileAST(tree, stats)
		if err != nil {
			t.Fatalf("CompileAST(%s): %v", ast.Dump(tree), err)
		}
		if got := vm.Run(p, s); !got.Equals(want) {
			t.Fatalf("tree %s (stats %v)\nprogram:\n%svm.Run = %v\nwant     %v", ast.Dump(tree), stats != nil, p.Disassemble(), got, want)
		}
		for id := range s.IDBound() {
			if got := p.MatchNode(s, id); got != want.Contains(id) {
				t.Fatalf("tree %s: MatchNode(%d) = %v, want %v\nextra %q", ast.Dump(tree), id, got, !got, nodes[id].Extra)
			}
		}
	}
}

func TestCompiledProgramsAgreeWithPlainEvaluation(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	data := make([]byte, 600)
	for i := range 2000 {
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		b := &byteSource{data: data}
		nodes := genNodes(b)
		var tree ast.Node
		if i%2 == 0 {
			tree = genSlurm(b, 3)
		} else {
			tree = genFlux(b, 4)
		}
		checkCase(t, nodes, tree)
	}
}
