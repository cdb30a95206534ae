package extra

import (
	"math"
	"testing"
)

const refCompare = "slurm-extra-semantics.md#evaluation (numeric comparison)"

func TestOpSpellingsRoundTrip(t *testing.T) {
	for op := Eq; op <= Ge; op++ {
		got, ok := ParseOp(op.String())
		if !ok || got != op || !op.Valid() {
			t.Errorf("ParseOp(%q) = %v, %v; want %v", op.String(), got, ok, op)
		}
	}
	for _, s := range []string{"", "==", "=<", "<>", " =", "!"} {
		if op, ok := ParseOp(s); ok {
			t.Errorf("ParseOp(%q) = %v, want no operator", s, op)
		}
	}
	if bad := Ge + 1; bad.Valid() || bad.String() != "?" || bad.Holds(Equal) {
		t.Errorf("operator %d: Valid %v, String %q, Holds(Equal) %v; want false, \"?\", false", bad, bad.Valid(), bad.String(), bad.Holds(Equal))
	}
}

func TestHoldsFollowsTheThreeWayResult(t *testing.T) {
	tests := []struct {
		op                 Op
		less, equal, great bool
	}{
		{Eq, false, true, false},
		{Ne, true, false, true},
		{Lt, true, false, false},
		{Le, true, true, false},
		{Gt, false, false, true},
		{Ge, false, true, true},
	}
	for _, tt := range tests {
		if tt.op.Holds(Less) != tt.less || tt.op.Holds(Equal) != tt.equal || tt.op.Holds(Greater) != tt.great {
			t.Errorf("%v: Holds(Less, Equal, Greater) = %v %v %v, want %v %v %v", tt.op,
				tt.op.Holds(Less), tt.op.Holds(Equal), tt.op.Holds(Greater), tt.less, tt.equal, tt.great)
		}
	}
}

func TestNumberOrder(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		a, b float64
		want Order
		ref  string
	}{
		{5, 5.00001, Equal, refCompare + ": diff -9.9999999996e-06 is inside"},
		{5, 4.99999, Equal, refCompare},
		{1.23, 1.23001, Less, refCompare + ": diff -1.0000000000066e-05 is outside"},
		{0, 0.00001, Less, refCompare + ": strict 1e-5"},
		{0, 0.00000001, Equal, refCompare},
		{0, 0.0001, Less, refCompare + ": the seed document's 0.0001 is wrong"},
		{5, nan, Greater, refCompare + ": NaN is GT"},
		{nan, 5, Greater, refCompare + ": NaN is GT"},
		{nan, nan, Greater, refCompare},
		{inf, inf, Greater, refCompare + ": Inf-Inf is NaN"},
		{-inf, -inf, Greater, refCompare},
		{5, inf, Less, refCompare},
		{inf, 5, Greater, refCompare},
		{-inf, 5, Less, refCompare},
		{23, 23.0, Equal, refCompare},
	}
	for _, tt := range tests {
		if got := NumberOrder(tt.a, tt.b); got != tt.want {
			t.Errorf("NumberOrder(%v, %v) = %v, want %v (%s)", tt.a, tt.b, got, tt.want, tt.ref)
		}
	}
}
