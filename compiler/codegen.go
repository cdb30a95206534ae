package compiler

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/vm"
)

// ErrUnsupported is returned for a tree holding a node the code generator
// does not know.
var ErrUnsupported = errors.New("compiler: unsupported constraint node")

// CompileAST optimizes n (ordering operands by stats when it is not nil) and
// generates its program.
func CompileAST(n ast.Node, stats Stats) (*vm.Program, error) {
	if n == nil {
		return nil, fmt.Errorf("%w: nil tree", ErrUnsupported)
	}
	n = Optimize(n, stats)
	var g codegen
	instrs, extras := size(n)
	g.b.Grow(instrs, extras)
	if err := g.node(n); err != nil {
		return nil, err
	}
	return g.b.Program()
}

type codegen struct {
	b vm.Builder
	// labels is a stack of open jumps shared by all lists, which bind
	// their own on the way out.
	labels []vm.Label
	// pairs and nodes hold the ranges and the operands of the ands being
	// emitted, a stack shared by nested lists like labels.
	pairs []rangePair
	nodes []ast.Node
}

// size bounds the instructions and extra leaves codegen emits for n (pairs
// of operands emit fewer).
func size(n ast.Node) (instrs, extras int) {
	switch n := n.(type) {
	case *ast.And:
		return sizeList(n.X)
	case *ast.Or:
		return sizeList(n.X)
	case *ast.Not:
		i, e := size(n.X)
		return i + 1, e
	case *ast.Compare:
		return 1, 1
	}
	return 1, 0
}

func sizeList(xs []ast.Node) (instrs, extras int) {
	for i, x := range xs {
		xi, xe := size(x)
		instrs += xi
		extras += xe
		if i > 0 {
			instrs += 2
		}
	}
	return max(instrs, 1), extras
}

// rangePair is a lower (> or >=) and an upper bound (< or <=) of one key
// in an and.
type rangePair struct{ lo, up *ast.Compare }

func isLower(op extra.Op) bool { return op == extra.Gt || op == extra.Ge }
func isUpper(op extra.Op) bool { return op == extra.Lt || op == extra.Le }

// ranges pairs the comparisons of an and that bound one key from below and
// from above: each pair is one ExtraRange leaf, one pass over the words
// instead of two leaves and an and. It returns the operands without the
// upper bounds (each lower bound stands for its pair) and the pairs, both
// pushed on g's stacks; the caller pops them with popRanges.
func (g *codegen) ranges(xs []ast.Node) ([]ast.Node, []rangePair) {
	lower, upper := false, false
	for _, x := range xs {
		if c, ok := x.(*ast.Compare); ok {
			lower, upper = lower || isLower(c.Op), upper || isUpper(c.Op)
		}
	}
	if !lower || !upper {
		return xs, nil
	}
	base := len(g.pairs)
	g.pairs = slices.Grow(g.pairs, len(xs)/2)
	paired := func(c *ast.Compare) bool {
		for _, p := range g.pairs[base:] {
			if p.lo == c || p.up == c {
				return true
			}
		}
		return false
	}
	for _, x := range xs {
		lo, ok := x.(*ast.Compare)
		if !ok || !isLower(lo.Op) || paired(lo) {
			continue
		}
		for _, y := range xs {
			if up, ok := y.(*ast.Compare); ok && up.Key == lo.Key && isUpper(up.Op) && !paired(up) {
				g.pairs = append(g.pairs, rangePair{lo, up})
				break
			}
		}
	}
	if len(g.pairs) == base {
		return xs, nil
	}
	start := len(g.nodes)
	g.nodes = slices.Grow(g.nodes, len(xs))
	for _, x := range xs {
		if c, ok := x.(*ast.Compare); ok && isUpper(c.Op) && paired(c) {
			continue
		}
		g.nodes = append(g.nodes, x)
	}
	return g.nodes[start:len(g.nodes):len(g.nodes)], g.pairs[base:len(g.pairs):len(g.pairs)]
}

// popRanges drops what ranges pushed for a list of out operands and pairs.
func (g *codegen) popRanges(out []ast.Node, pairs []rangePair) {
	if len(pairs) > 0 {
		g.nodes = g.nodes[:len(g.nodes)-len(out)]
		g.pairs = g.pairs[:len(g.pairs)-len(pairs)]
	}
}

