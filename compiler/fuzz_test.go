package compiler

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/flux"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// FuzzVMvsReference turns the fuzz input into a node set and a constraint
// and checks that the compiled program, run over the whole index and node
// by node, gives exactly the reference evaluator's answer. The first byte
// picks the path: Slurm text (format, parse, Compile), RFC 31 JSON text, or
// a tree with every node kind compiled directly.
func FuzzVMvsReference(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00a=1.23|foo<baz"))
	f.Add([]byte("\x01not(gpu)&ranks"))
	f.Add([]byte("\x02not(gpu)&ranks"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &byteSource{data: data}
		mode := b.byte()
		nodes := genNodes(b)
		switch mode % 3 {
		case 0:
			checkText(t, nodes, Slurm, slurm.Format(genSlurm(b, 3)))
		case 1:
			checkText(t, nodes, Flux, flux.FormatRFC31(genRFC31(b, 4)))
		default:
			checkCase(t, nodes, genFlux(b, 4))
		}
	})
}

// checkText compiles text and checks it against the reference on the parsed
// tree, with and without selectivity ordering.
func checkText(t *testing.T, nodes []index.Node, lang Lang, text string) {
	t.Helper()
	tree, err := parse(lang, text)
	if err != nil {
		// Slurm refuses requests over 1024 bytes; the generator can exceed it.
		if lang == Slurm && len(text) > 1024 {
			if _, cerr := Compile(lang, text); cerr == nil {
				t.Fatalf("Compile accepted %d bytes that the parser refuses", len(text))
			}
			return
		}
		t.Fatalf("generated text %q does not parse: %v", text, err)
	}
	p, err := Compile(lang, text)
	if err != nil {
		t.Fatalf("Compile(%q): %v", text, err)
	}
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatalf("index.Build: %v", err)
	}
	got := vm.Run(p, s)
	for id := range nodes {
		want := ast.Eval(tree, facts(&nodes[id]))
		if got.Contains(uint32(id)) != want {
			t.Fatalf("%q on node %d (extra %q): vm.Run says %v, reference %v\n%s", text, id, nodes[id].Extra, !want, want, p.Disassemble())
		}
		if p.MatchNode(s, uint32(id)) != want {
			t.Fatalf("%q on node %d (extra %q): MatchNode says %v, reference %v", text, id, nodes[id].Extra, !want, want)
		}
	}
	checkCase(t, nodes, tree)
}

// seedNode is the node of the Slurm seed document's examples.
var seedNode = index.Node{Name: "node123", Extra: []byte(`{ "a": 1.23, "b": true, "c": 0, "foo": "bar", "zed": 23 }`)}

func TestSeedDocumentExamples(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"a=1.23", true},
		{"a!=1.24", true},
		{"a!=1.23|foo!=blah", true},
		{"b=200", true},
		{"b=true", true},
		{"foo<baz", true},
		{"(c<=0.0001&a=1.25)|zed=23.0", true},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)", true},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)", true},
		{"a!=1.23", false},
		{"b=0", false},
		{"b=false", false},
		{"foo>baz", false},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)", false},
		{"a=   b", false},
	}
	others := []index.Node{
		{Name: "noextra"},
		{Name: "badjson", Extra: []byte("{")},
		{Name: "array", Extra: []byte("[1]")},
	}
	s, err := index.Build(append([]index.Node{seedNode}, others...))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			p, err := Compile(Slurm, tt.text)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			want := roaring.New()
			if tt.want {
				want.Add(0)
			}
			if got := vm.Run(p, s); !got.Equals(want) {
				t.Errorf("vm.Run = %v, want %v", got, want)
			}
			if got := p.MatchNode(s, 0); got != tt.want {
				t.Errorf("MatchNode = %v, want %v", got, tt.want)
			}
			tree, _ := slurm.Parse(tt.text)
			if ref := ast.Eval(tree, facts(&seedNode)); ref != tt.want {
				t.Errorf("reference evaluator says %v, the seed document %v", ref, tt.want)
			}
		})
	}
}
