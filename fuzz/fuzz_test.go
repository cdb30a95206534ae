package fuzz

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// checkAgainstReference runs tree through the compiler and the VM over nodes
// and compares the result, node by node, with ast.Eval over facts typed by
// ast.ParseExtra; it also checks the single-node evaluator.
func checkAgainstReference(t *testing.T, tree ast.Node, nodes []index.Node) {
	t.Helper()
	snap, err := index.Build(nodes)
	if err != nil {
		t.Fatalf("index.Build: %v", err)
	}
	prog, err := compiler.CompileAST(tree, nil)
	if err != nil {
		t.Fatalf("CompileAST(%s): %v", ast.Dump(tree), err)
	}
	got := vm.Run(prog, snap)
	for id := range nodes {
		n := &nodes[id]
		f := ast.Facts{Name: n.Name, Rank: n.Rank, Properties: n.Features}
		if n.Extra != nil {
			f.Extra, f.HasExtra = ast.ParseExtra(n.Extra)
		}
		want := ast.Eval(tree, &f)
		if got.Contains(uint32(id)) != want {
			t.Fatalf("%s on node %s (rank %d, features %q) extra %q: vm %v, reference %v\nprogram:\n%s",
				ast.Dump(tree), n.Name, n.Rank, n.Features, n.Extra, !want, want, prog.Disassemble())
		}
		if m := prog.MatchNode(snap, uint32(id)); m != want {
			t.Fatalf("%s on node %s extra %q: MatchNode %v, reference %v", ast.Dump(tree), n.Name, n.Extra, m, want)
		}
	}
}

// FuzzSlurmVMvsReference generates a cluster of up to 12 nodes and a Slurm
// constraint from the fuzzer's seed, and also tries the fuzzer's text as a
// constraint when it parses; the VM must agree with the reference evaluator.
func FuzzSlurmVMvsReference(f *testing.F) {
	f.Add(uint64(1), uint8(8), "a=1.23")
	f.Add(uint64(2), uint8(12), "(c<=0.0001&a=1.25)|zed=23.0")
	f.Add(uint64(3), uint8(3), "foo<baz")
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, text string) {
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		nodes := GenNodes(r, 1+int(n)%12)
		checkAgainstReference(t, GenSlurmExpr(r, nodes), nodes)
		if tree, err := slurm.Parse(text); err == nil {
			checkAgainstReference(t, tree, nodes)
		}
	})
}

// FuzzGenSlurmExprRoundTrips checks the generator against the front end:
// every generated tree prints as Slurm text that parses back to the same tree.
func FuzzGenSlurmExprRoundTrips(f *testing.F) {
	f.Add(uint64(1))
	f.Add(uint64(99))
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 7))
		tree := GenSlurmExpr(r, GenNodes(r, 6))
		text := slurm.Format(tree)
		back, err := slurm.Parse(text)
		if err != nil {
			t.Fatalf("generated %q does not parse: %v", text, err)
		}
		if a, b := ast.Dump(tree), ast.Dump(back); a != b {
			t.Fatalf("%q round-trips as %s, generated %s", text, b, a)
		}
	})
}

func TestGeneratorsAreDeterministic(t *testing.T) {
	gen := func() string {
		r := rand.New(rand.NewPCG(42, 1))
		nodes := GenNodes(r, 12)
		return fmt.Sprintf("%v %s %s", nodes, ast.Dump(GenSlurmExpr(r, nodes)), ast.Dump(GenFluxExpr(r, nodes)))
	}
	if a, b := gen(), gen(); a != b {
		t.Fatalf("same seed, different output:\n%s\n%s", a, b)
	}
}

func TestGeneratedConstraintsMatchSomeNodes(t *testing.T) {
	hits := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 0))
		nodes := GenNodes(r, 12)
		tree := GenSlurmExpr(r, nodes)
		for id := range nodes {
			f := ast.Facts{Name: nodes[id].Name}
			f.Extra, f.HasExtra = ast.ParseExtra(nodes[id].Extra)
			if ast.Eval(tree, &f) {
				hits++
				break
			}
		}
	}
	// A generator whose constraints never match would make the differential
	// targets vacuous.
	if hits < 40 {
		t.Fatalf("only %d of 200 generated constraints matched any node", hits)
	}
}
