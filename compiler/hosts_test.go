package compiler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// TestHostlistLeavesAgreeWithFind checks hostlist leaves, compiled to
// queries, against hostlist's own lookup on every node.
func TestHostlistLeavesAgreeWithFind(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	prefixes := []string{"node", "n", "rack1n", "gpu"}
	var nodes []index.Node
	seen := map[string]bool{}
	for len(nodes) < 400 {
		name := fmt.Sprintf("%s%0*d", prefixes[r.IntN(len(prefixes))], r.IntN(5), r.IntN(300))
		if r.IntN(20) == 0 {
			name = prefixes[r.IntN(len(prefixes))]
		}
		if !seen[name] {
			seen[name] = true
			nodes = append(nodes, index.Node{Name: name, Rank: uint32(len(nodes))})
		}
	}
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{
		"node[1-20]", "node[01-15]", "n[1-3,5]", "node1,n5", "node[0001-0100]",
		"rack1n[0-99]", "gpu", "node[7-123]", "n[010-250]", "gpu[1-9],node[98-102]",
		"node[0-99999]", "rack[1-2]n[1-50]",
	}
	for range 200 {
		var list []string
		for range 1 + r.IntN(3) {
			list = append(list, exprs[r.IntN(len(exprs))])
		}
		var tree ast.Node = &ast.Hostlist{Exprs: list}
		if r.IntN(3) == 0 {
			tree = &ast.Not{X: tree}
		}
		p, err := CompileAST(tree, nil)
		if err != nil {
			t.Fatalf("CompileAST(%q): %v", list, err)
		}
		got := vm.Run(p, s)
		for id, nd := range nodes {
			want := false
			for _, e := range list {
				l, err := hostlist.Parse(hostlist.Flux, e)
				if err != nil {
					t.Fatal(err)
				}
				want = want || l.Find(nd.Name) >= 0
			}
			if _, neg := tree.(*ast.Not); neg {
				want = !want
			}
			if got.Contains(uint32(id)) != want || p.MatchNode(s, uint32(id)) != want {
				t.Fatalf("%s on %q: vm.Run %v, MatchNode %v, want %v", ast.Dump(tree), nd.Name, got.Contains(uint32(id)), p.MatchNode(s, uint32(id)), want)
			}
		}
	}
}

func TestInvalidHostlistIsAnError(t *testing.T) {
	if _, err := CompileAST(&ast.Hostlist{Exprs: []string{"node[1-"}}, nil); err == nil {
		t.Error("CompileAST of an invalid hostlist succeeded")
	}
}
