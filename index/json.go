package index

import (
	"github.com/nodesift/sift/extra"
)

// member is one top-level member of a node's extra JSON, as spans of the
// input (or of the reader's decoded bytes, for strings with escapes): no
// pointers, so recording members costs no write barriers.
type member struct {
	key  textSpan
	val  textSpan // a string's decoded bytes or a number's text
	num  float64  // a number's value, read as fastNumber reads its text
	kind extra.Kind
	t    bool
}

// textSpan is s[lo:hi] of the input, or of the decoded bytes when dec is set.
type textSpan struct {
	lo, hi int
	dec    bool
}

// extraReader reads node extra JSON in one strict pass: it accepts exactly
// the RFC 8259 documents (as fastjson.Validate decides: raw bytes are not
// checked for UTF-8) nested less than extra.MaxDepth deep, and decodes escapes
// as json-c does (extra.DecodeEscapes), cutting keys and strings at a decoded
// NUL. It is independent of the reference reader ast.ParseExtra, which
// validates with fastjson and walks the text again, so that fuzzing one
// against the other checks this fast path. Reused across documents; not safe
// for concurrent use.
type extraReader struct {
	s       []byte
	i       int
	members []member
	dec     []byte
	// strs holds the short keys and strings parseExtra has returned, so
	// that an update repeating them allocates none; bounded by maxInternedStrs.
	strs map[string]string
}

// maxInternedStrs bounds an extraReader's string cache.
const maxInternedStrs = 4096

// maxInternedLen is the longest string the cache keeps.
const maxInternedLen = 64

// intern returns b as a string, shared with earlier calls when short.
func (r *extraReader) intern(b []byte) string {
	if len(b) > maxInternedLen {
		return string(b)
	}
	if s, ok := r.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if r.strs == nil {
		r.strs = map[string]string{}
	}
	if len(r.strs) < maxInternedStrs {
		r.strs[s] = s
	}
	return s
}

// bytes returns the text of sp; valid until the next read.
func (r *extraReader) bytes(sp textSpan) []byte {
	if sp.dec {
		return r.dec[sp.lo:sp.hi]
	}
	return r.s[sp.lo:sp.hi]
}

// read parses raw and returns its top-level members in document order (a
// later duplicate key wins). ok is false when raw is not accepted; a
// document whose top level is not an object gives ok and no members. The
// members' spans resolve through bytes until the next read.
func (r *extraReader) read(raw []byte) (members []member, ok bool) {
	r.members, r.dec = r.members[:0], r.dec[:0]
	if !r.readMore(raw) {
		return nil, false
	}
	return r.members, true
}

// readMore is read without forgetting earlier documents: raw's members are
// appended to r.members and its decoded bytes to r.dec. When raw is not
// accepted, both are left as they were.
func (r *extraReader) readMore(raw []byte) bool {
	m0, d0 := len(r.members), len(r.dec)
	r.s, r.i = raw, 0
	r.space()
	var ok bool
	if r.i < len(r.s) && r.s[r.i] == '{' {
		ok = r.object()
	} else {
		ok = r.skip(0)
	}
	r.space()
	if !ok || r.i != len(r.s) {
		r.members, r.dec = r.members[:m0], r.dec[:d0]
		return false
	}
	return true
}

func (r *extraReader) space() {
	s, i := r.s, r.i
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	r.i = i
}

// object reads the top-level object, recording its members.
func (r *extraReader) object() bool {
	r.i++
	r.space()
	if r.i < len(r.s) && r.s[r.i] == '}' {
		r.i++
		return true
	}
	for {
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != '"' {
			return false
		}
		key, ok := r.str()
		if !ok {
			return false
		}
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != ':' {
			return false
		}
		r.i++
		r.space()
		if r.i >= len(r.s) {
			return false
		}
		m := member{key: key}
		switch c := r.s[r.i]; {
		case c == '"':
			if m.val, ok = r.str(); !ok {
				return false
			}
			m.kind = extra.KindString
		case c == '-' || c >= '0' && c <= '9':
			start := r.i
			if m.num, ok = r.numberValue(); !ok {
				return false
			}
			m.kind, m.val = extra.KindNumber, textSpan{lo: start, hi: r.i}
		case c == 't' || c == 'f':
			if !r.skip(1) {
				return false
			}
			m.kind, m.t = extra.KindBool, c == 't'
		default:
			if !r.skip(1) {
				return false
			}
			m.kind = extra.KindUnusable
		}
		r.members = append(r.members, m)
		r.space()
		if r.i >= len(r.s) {
			return false
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

// skip checks one value that sits inside depth containers.
func (r *extraReader) skip(depth int) bool {
	if depth >= extra.MaxDepth || r.i >= len(r.s) {
		return false
	}
	switch c := r.s[r.i]; c {
	case '"':
		return r.skipStr()
	case '{', '[':
		return r.container(depth)
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.literal("null")
	}
	return r.number()
}

func (r *extraReader) literal(word string) bool {
	if len(r.s)-r.i < len(word) || string(r.s[r.i:r.i+len(word)]) != word {
		return false
	}
	r.i += len(word)
	return true
}

// container checks an array or object at depth; its members sit at depth+1.
func (r *extraReader) container(depth int) bool {
	isObject := r.s[r.i] == '{'
	end := byte(']')
	if isObject {
		end = '}'
	}
	r.i++
	r.space()
	if r.i < len(r.s) && r.s[r.i] == end {
		r.i++
		return true
	}
	for {
		r.space()
		if isObject {
			if r.i >= len(r.s) || r.s[r.i] != '"' || !r.skipStr() {
				return false
			}
			r.space()
			if r.i >= len(r.s) || r.s[r.i] != ':' {
				return false
			}
			r.i++
			r.space()
		}
		if !r.skip(depth + 1) {
			return false
		}
		r.space()
		if r.i >= len(r.s) {
			return false
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case end:
			r.i++
			return true
		default:
			return false
		}
	}
}

// number checks a number token: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *extraReader) number() bool {
	if r.i < len(r.s) && r.s[r.i] == '-' {
		r.i++
	}
	start := r.i
	r.digits()
	switch n := r.i - start; {
	case n == 0:
		return false
	case n > 1 && r.s[start] == '0':
		return false
	}
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		if r.digits() == 0 {
			return false
		}
	}
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			r.i++
		}
		if r.digits() == 0 {
			return false
		}
	}
	return true
}

