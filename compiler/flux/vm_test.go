package flux_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/flux"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// rlikeNodes makes an R-like cluster: ascending ranks (with gaps), hosts
// named as real clusters name them (zero-padded or not, digit-ending
// prefixes, a few unnumbered), and properties from a small pool that
// includes names flux-core treats specially (+local, @ suffixes) and one
// equal to another node's hostname.
func rlikeNodes(r *rand.Rand, n int) []index.Node {
	props := []string{"batch", "debug", "gpu", "+local", "amd@gpu", "ssd", "node3"}
	nodes := make([]index.Node, 0, n)
	seen := map[string]bool{}
	rank := uint32(0)
	for len(nodes) < n {
		var name string
		switch r.IntN(6) {
		case 0:
			name = fmt.Sprintf("node%d", r.IntN(40))
		case 1:
			name = fmt.Sprintf("node%02d", r.IntN(40))
		case 2:
			name = fmt.Sprintf("f00%d", r.IntN(12))
		case 3:
			name = fmt.Sprintf("rack%d-n%d", r.IntN(3), r.IntN(8))
		case 4:
			name = []string{"login", "login1", "Login", "mgmt"}[r.IntN(4)]
		default:
			name = fmt.Sprintf("fluke%d", r.IntN(120))
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		var fs []string
		for _, p := range props {
			if r.IntN(3) == 0 {
				fs = append(fs, p)
			}
		}
		nodes = append(nodes, index.Node{Name: name, Rank: rank, Features: fs})
		rank += 1 + uint32(r.IntN(2))
	}
	return nodes
}

// randomRFC31 writes a random RFC 31 constraint, valid or not.
func randomRFC31(r *rand.Rand, depth int) string {
	props := []string{"batch", "^batch", "debug", "^debug", "gpu", "+local", "amd@gpu", "amd", "node3", "^node3", "login", "^^x", "^", "", "ssd"}
	hosts := []string{"node[0-10]", "node[00-10]", "node[5-]", "f00[7-8]", "f[007-8]", "rack[0-1]-n3", "login,mgmt", "fluke[10-20]", "fluke[100-200]", "node1 node2", "Login", "", "rack1-n[1-5]"}
	ranks := []string{"0", "0-3", "[5-9]", "1,3,5", "2-1000", "", "7"}
	pick := func(xs []string, k int) string {
		var b []string
		for range k {
			b = append(b, fmt.Sprintf("%q", xs[r.IntN(len(xs))]))
		}
		return strings.Join(b, ",")
	}
	k := r.IntN(6)
	if depth > 3 {
		k = r.IntN(3)
	}
	switch k {
	case 0:
		return `{"properties":[` + pick(props, r.IntN(3)+1) + `]}`
	case 1:
		return `{"hostlist":[` + pick(hosts, r.IntN(3)) + `]}`
	case 2:
		return `{"ranks":[` + pick(ranks, r.IntN(3)) + `]}`
	}
	op := []string{"and", "or", "not"}[k-3]
	var items []string
	for range r.IntN(4) {
		items = append(items, randomRFC31(r, depth+1))
	}
	return `{"` + op + `":[` + strings.Join(items, ",") + `]}`
}

// TestVMAgreesWithReferenceOnRFC31 compiles random RFC 31 constraints with
// compiler.Compile and checks vm.Run and MatchNode against ast.Eval on
// random R-like clusters.
func TestVMAgreesWithReferenceOnRFC31(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 29))
	for c := range 20 {
		nodes := rlikeNodes(r, 20+r.IntN(80))
		s, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		for range 100 {
			text := randomRFC31(r, 0)
			if r.IntN(4) == 0 {
				// Round-trip through FormatRFC31 too.
				n, err := flux.ParseRFC31([]byte(text))
				if err == nil {
					text = flux.FormatRFC31(n)
				}
			}
			checkVM(t, c, nodes, s, compiler.Flux, text)
		}
	}
}

// TestVMAgreesWithReferenceOnRequires does the same for --requires text.
func TestVMAgreesWithReferenceOnRequires(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	terms := []string{"batch", "debug", "-debug", "gpu", "amd@gpu", "+local", "node3", "host:node[0-10]", "hosts:fluke[10-20]", "rank:0-3", "ranks:5", "not", "|", "&", "or", "(", ")", "a,b", "batch,ssd"}
	for c := range 10 {
		nodes := rlikeNodes(r, 30+r.IntN(50))
		s, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		for range 100 {
			var b []string
			for range 1 + r.IntN(6) {
				b = append(b, terms[r.IntN(len(terms))])
			}
			checkVM(t, c, nodes, s, compiler.Requires, strings.Join(b, " "))
		}
	}
}

func checkVM(t *testing.T, c int, nodes []index.Node, s *index.Snapshot, lang compiler.Lang, text string) {
	t.Helper()
	var tree ast.Node
	var err error
	if lang == compiler.Flux {
		tree, err = flux.ParseRFC31([]byte(text))
	} else {
		tree, err = flux.ParseRequires(text)
	}
	p, cerr := compiler.Compile(lang, text)
	if (err == nil) != (cerr == nil) {
		t.Fatalf("%s %s: front end error %v, compiler error %v", lang, text, err, cerr)
	}
	if err != nil {
		return
	}
	want := roaring.New()
	for id := range nodes {
		f := &ast.Facts{Name: nodes[id].Name, Rank: nodes[id].Rank, Properties: nodes[id].Features}
		if ast.Eval(tree, f) {
			want.Add(uint32(id))
		}
	}
	if got := vm.Run(p, s); !got.Equals(want) {
		t.Fatalf("cluster %d, %s %s (%s):\n%svm.Run = %v\nwant     %v", c, lang, text, ast.Dump(tree), p.Disassemble(), got, want)
	}
	for id := range s.IDBound() {
		if got := p.MatchNode(s, id); got != want.Contains(id) {
			t.Fatalf("cluster %d, %s %s: MatchNode(%d) = %v", c, lang, text, id, got)
		}
	}
}
