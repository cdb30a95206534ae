package extra

// Op is a comparison operator of a Slurm extra-constraint leaf
// (`key<op>value`).
type Op uint8

// The six comparison operators.
const (
	Eq Op = iota // =
	Ne           // !=
	Lt           // <
	Le           // <=
	Gt           // >
	Ge           // >=
)

var opText = [...]string{Eq: "=", Ne: "!=", Lt: "<", Le: "<=", Gt: ">", Ge: ">="}

// String returns the operator as written in Slurm syntax, or "?" for a
// value that is none of the six.
func (op Op) String() string {
	if int(op) < len(opText) {
		return opText[op]
	}
	return "?"
}

// Valid reports whether op is one of the six.
func (op Op) Valid() bool { return op <= Ge }

// ParseOp returns the operator spelled s, if s is exactly one of the six.
func ParseOp(s string) (Op, bool) {
	for i, t := range opText {
		if s == t {
			return Op(i), true
		}
	}
	return 0, false
}

// Order is the result of Slurm's three-way comparison.
type Order int8

// The results of a three-way comparison: node value less than, equal to or
// greater than the request value.
const (
	Less    Order = -1
	Equal   Order = 0
	Greater Order = 1
)

// NumberOrder compares node value a with request value b as Slurm does:
// equal when (a-b) is strictly within ±0.00001, else Less when a < b, else
// Greater. So NaN on either side, and Inf against Inf, is Greater. Over
// ascending a, a-b never decreases under IEEE rounding, so the order is
// monotone and a sorted column can be searched with it.
func NumberOrder(a, b float64) Order {
	d := a - b
	if d > -0.00001 && d < 0.00001 {
		return Equal
	}
	if a < b {
		return Less
	}
	return Greater
}

// Holds reports whether op holds for a three-way result.
func (op Op) Holds(o Order) bool {
	switch op {
	case Eq:
		return o == Equal
	case Ne:
		return o != Equal
	case Lt:
		return o == Less
	case Le:
		return o != Greater
	case Gt:
		return o == Greater
	case Ge:
		return o != Less
	}
	return false
}
