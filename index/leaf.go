package index

// Op is a comparison operator of a Slurm extra-constraint leaf.
type Op uint8

// The six comparison operators.
const (
	Eq Op = iota
	Ne
	Lt
	Le
	Gt
	Ge
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

const fuzzyEpsilon = 0.00001

// cmp3 is Slurm's three-way numeric comparison: equal within a strict 1e-5,
// otherwise less or greater; NaN on either side compares greater.
func cmp3(a, b float64) int {
	d := a - b
	if d > -fuzzyEpsilon && d < fuzzyEpsilon {
		return 0
	}
	if a < b {
		return -1
	}
	return 1
}

func (op Op) holds(c int) bool {
	switch op {
	case Eq:
		return c == 0
	case Ne:
		return c != 0
	case Lt:
		return c < 0
	case Le:
		return c <= 0
	case Gt:
		return c > 0
	case Ge:
		return c >= 0
	}
	return false
}

// Match reports whether node value v satisfies `v op operand` under Slurm's
// rules: the node's kind decides the comparison; missing and unusable values
// match nothing, for every operator.
func (v Value) Match(op Op, o *Operand) bool {
	switch v.Kind {
	case KindNumber:
		return o.NumOK && op.holds(cmp3(v.Num, o.Num))
	case KindString:
		c := 0
		if v.Str < o.Raw {
			c = -1
		} else if v.Str > o.Raw {
			c = 1
		}
		return op.holds(c)
	case KindBool:
		c := 0
		if v.Bool != o.Bool {
			if o.Bool {
				c = -1
			} else {
				c = 1
			}
		}
		return op.holds(c)
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

// matchHost reports whether name satisfies q.
func (q *HostQuery) matchHost(name string) bool {
	if q.Exact {
		return name == q.Name
	}
	alpha, digits := SplitHost(name)
	if alpha != q.Alpha || len(digits) != q.Digits || q.Digits == 0 {
		return false
	}
	var v uint64
	for i := 0; i < len(digits); i++ {
		d := uint64(digits[i] - '0')
		if v > (^uint64(0)-d)/10 {
			return false
		}
		v = v*10 + d
	}
	return v >= q.Lo && v <= q.Hi
}
