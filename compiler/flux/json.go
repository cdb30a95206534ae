package flux

import (
	"strconv"
	"unicode/utf8"

	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/position"
)

// maxDepth bounds JSON nesting, as fastjson does, so that no input recurses
// without limit.
const maxDepth = 300

// span records where a JSON value starts and, for arrays and objects, where
// each element (or member value, in the order written) starts. fastjson
// values carry no offsets; spans give errors and AST nodes their byte
// offsets.
type span struct {
	off, end int // the value is s[off:end]
	kids     []span
}

// scanner checks JSON text as strictly as jansson, the decoder flux-core
// reads constraints with (valid UTF-8, no NUL characters, no lone
// surrogates, no NaN or Infinity, integers that fit 64 bits), and records
// spans.
type scanner struct {
	s   []byte
	pos int
}

func jsonError(off int, msg string) *Error {
	return &Error{Pos: position.Pos{Offset: off}, Msg: "invalid JSON at byte " + strconv.Itoa(off) + ": " + msg}
}

// scanDocument checks that s holds exactly one JSON value.
func scanDocument(s []byte) (span, error) {
	sc := scanner{s: s}
	sc.space()
	v, err := sc.value(0)
	if err != nil {
		return span{}, err
	}
	sc.space()
	if sc.pos < len(s) {
		return span{}, jsonError(sc.pos, "end of input expected")
	}
	return v, nil
}

func (sc *scanner) space() {
	for sc.pos < len(sc.s) {
		switch sc.s[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

func (sc *scanner) value(depth int) (span, error) {
	v, err := sc.valueBody(depth)
	v.end = sc.pos
	return v, err
}

func (sc *scanner) valueBody(depth int) (span, error) {
	if depth > maxDepth {
		return span{}, jsonError(sc.pos, "nesting deeper than "+strconv.Itoa(maxDepth))
	}
	v := span{off: sc.pos}
	if sc.pos >= len(sc.s) {
		return v, jsonError(sc.pos, "value expected")
	}
	switch c := sc.s[sc.pos]; {
	case c == '{':
		sc.pos++
		sc.space()
		if sc.pos < len(sc.s) && sc.s[sc.pos] == '}' {
			sc.pos++
			return v, nil
		}
		for {
			sc.space()
			if sc.pos >= len(sc.s) || sc.s[sc.pos] != '"' {
				return v, jsonError(sc.pos, "string key expected")
			}
			if err := sc.str(); err != nil {
				return v, err
			}
			sc.space()
			if sc.pos >= len(sc.s) || sc.s[sc.pos] != ':' {
				return v, jsonError(sc.pos, "':' expected")
			}
			sc.pos++
			sc.space()
			k, err := sc.value(depth + 1)
			if err != nil {
				return v, err
			}
			v.kids = append(v.kids, k)
			if done, err := sc.next('}'); done || err != nil {
				return v, err
			}
		}
	case c == '[':
		sc.pos++
		sc.space()
		if sc.pos < len(sc.s) && sc.s[sc.pos] == ']' {
			sc.pos++
			return v, nil
		}
		for {
			sc.space()
			k, err := sc.value(depth + 1)
			if err != nil {
				return v, err
			}
			v.kids = append(v.kids, k)
			if done, err := sc.next(']'); done || err != nil {
				return v, err
			}
		}
	case c == '"':
		return v, sc.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return v, sc.number()
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(sc.s)-sc.pos >= len(lit) && string(sc.s[sc.pos:sc.pos+len(lit)]) == lit {
				sc.pos += len(lit)
				return v, nil
			}
		}
		return v, jsonError(sc.pos, "value expected")
	}
}

func (sc *scanner) str() error {
	start := sc.pos
	sc.pos++
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		switch {
		case c == '"':
			sc.pos++
			return nil
		case c < 0x20:
			return jsonError(sc.pos, "control character in string")
		case c == '\\':
			if sc.pos+1 >= len(sc.s) {
				return jsonError(sc.pos, "escape expected")
			}
			switch sc.s[sc.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.pos += 2
			case 'u':
				r, ok := extra.Hex4(sc.s[sc.pos+2:])
				if !ok {
					return jsonError(sc.pos, "invalid \\u escape")
				}
				switch {
				case r == 0:
					return jsonError(sc.pos, "\\u0000 is not allowed")
				case r >= 0xDC00 && r <= 0xDFFF:
					return jsonError(sc.pos, "lone low surrogate")
				case r >= 0xD800 && r <= 0xDBFF:
					lo, ok := rune(0), false
					if sc.pos+7 < len(sc.s) && sc.s[sc.pos+6] == '\\' && sc.s[sc.pos+7] == 'u' {
						lo, ok = extra.Hex4(sc.s[sc.pos+8:])
					}
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return jsonError(sc.pos, "lone high surrogate")
					}
					sc.pos += 12
				default:
					sc.pos += 6
				}
			default:
				return jsonError(sc.pos, "invalid escape")
			}
		case c < utf8.RuneSelf:
			sc.pos++
		default:
			r, n := utf8.DecodeRune(sc.s[sc.pos:])
			if r == utf8.RuneError && n <= 1 {
				return jsonError(sc.pos, "invalid UTF-8")
			}
			sc.pos += n
		}
	}
	return jsonError(start, "unterminated string")
}

func (sc *scanner) number() error {
	start := sc.pos
	digits := func() int {
		n := 0
		for sc.pos < len(sc.s) && sc.s[sc.pos] >= '0' && sc.s[sc.pos] <= '9' {
			sc.pos++
			n++
		}
		return n
	}
	if sc.s[sc.pos] == '-' {
		sc.pos++
	}
	intStart := sc.pos
	if digits() == 0 {
		return jsonError(start, "invalid number")
	}
	if sc.s[intStart] == '0' && sc.pos-intStart > 1 {
		return jsonError(start, "invalid number")
	}
	real := false
	if sc.pos < len(sc.s) && sc.s[sc.pos] == '.' {
		sc.pos++
		real = true
		if digits() == 0 {
			return jsonError(start, "invalid number")
		}
	}
	if sc.pos < len(sc.s) && (sc.s[sc.pos] == 'e' || sc.s[sc.pos] == 'E') {
		sc.pos++
		real = true
		if sc.pos < len(sc.s) && (sc.s[sc.pos] == '+' || sc.s[sc.pos] == '-') {
			sc.pos++
		}
		if digits() == 0 {
			return jsonError(start, "invalid number")
		}
	}
	text := string(sc.s[start:sc.pos])
	if real {
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			return jsonError(start, "real number overflow")
		}
	} else if _, err := strconv.ParseInt(text, 10, 64); err != nil {
		return jsonError(start, "too big integer")
	}
	return nil
}

// next reads what follows a member of an object or array: a ',' (another
// member comes; done is false) or the closing byte (done is true).
func (sc *scanner) next(close byte) (done bool, err error) {
	sc.space()
	if sc.pos < len(sc.s) && sc.s[sc.pos] == ',' {
		sc.pos++
		return false, nil
	}
	if sc.pos < len(sc.s) && sc.s[sc.pos] == close {
		sc.pos++
		return true, nil
	}
	return false, jsonError(sc.pos, "',' or '"+string(close)+"' expected")
}
