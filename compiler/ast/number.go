package ast

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// SlurmNumber reads a Slurm request value as a number, as slurmctld does when
// the node's value is a JSON number: an optional single sign, then either one
// of the words inf, infinity or nan (any case, nothing after), or a digit
// followed by text that glibc's sscanf("%lf%c") reads as exactly one double
// with nothing left over. That admits decimal and C99 hexadecimal floats and,
// as glibc 2.36 does, a dangling exponent ("1e", "1e+", "0x1p"). Overflow
// gives ±Inf and underflow 0. ok is false when Slurm's conversion fails.
func SlurmNumber(s string) (v float64, ok bool) {
	body := s
	neg := false
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	if body == "" {
		return 0, false
	}
	switch c := body[0]; {
	case c == 'i' || c == 'I':
		if !asciiEqualFold(body, "inf") && !asciiEqualFold(body, "infinity") {
			return 0, false
		}
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case c == 'n' || c == 'N':
		if !asciiEqualFold(body, "nan") {
			return 0, false
		}
		return math.NaN(), true
	case c >= '0' && c <= '9':
	default:
		return 0, false
	}
	n, hex := scanFloat(body)
	if n != len(body) {
		// sscanf's %c would read the rest: two conversions, not one.
		return 0, false
	}
	if hex && n == 2 {
		// glibc rejects a bare "0x" prefix.
		return 0, false
	}
	var f float64
	if hex {
		f = hexValue(body)
	} else {
		f = decimalValue(body)
	}
	if neg {
		f = -f
	}
	return f, true
}

// scanFloat returns how many bytes of s (which starts with a digit) glibc's
// scanf %lf consumes into its number buffer, and whether it took the
// hexadecimal branch. It follows the character loop of glibc 2.36's
// vfscanf: digits, one decimal point before the exponent, an exponent
// character once a digit was seen, and a sign right after the exponent
// character.
func scanFloat(s string) (n int, hex bool) {
	i := 0
	gotDigit, gotDot, gotE := false, false, false
	expChar := byte('e')
	if s[0] == '0' {
		i = 1
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			i++
			hex = true
			expChar = 'p'
		} else {
			gotDigit = true
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			gotDigit = true
		case !gotE && hex && isHexDigit(c):
			gotDigit = true
		case gotE && lower(s[i-1]) == expChar && (c == '+' || c == '-'):
		case gotDigit && !gotE && lower(c) == expChar:
			gotE, gotDot = true, true
		case !gotE && !gotDot && c == '.':
			gotDot = true
		default:
			return i, hex
		}
	}
	return i, hex
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// trimDanglingExponent drops an exponent character (and its sign) that no
// digit follows: strtod stops before it, so it contributes nothing.
func trimDanglingExponent(s string, expChar byte) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return lower(byte(r)) == expChar })
	if i < 0 {
		return s
	}
	rest := s[i+1:]
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		rest = rest[1:]
	}
	if rest == "" {
		return s[:i]
	}
	return s
}

// decimalValue converts scanned decimal text (digits, an optional point and
// exponent) with correct rounding, as strtod does.
func decimalValue(s string) float64 {
	s = trimDanglingExponent(s, 'e')
	return parseRounded(s)
}

// hexValue converts scanned "0x" text as strtod does: the binary exponent is
// optional, and a mantissa without any hex digit ("0x.") reads as the "0".
func hexValue(s string) float64 {
	s = trimDanglingExponent(s, 'p')
	mant := s[2:]
	if i := strings.IndexAny(mant, "pP"); i >= 0 {
		mant = mant[:i]
	}
	if strings.Trim(mant, ".") == "" {
		return 0
	}
	if !strings.ContainsAny(s, "pP") {
		s += "p0"
	}
	return parseRounded(s)
}

// parseRounded is strconv.ParseFloat on text already known to be well
// formed; strconv rounds correctly (also for hex mantissas longer than 64
// bits, through its sticky bit) and returns ±Inf on overflow and 0 on
// underflow, like glibc's strtod.
func parseRounded(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		// Unreachable for scanned text; NaN keeps the leaf false-ish rather
		// than panicking.
		return math.NaN()
	}
	return f
}
