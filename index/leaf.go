package index

import (
	"strings"

	"github.com/nodesift/sift/extra"
)

// Operand is a leaf's request value, converted ahead of time for every node
// type, so that nothing is parsed while a program runs.
type Operand struct {
	// Raw is the request text, compared byte-wise with string nodes.
	Raw string
	// Num is the request read as a number (glibc rules); NumOK is false when
	// the text is not a number, and the leaf is then false on number nodes.
	Num   float64
	NumOK bool
	// Bool is the request coerced to a boolean (never fails).
	Bool bool
}

// Range is the and of two comparisons of one key, a lower bound (Lower is
// Gt or Ge) and an upper bound (Upper is Lt or Le): `value Lower Lo` and
// `value Upper Hi`. Over each type's sorted values it is one span, written
// in one pass instead of two leaves and an and. A Range with other
// operators matches nothing.
type Range struct {
	Lower, Upper extra.Op
	Lo, Hi       Operand
}

// bounds reports whether the operators are a lower and an upper bound.
func (r *Range) bounds() bool {
	return (r.Lower == extra.Gt || r.Lower == extra.Ge) && (r.Upper == extra.Lt || r.Upper == extra.Le)
}

// spans is the one span of a type's positions both bounds hold, given
// where each bound's request falls among the type's distinct values
// (starting at start[i], ending before start[j], as opSpans reads them).
func (r *Range) spans(start []uint32, li, lj, ui, uj int) [2]span {
	n := start[len(start)-1]
	lower := opSpans(r.Lower, start[li], start[lj], n)[0]
	upper := opSpans(r.Upper, start[ui], start[uj], n)[0]
	return [2]span{{max(lower.lo, upper.lo), min(lower.hi, upper.hi)}}
}

// Match reports whether node value v lies in r, under Slurm's rules for
// each comparison.
func (r *Range) Match(v extra.Value) bool {
	return r.bounds() && r.Lo.Match(v, r.Lower) && r.Hi.Match(v, r.Upper)
}

// RankRange is an inclusive range of ranks.
type RankRange struct{ Lo, Hi uint32 }

// Match reports whether node value v satisfies `v op o` under Slurm's
// rules: the node's kind decides the comparison; missing and unusable values
// match nothing, for every operator.
func (o *Operand) Match(v extra.Value, op extra.Op) bool {
	switch v.Kind {
	case extra.KindNumber:
		return o.NumOK && op.Holds(extra.NumberOrder(v.Num, o.Num))
	case extra.KindString:
		return op.Holds(extra.Order(strings.Compare(v.Str, o.Raw)))
	case extra.KindBool:
		switch {
		case v.Bool == o.Bool:
			return op.Holds(extra.Equal)
		case o.Bool:
			return op.Holds(extra.Less)
		}
		return op.Holds(extra.Greater)
	}
	return false
}

// HostQuery selects nodes by hostname without expanding a hostlist: either
// exactly Name (when Exact), or Alpha followed by exactly Digits decimal digits
// (leading zeros included) whose value lies in [Lo, Hi]. Alpha is the name with
// its maximal run of trailing digits removed.
type HostQuery struct {
	Exact  bool
	Name   string
	Alpha  string
	Digits int
	Lo, Hi uint64
}

// SplitHost splits a hostname into its alpha part and its maximal run of
// trailing decimal digits.
func SplitHost(name string) (alpha, digits string) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	return name[:i], name[i:]
}

// Match reports whether name satisfies q.
func (q *HostQuery) Match(name string) bool {
	if q.Exact {
		return name == q.Name
	}
	if q.Digits == 0 || len(name) <= len(q.Alpha) || name[:len(q.Alpha)] != q.Alpha {
		return false
	}
	alpha, digits := SplitHost(name)
	if len(alpha) != len(q.Alpha) || len(digits) != q.Digits {
		return false
	}
	v, ok := digitsValue(digits)
	return ok && v >= q.Lo && v <= q.Hi
}
