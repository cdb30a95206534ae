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

// ranges pairs the comparisons of an and that bound one key from below
// (> or >=) and from above (< or <=): each pair is one ExtraRange leaf,
// one pass over the words instead of two leaves and an and. It returns
// the operands without the upper bounds, and each upper bound under its
// lower bound, which stands for both in the list.
func ranges(xs []ast.Node) ([]ast.Node, map[*ast.Compare]*ast.Compare) {
	var upper map[*ast.Compare]*ast.Compare
	used := make([]bool, len(xs))
	for i, x := range xs {
		lo, ok := x.(*ast.Compare)
		if !ok || used[i] || (lo.Op != extra.Gt && lo.Op != extra.Ge) {
			continue
		}
		for j, y := range xs {
			up, ok := y.(*ast.Compare)
			if !ok || used[j] || up.Key != lo.Key || (up.Op != extra.Lt && up.Op != extra.Le) {
				continue
			}
			if upper == nil {
				upper = map[*ast.Compare]*ast.Compare{}
			}
			upper[lo] = up
			used[i], used[j] = true, true
			break
		}
	}
	if upper == nil {
		return xs, nil
	}
	out := make([]ast.Node, 0, len(xs)-len(upper))
	for i, x := range xs {
		if c, ok := x.(*ast.Compare); ok && used[i] && upper[c] == nil {
			continue // an upper bound
		}
		out = append(out, x)
	}
	return out, upper
}

// operand emits one operand of a list: a lower bound paired in upper
// with its upper bound is one ExtraRange leaf covering the source of both.
func (g *codegen) operand(x ast.Node, upper map[*ast.Compare]*ast.Compare) error {
	lo, ok := x.(*ast.Compare)
	if up := upper[lo]; ok && up != nil {
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
	var upper map[*ast.Compare]*ast.Compare
	if isAnd {
		xs, upper = ranges(xs)
	}
	base := len(g.labels)
	if err := g.operand(xs[0], upper); err != nil {
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
			if err := g.operand(x, upper); err != nil {
				return err
			}
			if err := g.operand(xs[i+1], upper); err != nil {
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
		if err := g.operand(x, upper); err != nil {
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
