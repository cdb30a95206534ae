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
