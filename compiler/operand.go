package compiler

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/nodesift/sift/index"
)

// operand converts a Slurm request value for every node type ahead of time.
func operand(value string) index.Operand {
	num, ok := slurmNumber(value)
	return index.Operand{Raw: value, Num: num, NumOK: ok, Bool: slurmBool(value)}
}

// slurmNumber reads a request value as Slurm does for a number node: an
// optional sign, then inf/infinity/nan, or a digit starting exactly one C
// double (decimal or hex, a dangling exponent allowed as glibc 2.36 does).
func slurmNumber(s string) (float64, bool) {
	body := s
	neg := false
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	if body == "" || body[0] < '0' || body[0] > '9' || strings.ContainsRune(body, '_') {
		return 0, false
	}
	hex := len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	expChars := "eE"
	if hex {
		expChars = "pP"
	}
	// glibc accepts an exponent marker with no digits and ignores it.
	if i := strings.LastIndexAny(body, expChars); i >= 0 {
		tail := body[i+1:]
		if tail == "" || tail == "+" || tail == "-" {
			body = body[:i]
		}
	}
	if hex && !strings.ContainsAny(body, "pP") {
		body += "p0"
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// slurmBool coerces a request value to a boolean as Slurm's forced bool
// conversion does; it never fails.
func slurmBool(s string) bool {
	if s == "" || s[0] == '~' || strings.EqualFold(s, "null") {
		return false
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		if v, err := strconv.ParseUint(s[2:], 16, 64); err == nil && !strings.ContainsAny(s[2:], "+-_") {
			return v != 0
		}
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v != 0
	}
	if f, ok := slurmNumber(s); ok {
		return f != 0 || math.IsNaN(f)
	}
	if v, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\v\f\r"), 10, 64); err == nil {
		return v != 0
	}
	switch strings.ToLower(s) {
	case "y", "yes", "t", "true", "on":
		return true
	case "n", "no", "f", "false", "off":
		return false
	}
	return true
}
