package fuzz

import (
	"math/rand/v2"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/flux"
)

// FuzzFluxVMvsReference generates a cluster of up to 12 nodes and a Flux
// constraint from the fuzzer's seed, runs it through FormatRFC31, the RFC 31
// front end, the compiler and the VM, and compares with the reference
// evaluator; the fuzzer's text is also tried as RFC 31 JSON and as a
// --requires expression.
func FuzzFluxVMvsReference(f *testing.F) {
	f.Add(uint64(1), uint8(8), `{"and":[{"hostlist":["n[1-3]"]},{"properties":["^gpu"]}]}`)
	f.Add(uint64(2), uint8(12), "gpu -ib (host:n[0-5] | rank:7-9)")
	f.Add(uint64(3), uint8(4), `{"or":[]}`)
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, text string) {
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		nodes := GenNodes(r, 1+int(n)%12)
		gen := GenFluxExpr(r, nodes)
		js := flux.FormatRFC31(gen)
		tree, err := flux.ParseRFC31([]byte(js))
		if err != nil {
			t.Fatalf("generated %s (%s) does not parse: %v", js, ast.Dump(gen), err)
		}
		checkAgainstReference(t, tree, nodes)
		if tree, err := flux.ParseRFC31([]byte(text)); err == nil {
			checkAgainstReference(t, tree, nodes)
		}
		if tree, err := flux.ParseRequires(text); err == nil {
			checkAgainstReference(t, tree, nodes)
		}
	})
}
