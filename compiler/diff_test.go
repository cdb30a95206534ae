package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// facts describes node for the reference evaluator, typing its extra data
// with ast.ParseExtra (independent of the index's own parser).
func facts(node *index.Node) *ast.Facts {
	f := &ast.Facts{Name: node.Name, Rank: node.Rank, Properties: node.Features}
	if node.Extra != nil {
		f.Extra, f.HasExtra = ast.ParseExtra(node.Extra)
	}
	return f
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
	for id := range nodes {
		if ast.Eval(tree, facts(&nodes[id])) {
			want.Add(uint32(id))
		}
	}
	for _, stats := range []Stats{nil, s} {
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

func TestCompiledProgramsAgreeWithReference(t *testing.T) {
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

// TestRangesAgreeWithTheirTwoComparisons compiles ands holding a lower and
// an upper bound of one key, which become one ExtraRange leaf, and checks
// the answers against the reference evaluator on the synthetic cluster
// (numbers, strings, booleans, missing keys) and that the pairs were made.
func TestRangesAgreeWithTheirTwoComparisons(t *testing.T) {
	nodes := syntheticNodes(3000)
	for _, tt := range []struct {
		text   string
		ranges int
	}{
		{"a>=20&a<80", 1},
		{"a>20&b=true&a<=80", 1},
		{"a<20&a>80", 1},
		{"a>1&a>2&a<3", 1},
		{"(a>=20&a<80)|(zed>50&zed<=60&foo>bar&foo<qux)", 3},
		{"foo>=baz&foo<omega", 1},
		{"b>false&b<=true", 1},
		{"c>=3&c<=3&zed!=5", 1},
		{"a>1|a<2", 0},
		{"a>1&zed<2", 0},
		{"a!=1&a<2", 0},
	} {
		tree, err := slurm.Parse(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(Slurm, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, in := range p.Code() {
			if in.Op == vm.OpExtraRange {
				n++
			}
		}
		if n != tt.ranges {
			t.Errorf("%s: %d ranges, want %d\n%s", tt.text, n, tt.ranges, p.Disassemble())
		}
		checkCase(t, nodes, tree)
	}
}
