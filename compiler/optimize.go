package compiler

import (
	"cmp"
	"hash/maphash"
	"slices"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

// Stats is what the optimizer reads to estimate how many nodes a leaf
// matches; *index.Snapshot implements it. Estimates only order operands;
// they never change a result.
type Stats interface {
	// Len is the number of live nodes.
	Len() int
	// PropertyCount is the number of nodes having property name.
	PropertyCount(name string) int
	// KeyStats describes the nodes having a value under key.
	KeyStats(key string) index.KeyStats
}

// LeafEstimator is implemented by statistics that can count the matches of
// one Slurm leaf directly, as *index.Snapshot does; the optimizer prefers it
// to the per-key summary of Stats.
type LeafEstimator interface {
	EstimateLeaf(key string, op extra.Op, v *index.Operand) int
}

// Optimize returns an equivalent tree that is cheaper to run: nested and/or
// flattened, constants folded, duplicate operands dropped, double negations
// removed and, when stats is not nil, the operands of and ordered most
// selective first and those of or least selective first (both short-circuit
// sooner that way). Without stats the source order is kept. n is not
// modified.
func Optimize(n ast.Node, stats Stats) ast.Node {
	if s, ok := stats.(*index.Snapshot); ok && s == nil {
		stats = nil
	}
	o := optimizer{stats: stats}
	o.leaves, _ = stats.(LeafEstimator)
	return o.node(n)
}

type optimizer struct {
	stats  Stats
	leaves LeafEstimator // nil when stats cannot estimate single leaves
	seed   maphash.Seed
	seen   map[uint64][]int
}

func (o *optimizer) node(n ast.Node) ast.Node {
	switch n := n.(type) {
	case *ast.And:
		return o.list(n, n.Start, n.X, true)
	case *ast.Or:
		return o.list(n, n.Start, n.X, false)
	case *ast.Not:
		x := o.node(n.X)
		switch x := x.(type) {
		case *ast.Const:
			return &ast.Const{Start: n.Start, Value: !x.Value}
		case *ast.Not:
			// Every set the VM computes lies within the live nodes, so
			// complementing twice within them gives the set back.
			return x.X
		}
		if x == n.X {
			return n
		}
		return &ast.Not{Start: n.Start, X: x}
	case *ast.Hostlist:
		if len(n.Exprs) == 0 {
			return &ast.Const{Start: n.Start, Value: false}
		}
	case *ast.Ranks:
		if len(n.Ranges) == 0 {
			return &ast.Const{Start: n.Start, Value: false}
		}
	}
	return n
}

// list optimizes orig, an and (isAnd) or an or of xs. A list that needs no
// change is returned as it is, without copying.
func (o *optimizer) list(orig ast.Node, start int, xs []ast.Node, isAnd bool) ast.Node {
	// identity is the constant an operand can be dropped for; the other
	// constant decides the whole list.
	identity := isAnd
	var out []ast.Node // stays nil while every operand is kept as it is
	copyUpTo := func(i int) {
		if out == nil {
			out = make([]ast.Node, i, len(xs)+4)
			copy(out, xs[:i])
		}
	}
	for i, x := range xs {
		y := o.node(x)
		switch y := y.(type) {
		case *ast.Const:
			if y.Value != identity {
				return &ast.Const{Start: start, Value: !identity}
			}
			copyUpTo(i)
			continue
		case *ast.And:
			if isAnd {
				copyUpTo(i)
				out = append(out, y.X...)
				continue
			}
		case *ast.Or:
			if !isAnd {
				copyUpTo(i)
				out = append(out, y.X...)
				continue
			}
		}
		if y != x {
			copyUpTo(i)
		}
		if out != nil {
			out = append(out, y)
		}
	}
	kept := out
	if kept == nil {
		kept = xs
	}
	kept = o.dedupe(kept, out != nil)
	switch len(kept) {
	case 0:
		return &ast.Const{Start: start, Value: identity}
	case 1:
		return kept[0]
	}
	if o.stats != nil {
		if sorted := o.order(kept, isAnd); sorted != nil {
			kept = sorted
		}
	}
	if len(kept) == len(xs) && &kept[0] == &xs[0] {
		return orig
	}
	if isAnd {
		return &ast.And{Start: start, X: kept}
	}
	return &ast.Or{Start: start, X: kept}
}

// dedupe returns xs without operands structurally equal to an earlier one,
// keeping first occurrences. It returns xs itself when nothing is dropped,
// and edits xs in place only when owned.
func (o *optimizer) dedupe(xs []ast.Node, owned bool) []ast.Node {
	if len(xs) < 2 {
		return xs
	}
	const pairwise = 16
	var dup func(i int) bool
	if len(xs) <= pairwise {
		dup = func(i int) bool {
			for j := range i {
				if equal(xs[j], xs[i]) {
					return true
				}
			}
			return false
		}
	} else {
		if o.seen == nil {
			o.seed = maphash.MakeSeed()
			o.seen = make(map[uint64][]int)
		}
		clear(o.seen)
		dup = func(i int) bool {
			var h maphash.Hash
			h.SetSeed(o.seed)
			hashNode(&h, xs[i])
			sum := h.Sum64()
			for _, j := range o.seen[sum] {
				if equal(xs[j], xs[i]) {
					return true
				}
			}
			o.seen[sum] = append(o.seen[sum], i)
			return false
		}
	}
	// Decide every operand against the original order first, then compact.
	var drop []bool
	for i := range xs {
		if dup(i) {
			if drop == nil {
				drop = make([]bool, len(xs))
			}
			drop[i] = true
		}
	}
	if drop == nil {
		return xs
	}
	keep := xs[:0]
	if !owned {
		keep = make([]ast.Node, 0, len(xs))
	}
	for i, x := range xs {
		if !drop[i] {
			keep = append(keep, x)
		}
	}
	return keep
}

// order sorts operands by estimated match count: ascending for and,
// descending for or. The sort is stable so ties keep source order. It
// returns a new slice, or nil when the order does not change.
func (o *optimizer) order(xs []ast.Node, isAnd bool) []ast.Node {
	total := o.stats.Len()
	est := make([]int, len(xs))
	idx := make([]int, len(xs))
	for i, x := range xs {
		est[i] = o.estimate(x, total)
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if isAnd {
			return cmp.Compare(est[a], est[b])
		}
		return cmp.Compare(est[b], est[a])
	})
	moved := false
	for i, j := range idx {
		moved = moved || i != j
	}
	if !moved {
		return nil
	}
	sorted := make([]ast.Node, len(xs))
	for i, j := range idx {
		sorted[i] = xs[j]
	}
	return sorted
}

