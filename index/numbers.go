package index

import (
	"math"
	"strconv"
	"unsafe"
)

// numEnt is one node's number as an order-preserving integer key.
type numEnt struct {
	key uint64
	id  uint32
}

// floatKey maps a non-NaN float64 to a uint64 with the same order (-0 and 0
// share a key: they compare alike).
func floatKey(f float64) uint64 {
	if f == 0 {
		return 1 << 63
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func keyFloat(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// radixSort sorts es by key, stably (ids stay ascending within a key),
// skipping the byte positions on which every key agrees.
func radixSort(es []numEnt) []numEnt {
	var hist [8][256]int
	for _, e := range es {
		for d := 0; d < 8; d++ {
			hist[d][byte(e.key>>(8*d))]++
		}
	}
	tmp := make([]numEnt, len(es))
	for d := 0; d < 8; d++ {
		h := &hist[d]
		if h[byte(es[0].key>>(8*d))] == len(es) {
			continue
		}
		sum := 0
		for i := range h {
			sum, h[i] = sum+h[i], sum
		}
		for _, e := range es {
			b := byte(e.key >> (8 * d))
			tmp[h[b]] = e
			h[b]++
		}
		es, tmp = tmp, es
	}
	return es
}

// digitsValue reads a run of decimal digits; ok is false on uint64 overflow
// (such a name then matches no range query, as in HostQuery.Match).
func digitsValue(digits string) (uint64, bool) {
	var v uint64
	for i := 0; i < len(digits); i++ {
		d := uint64(digits[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// fastNumber is jsonNumber without allocating: integers are read as int64
// (clamped at its bounds, like strconv.ParseInt's error results), reals with
// strtod semantics.
func fastNumber(text []byte) float64 {
	real := false
	for _, c := range text {
		if c == '.' || c == 'e' || c == 'E' {
			real = true
			break
		}
	}
	if real {
		if f, ok := simpleDecimal(text); ok {
			return f
		}
		f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
		return f
	}
	s := text
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	clamp := float64(math.MaxInt64)
	if len(text) > 0 && text[0] == '-' {
		clamp = float64(math.MinInt64)
	}
	if len(s) == 0 {
		return clamp
	}
	var u uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return clamp
		}
		if u > (math.MaxUint64-9)/10 {
			return clamp
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return clamp
		}
		return float64(-int64(u))
	}
	if u > math.MaxInt64 {
		return clamp
	}
	return float64(int64(u))
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// simpleDecimal reads [-]digits.digits with at most 15 digits in all:
// mantissa and power of ten are then exact float64s and one IEEE division
// rounds correctly, exactly as strtod would.
func simpleDecimal(text []byte) (float64, bool) {
	s := text
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}
