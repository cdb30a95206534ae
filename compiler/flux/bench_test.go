package flux_test

import (
	"fmt"
	"testing"

	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/flux"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// benchConstraints are RFC 31 constraints of the usual shapes: the issue's
// acceptance query and a 10-leaf mix of every operator.
var benchConstraints = []struct{ name, text string }{
	{"acceptance", `{"and":[{"hostlist":["fluke[10-20]"]},{"properties":["^debug"]}]}`},
	{"10leaf", `{"or":[{"and":[{"properties":["batch","^debug","gpu"]},{"hostlist":["fluke[1000-60000]"]},{"ranks":["0-49999"]}]},{"not":[{"properties":["ssd"]},{"hostlist":["fluke[5-90000]","login"]}]},{"properties":["amd@gpu","^+local"]},{"ranks":["99000-99999"]}]}`},
}

func BenchmarkParseRFC31(b *testing.B) {
	for _, c := range benchConstraints {
		b.Run("expr="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			text := []byte(c.text)
			for b.Loop() {
				if _, err := flux.ParseRFC31(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseRequires(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := flux.ParseRequires("batch -debug (host:fluke[10-20] | rank:0-3) gpu"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileRFC31(b *testing.B) {
	for _, c := range benchConstraints {
		b.Run("expr="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := compiler.Compile(compiler.Flux, c.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fluxCluster is an R-like cluster of n ranks named fluke0.. with the
// properties of the fluke R file and a few more.
func fluxCluster(n int) []index.Node {
	nodes := make([]index.Node, n)
	for i := range nodes {
		fs := []string{"batch"}
		if i%10 == 9 {
			fs = []string{"debug"}
		}
		if i%3 == 0 {
			fs = append(fs, "gpu", "amd@gpu")
		}
		if i%7 == 0 {
			fs = append(fs, "ssd")
		}
		nodes[i] = index.Node{Name: fmt.Sprintf("fluke%d", i), Rank: uint32(i), Features: fs}
	}
	return nodes
}

// BenchmarkEvalRFC31 runs compiled RFC 31 programs on the VM, and the
// reference evaluator on the same cluster for the ratio.
func BenchmarkEvalRFC31(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		nodes := fluxCluster(n)
		s, err := index.Build(nodes)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range benchConstraints {
			p, err := compiler.Compile(compiler.Flux, c.text)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("engine=vm/expr=%s/ranks=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				m := vm.NewMachine()
				for b.Loop() {
					m.Run(p, s)
				}
			})
			tree, _ := flux.ParseRFC31([]byte(c.text))
			b.Run(fmt.Sprintf("engine=reference/expr=%s/ranks=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				f := &ast.Facts{}
				for b.Loop() {
					k := 0
					for i := range nodes {
						f.Name, f.Rank, f.Properties = nodes[i].Name, nodes[i].Rank, nodes[i].Features
						if ast.Eval(tree, f) {
							k++
						}
					}
				}
			})
		}
	}
}