// estimate guesses how many of total nodes satisfy n.
func (o *optimizer) estimate(n ast.Node, total int) int {
	switch n := n.(type) {
	case *ast.Const:
		if n.Value {
			return total
		}
		return 0
	case *ast.Compare:
		if o.leaves != nil && n.Op.Valid() {
			v := operand(n.Value)
			return o.leaves.EstimateLeaf(n.Key, n.Op, &v)
		}
		k := o.stats.KeyStats(n.Key)
		nodes := k.Nodes - k.Unusable
		if nodes <= 0 {
			return 0
		}
		eq := nodes / max(k.Distinct, 1)
		switch n.Op {
		case extra.Eq:
			return eq
		case extra.Ne:
			return nodes - eq
		}
		return nodes / 2
	case *ast.Property:
		return o.stats.PropertyCount(n.Name)
	case *ast.Ranks:
		var sum uint64
		for _, r := range n.Ranges {
			sum += uint64(r.Hi-r.Lo) + 1
		}
		return int(min(sum, uint64(total)))
	case *ast.Hostlist:
		return min(total, total/4+len(n.Exprs))
	case *ast.Not:
		return total - o.estimate(n.X, total)
	case *ast.And:
		e := total
		for _, x := range n.X {
			e = min(e, o.estimate(x, total))
		}
		return e
	case *ast.Or:
		e := 0
		for _, x := range n.X {
			e = min(total, e+o.estimate(x, total))
		}
		return e
	}
	return total
}

// equal reports whether a and b are the same tree, positions aside.
func equal(a, b ast.Node) bool {
	switch a := a.(type) {
	case *ast.And:
		b, ok := b.(*ast.And)
		return ok && slices.EqualFunc(a.X, b.X, equal)
	case *ast.Or:
		b, ok := b.(*ast.Or)
		return ok && slices.EqualFunc(a.X, b.X, equal)
	case *ast.Not:
		b, ok := b.(*ast.Not)
		return ok && equal(a.X, b.X)
	case *ast.Const:
		b, ok := b.(*ast.Const)
		return ok && a.Value == b.Value
	case *ast.Compare:
		b, ok := b.(*ast.Compare)
		return ok && a.Key == b.Key && a.Op == b.Op && a.Value == b.Value
	case *ast.Property:
		b, ok := b.(*ast.Property)
		return ok && a.Name == b.Name
	case *ast.Hostlist:
		b, ok := b.(*ast.Hostlist)
		return ok && slices.Equal(a.Exprs, b.Exprs)
	case *ast.Ranks:
		b, ok := b.(*ast.Ranks)
		return ok && slices.Equal(a.Ranges, b.Ranges)
	}
	return false
}

// hashNode feeds n's structure, positions aside, into h, consistently with
// equal.
func hashNode(h *maphash.Hash, n ast.Node) {
	switch n := n.(type) {
	case *ast.And:
		h.WriteByte('&')
		for _, x := range n.X {
			hashNode(h, x)
		}
		h.WriteByte(')')
	case *ast.Or:
		h.WriteByte('|')
		for _, x := range n.X {
			hashNode(h, x)
		}
		h.WriteByte(')')
	case *ast.Not:
		h.WriteByte('!')
		hashNode(h, n.X)
	case *ast.Const:
		if n.Value {
			h.WriteByte('T')
		} else {
			h.WriteByte('F')
		}
	case *ast.Compare:
		h.WriteByte('c')
		h.WriteString(n.Key)
		h.WriteByte(0)
		h.WriteByte(byte(n.Op))
		h.WriteString(n.Value)
		h.WriteByte(0)
	case *ast.Property:
		h.WriteByte('p')
		h.WriteString(n.Name)
		h.WriteByte(0)
	case *ast.Hostlist:
		h.WriteByte('h')
		for _, e := range n.Exprs {
			h.WriteString(e)
			h.WriteByte(0)
		}
	case *ast.Ranks:
		h.WriteByte('r')
		for _, r := range n.Ranges {
			var b [8]byte
			b[0], b[1], b[2], b[3] = byte(r.Lo), byte(r.Lo>>8), byte(r.Lo>>16), byte(r.Lo>>24)
			b[4], b[5], b[6], b[7] = byte(r.Hi), byte(r.Hi>>8), byte(r.Hi>>16), byte(r.Hi>>24)
			h.Write(b[:])
		}
	}
}
