package ast

import (
	"strings"

	"github.com/nodesift/sift/extra"
)

// SlurmBool coerces a Slurm request value to a boolean, as slurmctld does
// when the node's value is a JSON boolean. It never fails: only null-ish
// values ("", "~…", "null"), numeric zero and the words n, no, f, false and
// off (any case) are false; everything else, NaN included, is true.
func SlurmBool(s string) bool {
	// 1. null.
	if s == "" || s[0] == '~' || asciiEqualFold(s, "null") {
		return false
	}
	// 2. integer, auto-detected: hex digits after 0x, or a signed decimal.
	// Out-of-range values fall through to the float step, which gives the
	// same truth value, so only "all digits zero" matters.
	if digits, ok := cutHexPrefix(s); ok && digits != "" && allBytes(digits, isHexDigit) {
		return strings.Trim(digits, "0") != ""
	}
	if digits := trimSign(s); digits != "" && allBytes(digits, isDigit) {
		return strings.Trim(digits, "0") != ""
	}
	// 3. float (NaN != 0 is true).
	if f, ok := SlurmNumber(s); ok {
		return f != 0
	}
	// 4. integer, forced: strtoll base 10 over the whole string, which skips
	// leading white space.
	if digits := trimSign(strings.TrimLeft(s, " \t\n\v\f\r")); digits != "" && allBytes(digits, isDigit) {
		return strings.Trim(digits, "0") != ""
	}
	// 5. words.
	for _, w := range [...]string{"y", "yes", "t", "true", "on"} {
		if asciiEqualFold(s, w) {
			return true
		}
	}
	for _, w := range [...]string{"n", "no", "f", "false", "off"} {
		if asciiEqualFold(s, w) {
			return false
		}
	}
	// 6. any other non-empty string.
	return true
}

// asciiEqualFold is strcasecmp(s, t) == 0 in the C locale: only ASCII
// letters fold (strings.EqualFold would also fold 'ſ' to 's').
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lower(s[i]) != lower(t[i]) {
			return false
		}
	}
	return true
}

func cutHexPrefix(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:], true
	}
	return "", false
}

func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allBytes(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

// Match reports whether the Slurm leaf `<key> op req` holds for a node whose
// value under key is v. The node's kind decides the comparison: numbers
// parse req with SlurmNumber (a failure makes the leaf false, != included),
// booleans coerce it with SlurmBool (false < true), strings compare bytes as
// strcmp does; a missing or unusable value is false for every operator.
func Match(v extra.Value, op extra.Op, req string) bool {
	var o extra.Order
	switch v.Kind {
	case extra.KindNumber:
		b, ok := SlurmNumber(req)
		if !ok {
			return false
		}
		o = extra.NumberOrder(v.Num, b)
	case extra.KindBool:
		r := SlurmBool(req)
		switch {
		case v.Bool == r:
			o = extra.Equal
		case r:
			o = extra.Less
		default:
			o = extra.Greater
		}
	case extra.KindString:
		o = extra.Order(strings.Compare(v.Str, req))
	default:
		return false
	}
	return op.Holds(o)
}
