package bench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/index"
)

// errUnsupported reports a constraint a contestant cannot run.
var errUnsupported = errors.New("bench: constraint node not supported")

// leaf is a Compare with its request value converted once for every node type.
type leaf struct {
	key     string
	op      index.Op
	operand index.Operand
}

func newLeaf(c *ast.Compare) leaf {
	return leaf{key: c.Key, op: index.Op(c.Op), operand: slurmOperand(c.Value)}
}

// slurmOperand converts a request value the way Slurm does for each node
// type. The number and bool readings follow reference/slurm-extra-semantics.md
// for the values the suites and generators produce (decimal numbers, inf,
// nan, words); C99 hex floats are not read here.
func slurmOperand(v string) index.Operand {
	o := index.Operand{Raw: v}
	o.Num, o.NumOK = slurmNumber(v)
	o.Bool = slurmBool(v, o.Num, o.NumOK)
	return o
}

func slurmNumber(v string) (float64, bool) {
	s := v
	sign := 1.0
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	switch strings.ToLower(s) {
	case "inf", "infinity":
		return sign * math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	if s == "" || s[0] < '0' || s[0] > '9' || strings.ContainsAny(s, "xX_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return sign * f, true
		}
		return 0, false
	}
	return sign * f, true
}

func slurmBool(v string, num float64, numOK bool) bool {
	switch strings.ToLower(v) {
	case "", "null", "n", "no", "f", "false", "off":
		return false
	case "y", "yes", "t", "true", "on":
		return true
	}
	if v[0] == '~' {
		return false
	}
	if numOK {
		return num != 0 || math.IsNaN(num)
	}
	if i, err := strconv.ParseInt(strings.TrimLeft(v, " \t\n\v\f\r"), 10, 64); err == nil {
		return i != 0
	}
	return true
}

// plan is a constraint prepared for word-at-a-time evaluation over a
// snapshot's leaf API: the bitmap engine as it stands on this branch. When
// compiler.Compile and vm.Run land, the sift contestant runs those instead.
type plan struct {
	and, or bool
	leaf    leaf
	kids    []*plan
}

func newPlan(n ast.Node) (*plan, int, error) {
	switch n := n.(type) {
	case *ast.Compare:
		return &plan{leaf: newLeaf(n)}, 1, nil
	case *ast.And, *ast.Or:
		var xs []ast.Node
		p := &plan{}
		if a, ok := n.(*ast.And); ok {
			xs, p.and = a.X, true
		} else {
			xs, p.or = n.(*ast.Or).X, true
		}
		if len(xs) == 0 {
			return nil, 0, fmt.Errorf("%w: empty %T", errUnsupported, n)
		}
		depth := 0
		for _, x := range xs {
			k, d, err := newPlan(x)
			if err != nil {
				return nil, 0, err
			}
			p.kids = append(p.kids, k)
			depth = max(depth, d)
		}
		return p, depth + 1, nil
	}
	return nil, 0, fmt.Errorf("%w: %T", errUnsupported, n)
}

// bitmapEngine evaluates a plan over a snapshot into reused dense words.
type bitmapEngine struct {
	snap *index.Snapshot
	plan *plan
	bufs [][]uint64 // one scratch buffer per tree level
	out  []uint64
}

func newBitmapEngine(n ast.Node, s *index.Snapshot) (*bitmapEngine, error) {
	p, depth, err := newPlan(n)
	if err != nil {
		return nil, err
	}
	e := &bitmapEngine{snap: s, plan: p, out: make([]uint64, s.Words())}
	for range depth {
		e.bufs = append(e.bufs, make([]uint64, s.Words()))
	}
	return e, nil
}

// Run computes the matching nodes into e.out.
func (e *bitmapEngine) Run() { e.eval(e.plan, e.out, 0) }

func (e *bitmapEngine) eval(p *plan, dst []uint64, level int) {
	if p.kids == nil {
		e.snap.ExtraLeaf(p.leaf.key, p.leaf.op, &p.leaf.operand, dst)
		return
	}
	e.eval(p.kids[0], dst, level+1)
	tmp := e.bufs[level]
	for _, k := range p.kids[1:] {
		if p.and && allZero(dst) || p.or && e.allLive(dst) {
			return
		}
		e.eval(k, tmp, level+1)
		if p.and {
			for i := range dst {
				dst[i] &= tmp[i]
			}
		} else {
			for i := range dst {
				dst[i] |= tmp[i]
			}
		}
	}
}

func allZero(w []uint64) bool {
	for _, x := range w {
		if x != 0 {
			return false
		}
	}
	return true
}

// allLive reports whether w already holds every node id (an Or can stop).
func (e *bitmapEngine) allLive(w []uint64) bool {
	return uint64(e.snap.Len()) == uint64(e.snap.IDBound()) && popcount(w) == e.snap.Len()
}

// referenceEngine is the per-node baseline: for every node, a plain walk of
// the constraint tree.
type referenceEngine struct {
	snap  *index.Snapshot
	tree  ast.Node
	leafs map[*ast.Compare]leaf
	out   []uint64
}

func newReferenceEngine(n ast.Node, s *index.Snapshot) (*referenceEngine, error) {
	e := &referenceEngine{snap: s, tree: n, leafs: map[*ast.Compare]leaf{}, out: make([]uint64, s.Words())}
	var walk func(ast.Node) error
	walk = func(n ast.Node) error {
		switch n := n.(type) {
		case *ast.Compare:
			e.leafs[n] = newLeaf(n)
		case *ast.And:
			for _, x := range n.X {
				if err := walk(x); err != nil {
					return err
				}
			}
		case *ast.Or:
			for _, x := range n.X {
				if err := walk(x); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("%w: %T", errUnsupported, n)
		}
		return nil
	}
	return e, walk(n)
}

// Run computes the matching nodes into e.out.
func (e *referenceEngine) Run() {
	clear(e.out)
	for id := uint32(0); id < e.snap.IDBound(); id++ {
		if e.snap.HasExtra(id) && e.node(e.tree, id) {
			e.out[id>>6] |= 1 << (id & 63)
		}
	}
}

func (e *referenceEngine) node(n ast.Node, id uint32) bool {
	switch n := n.(type) {
	case *ast.Compare:
		l := e.leafs[n]
		return e.snap.NodeExtraLeaf(id, l.key, l.op, &l.operand)
	case *ast.And:
		for _, x := range n.X {
			if !e.node(x, id) {
				return false
			}
		}
		return true
	case *ast.Or:
		for _, x := range n.X {
			if e.node(x, id) {
				return true
			}
		}
		return false
	}
	return false
}