// numberValue checks a number token as number does and returns its value as
// fastNumber would: the usual short integers and plain decimals are
// converted during the scan, anything else is handed to fastNumber.
func (r *extraReader) numberValue() (float64, bool) {
	// Locals, not r's fields, so that the scan loops stay in registers.
	s, i := r.s, r.i
	start := i
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	first := i
	var m uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if i-first < 19 {
			m = m*10 + uint64(s[i]-'0')
		}
		i++
	}
	n := i - first
	if n == 0 || n > 1 && s[first] == '0' {
		r.i = i
		return 0, false
	}
	if i < len(s) && (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
		frac := 0
		if s[i] == '.' {
			i++
			f0 := i
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				if n+i-f0 < 19 {
					m = m*10 + uint64(s[i]-'0')
				}
				i++
			}
			if frac = i - f0; frac == 0 {
				r.i = i
				return 0, false
			}
		}
		if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '-') {
				i++
			}
			r.i = i
			if r.digits() == 0 {
				return 0, false
			}
			return fastNumber(s[start:r.i]), true
		}
		r.i = i
		if n+frac > 15 {
			return fastNumber(s[start:i]), true
		}
		// Mantissa and power of ten are exact: one division rounds as
		// strtod does (simpleDecimal).
		f := float64(m) / pow10[frac]
		if neg {
			f = -f
		}
		return f, true
	}
	r.i = i
	if n > 18 {
		return fastNumber(s[start:i]), true
	}
	if neg {
		return float64(-int64(m)), true
	}
	return float64(int64(m)), true
}

func (r *extraReader) digits() int {
	s, i := r.s, r.i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n := i - r.i
	r.i = i
	return n
}

// strPlain marks the bytes a string token may hold without a closer look.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// rawStr finds the end of the string token at r.i, checking its bytes and
// escapes; it reports whether the token has escapes. r.i is left after the
// closing quote. A raw control character rejects the string only when no
// escape follows it: fastjson.Validate, which ast.ParseExtra follows, checks
// just the text after the last escape.
func (r *extraReader) rawStr() (body textSpan, escaped, ok bool) {
	s, i := r.s, r.i+1
	start := i
	control := false // a control character since the last escape
	for {
		for i < len(s) && strPlain[s[i]] {
			i++
		}
		if i >= len(s) {
			r.i = i
			return textSpan{}, false, false
		}
		switch s[i] {
		case '"':
			r.i = i + 1
			return textSpan{lo: start, hi: i}, escaped, !control
		case '\\':
			escaped, control = true, false
			if i+1 >= len(s) {
				r.i = i
				return textSpan{}, false, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := extra.Hex4(s[i+2:]); !ok {
					r.i = i
					return textSpan{}, false, false
				}
				i += 6
			default:
				r.i = i
				return textSpan{}, false, false
			}
		default: // a control character
			control = true
			i++
		}
	}
}

func (r *extraReader) skipStr() bool {
	_, _, ok := r.rawStr()
	return ok
}

// str reads a string token and decodes it; without escapes the result is
// a span of the input.
func (r *extraReader) str() (textSpan, bool) {
	body, escaped, ok := r.rawStr()
	if !ok || !escaped {
		return body, ok
	}
	lo := len(r.dec)
	r.dec = extra.DecodeEscapes(r.dec, r.s[body.lo:body.hi])
	return textSpan{lo: lo, hi: lo + len(extra.CBytes(r.dec[lo:])), dec: true}, true
}
