package ast

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const refNumber = "slurm-extra-semantics.md#value-typing (request side, number)"

func TestSlurmNumber(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		in   string
		ok   bool
		want float64
		ref  string
	}{
		// Invalid: a digit must come first, nothing may follow, no spaces.
		{".5", false, 0, refNumber},
		{"+.5", false, 0, refNumber},
		{"5abc", false, 0, refNumber},
		{"1_0", false, 0, refNumber},
		{" 5", false, 0, refNumber},
		{"5 ", false, 0, refNumber},
		{"--5", false, 0, refNumber},
		{"+-5", false, 0, refNumber},
		{"nan(1)", false, 0, refNumber},
		{"true", false, 0, refNumber},
		{"", false, 0, refNumber},
		{"+", false, 0, refNumber},
		{"-", false, 0, refNumber},
		{"infin", false, 0, refNumber},
		{"infx", false, 0, refNumber},
		{"nanx", false, 0, refNumber},
		{"1..", false, 0, refNumber},
		{"1.2.3", false, 0, refNumber},
		{"1e5.", false, 0, refNumber},
		{"1e+-5", false, 0, refNumber},
		{"1ee", false, 0, refNumber},
		{"0x", false, 0, refNumber + ": glibc rejects a bare 0x prefix"},
		{"0X", false, 0, refNumber},
		{"0xg", false, 0, refNumber},
		{"0xp1", false, 0, refNumber},
		{"0x.p1", false, 0, refNumber},
		{"0x1pa", false, 0, refNumber},
		{"0x1.8e", true, 1.5 + 14.0/256, refNumber + ": e is a hex digit"},
		{"1e0x", false, 0, refNumber},
		// Valid decimal.
		{"1.", true, 1, refNumber},
		{"1e3", true, 1000, refNumber},
		{"007", true, 7, refNumber},
		{"15e-1", true, 1.5, refNumber},
		{"1.23", true, 1.23, refNumber},
		{"-2", true, -2, refNumber},
		{"+2.5", true, 2.5, refNumber},
		{"0", true, 0, refNumber},
		{"1E3", true, 1000, refNumber},
		{"1.e2", true, 100, refNumber},
		// Dangling exponents, as glibc 2.36.
		{"1e", true, 1, refNumber + ": glibc 2.36 dangling exponent"},
		{"1e+", true, 1, refNumber + ": glibc 2.36 dangling exponent"},
		{"1e-", true, 1, refNumber + ": glibc 2.36 dangling exponent"},
		{"1.5e", true, 1.5, refNumber + ": glibc 2.36 dangling exponent"},
		// Hex floats (C99, via scanf).
		{"0x10", true, 16, refNumber + ": C99 hex"},
		{"0x1.8p0", true, 1.5, refNumber + ": C99 hex"},
		{"0X1P3", true, 8, refNumber + ": C99 hex"},
		{"0x1.8", true, 1.5, refNumber + ": hex without binary exponent"},
		{"0x1p", true, 1, refNumber + ": dangling binary exponent"},
		{"0x1p-", true, 1, refNumber + ": dangling binary exponent"},
		{"0x.8", true, 0.5, refNumber},
		{"0x.", true, 0, refNumber + ": strtod reads the 0 of 0x."},
		{"-0x10", true, -16, refNumber},
		{"0x1p-1074", true, 5e-324, refNumber + ": smallest subnormal"},
		{"0x1p-1075", true, 0, refNumber + ": half the smallest subnormal rounds to even 0"},
		{"0x1.8p-1074", true, 1e-323, refNumber + ": 1.5 ulp rounds to even 2 ulp"},
		{"0x1.fffffffffffff8p0", true, 2, refNumber + ": ties to even"},
		{"0x1.fffffffffffff7ffffffffffffffffp0", true, 1.9999999999999998, refNumber + ": sticky bits"},
		// Overflow and underflow.
		{"1e999", true, inf, refNumber + ": overflow"},
		{"-1e999", true, -inf, refNumber + ": overflow"},
		{"0x1p99999999999999999999", true, inf, refNumber + ": overflow"},
		{"1e-400", true, 0, refNumber + ": underflow"},
		{"0e99999999999999999999", true, 0, refNumber},
		// Words.
		{"inf", true, inf, refNumber + ": words"},
		{"-Infinity", true, -inf, refNumber + ": words"},
		{"+INF", true, inf, refNumber + ": words"},
		{"NAN", true, nan, refNumber + ": words"},
		{"-nan", true, nan, refNumber + ": words"},
	}
	for _, tt := range tests {
		got, ok := SlurmNumber(tt.in)
		if ok != tt.ok || ok && !sameFloat(got, tt.want) {
			t.Errorf("SlurmNumber(%q) = %v, %v; want %v, %v (%s)", tt.in, got, ok, tt.want, tt.ok, tt.ref)
		}
	}
}

func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b
}

// numberModel is the accepted language of SlurmNumber as regular
// expressions, written from the reference independently of scanFloat.
var (
	wordModel    = regexp.MustCompile(`^[+-]?(?i:inf|infinity|nan)$`)
	decimalModel = regexp.MustCompile(`^[+-]?[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]*)?$`)
	hexModel     = regexp.MustCompile(`^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*([pP][+-]?[0-9]*)?|\.([0-9a-fA-F]+([pP][+-]?[0-9]*)?)?)$`)
)

// hexModelValue converts hex float text exactly with math/big; it is right
// only for results in the normal range, which is where the test uses it.
func hexModelValue(s string) (float64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")[2:]
	mant, exp, _ := strings.Cut(strings.ToLower(s), "p")
	e := 0
	if exp = strings.TrimLeft(exp, "+"); exp != "" && exp != "-" {
		v, err := strconv.Atoi(exp)
		if err != nil || v > 5000 || v < -5000 {
			return 0, false
		}
		e = v
	}
	ip, fp, _ := strings.Cut(mant, ".")
	digits := ip + fp
	if digits == "" {
		return 0, true
	}
	m, _ := new(big.Int).SetString(digits, 16)
	f := new(big.Float).SetPrec(0).SetMode(big.ToNearestEven).SetInt(m)
	f.SetMantExp(f, e-4*len(fp))
	v, _ := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).Set(f).Float64()
	if v != 0 && math.Abs(v) < 0x1p-1022 || math.IsInf(v, 0) {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

func FuzzSlurmNumber(f *testing.F) {
	for _, s := range []string{"1", "1.5", "0x1.8p0", "1e", "inf", "-nan", ".5", "0x", "0x.", "1e999", "0x1.fffffffffffff8p0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := SlurmNumber(s)
		model := wordModel.MatchString(s) || decimalModel.MatchString(s) || hexModel.MatchString(s)
		if ok != model {
			t.Fatalf("SlurmNumber(%q) ok = %v, model says %v", s, ok, model)
		}
		if !ok || wordModel.MatchString(s) {
			return
		}
		if math.IsNaN(v) {
			t.Fatalf("SlurmNumber(%q) = NaN from digits", s)
		}
		if hexModel.MatchString(s) {
			if want, exact := hexModelValue(s); exact && want != v {
				t.Fatalf("SlurmNumber(%q) = %v, exact conversion %v", s, v, want)
			}
		}
	})
}
