package bench

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// siftEngine is sift itself: the constraint compiled once (operands ordered
// by the snapshot's statistics), run over the snapshot by a reused
// vm.Machine.
type siftEngine struct {
	snap *index.Snapshot
	prog *vm.Program
	m    *vm.Machine
	out  *roaring.Bitmap
}

func newSiftEngine(lang compiler.Lang, text string, s *index.Snapshot) (*siftEngine, error) {
	p, err := compiler.CompileFor(lang, text, s)
	if err != nil {
		return nil, err
	}
	return &siftEngine{snap: s, prog: p, m: vm.NewMachine()}, nil
}

// Run computes the matching nodes into e.out.
func (e *siftEngine) Run() { e.out = e.m.Run(e.prog, e.snap) }

// words returns the last result as dense words over n ids, for comparison.
func (e *siftEngine) words(n uint32) []uint64 {
	w := make([]uint64, (n+63)/64)
	if e.out != nil {
		e.out.Iterate(func(id uint32) bool {
			w[id>>6] |= 1 << (id & 63)
			return true
		})
	}
	return w
}

// referenceEngine is the per-node baseline: ast.Eval, the project's
// reference evaluator, walking the tree once per node over facts typed by
// ast.ParseExtra (independently of the index).
type referenceEngine struct {
	tree  ast.Node
	facts []ast.Facts
	out   []uint64
}

func nodeFacts(nodes []index.Node) []ast.Facts {
	facts := make([]ast.Facts, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		f := &facts[i]
		f.Name, f.Rank, f.Properties = n.Name, n.Rank, n.Features
		if n.Extra != nil {
			f.Extra, f.HasExtra = ast.ParseExtra(n.Extra)
		}
	}
	return facts
}

func newReferenceEngine(tree ast.Node, facts []ast.Facts) *referenceEngine {
	return &referenceEngine{tree: tree, facts: facts, out: make([]uint64, (len(facts)+63)/64)}
}

// Run computes the matching nodes into e.out.
func (e *referenceEngine) Run() {
	clear(e.out)
	for id := range e.facts {
		if ast.Eval(e.tree, &e.facts[id]) {
			e.out[id>>6] |= 1 << (uint(id) & 63)
		}
	}
}

// leaf is a Compare with its request value converted once for every node type.
type leaf struct {
	key     string
	op      extra.Op
	operand index.Operand
}

func newLeaf(c *ast.Compare) leaf {
	num, ok := ast.SlurmNumber(c.Value)
	return leaf{key: c.Key, op: extra.Op(c.Op), operand: index.Operand{Raw: c.Value, Num: num, NumOK: ok, Bool: ast.SlurmBool(c.Value)}}
}

func collectLeafs(n ast.Node, out []leaf) ([]leaf, error) {
	var err error
	switch n := n.(type) {
	case *ast.Compare:
		return append(out, newLeaf(n)), nil
	case *ast.And:
		for _, x := range n.X {
			if out, err = collectLeafs(x, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *ast.Or:
		for _, x := range n.X {
			if out, err = collectLeafs(x, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: %T", compiler.ErrUnsupported, n)
}