// operand emits one operand of a list: a lower bound of one of pairs is
// one ExtraRange leaf covering the source of both bounds.
func (g *codegen) operand(x ast.Node, pairs []rangePair) error {
	for _, p := range pairs {
		if p.lo != x {
			continue
		}
		lo, up := p.lo, p.up
		if lo.Start >= 0 && up.Start >= 0 && lo.End > lo.Start && up.End > up.Start {
			g.b.Source(min(lo.Start, up.Start), max(lo.End, up.End))
		}
		g.b.ExtraRange(lo.Key, index.Range{Lower: lo.Op, Upper: up.Op, Lo: operand(lo.Value), Hi: operand(up.Value)})
		return nil
	}
	return g.node(x)
}

func isNot(n ast.Node) bool {
	_, ok := n.(*ast.Not)
	return ok
}

func (g *codegen) node(n ast.Node) error {
	switch n := n.(type) {
	case *ast.And:
		return g.list(n.X, true)
	case *ast.Or:
		return g.list(n.X, false)
	case *ast.Not:
		if err := g.node(n.X); err != nil {
			return err
		}
		g.b.Not()
	case *ast.Const:
		g.b.Const(n.Value)
	case *ast.Compare:
		if !n.Op.Valid() {
			return fmt.Errorf("%w: comparison operator %d at byte %d", ErrUnsupported, n.Op, n.Start)
		}
		g.b.Source(n.Start, n.End)
		g.b.Extra(n.Key, n.Op, operand(n.Value))
	case *ast.Property:
		g.b.Source(n.Start, n.End)
		g.b.Property(n.Name)
	case *ast.Ranks:
		rs := make([]index.RankRange, len(n.Ranges))
		for i, r := range n.Ranges {
			rs[i] = index.RankRange{Lo: r.Lo, Hi: r.Hi}
		}
		g.b.Source(n.Start, n.End)
		g.b.Ranks(rs)
	case *ast.Hostlist:
		text, qs, err := hostQueries(n.Exprs)
		if err != nil {
			return fmt.Errorf("compiler: hostlist at byte %d: %w", n.Start, err)
		}
		g.b.Source(n.Start, n.End)
		g.b.Hosts(text, qs)
	default:
		return fmt.Errorf("%w: %T", ErrUnsupported, n)
	}
	return nil
}

// list emits an and (isAnd) or an or of xs: each operand after the first
// is guarded by a jump to the end, taken when the running result is empty
// (and) or every live node (or), because then it can no longer change. A
// negated operand of an and after the first becomes an and-not.
func (g *codegen) list(xs []ast.Node, isAnd bool) error {
	if len(xs) == 0 {
		g.b.Const(isAnd)
		return nil
	}
	if _, neg := xs[0].(*ast.Not); neg && isAnd {
		// Start from an operand that needs no complement, so that every
		// negated one can be an and-not.
		for j, x := range xs {
			if _, neg := x.(*ast.Not); !neg {
				xs = append([]ast.Node{x}, slices.Delete(slices.Clone(xs), j, j+1)...)
				break
			}
		}
	}
	var pairs []rangePair
	if isAnd {
		xs, pairs = g.ranges(xs)
		defer g.popRanges(xs, pairs)
	}
	base := len(g.labels)
	if err := g.operand(xs[0], pairs); err != nil {
		return err
	}
	for i := 1; i < len(xs); i++ {
		if isAnd {
			g.labels = append(g.labels, g.b.JumpIfEmpty())
		} else {
			g.labels = append(g.labels, g.b.JumpIfFull())
		}
		x := xs[i]
		if i+1 < len(xs) && (!isAnd || (!isNot(x) && !isNot(xs[i+1]))) {
			// Two operands, one pass: and2/or2 cost little more than one
			// and/or, at the price of a short-circuit test skipped between
			// the two.
			if err := g.operand(x, pairs); err != nil {
				return err
			}
			if err := g.operand(xs[i+1], pairs); err != nil {
				return err
			}
			if isAnd {
				g.b.And2()
			} else {
				g.b.Or2()
			}
			i++
			continue
		}
		if not, ok := x.(*ast.Not); ok && isAnd {
			// x ⊆ live, so x ∩ (live ∖ y) = x ∖ y: one pass, not two.
			if err := g.node(not.X); err != nil {
				return err
			}
			g.b.AndNot()
			continue
		}
		if err := g.operand(x, pairs); err != nil {
			return err
		}
		if isAnd {
			g.b.And()
		} else {
			g.b.Or()
		}
	}
	for _, l := range g.labels[base:] {
		g.b.Bind(l)
	}
	g.labels = g.labels[:base]
	return nil
}
