package ast

import (
	"math"
	"strconv"
	"strings"

	"github.com/nodesift/sift/extra"
	"github.com/valyala/fastjson"
)

// ParseExtra types a node's raw extra JSON as slurmctld stores it. ok is
// false when raw is not strict RFC 8259 JSON (as fastjson.Validate decides)
// or nests a value inside extra.MaxDepth or more arrays and objects: the node
// then has no extra data. A valid document whose top level is not an object
// gives ok and no keys. Duplicate keys: the last wins. Escapes decode as
// json-c decodes them (an unpaired surrogate becomes U+FFFD), and keys and
// strings end at a NUL, as json-c's C strings do. Integers (no '.', 'e' or
// 'E') are read as int64, clamped at its bounds, then converted to float64;
// reals are correctly rounded, overflowing to ±Inf.
func ParseExtra(raw []byte) (map[string]extra.Value, bool) {
	// The nesting bound first, so that validating deep input never
	// recurses deeply.
	if openDepth(raw) > extra.MaxDepth || fastjson.ValidateBytes(raw) != nil {
		return nil, false
	}
	r := extraReader{s: raw}
	r.space()
	if r.s[r.i] != '{' {
		if _, ok := r.value(0); !ok {
			return nil, false
		}
		return map[string]extra.Value{}, true
	}
	out := map[string]extra.Value{}
	r.i++
	r.space()
	if r.s[r.i] == '}' {
		return out, true
	}
	for {
		r.space()
		key := r.str()
		r.space()
		r.i++ // ':'
		r.space()
		v, ok := r.value(1)
		if !ok {
			return nil, false
		}
		out[extra.CString(key)] = v
		r.space()
		if r.s[r.i] == '}' {
			return out, true
		}
		r.i++ // ','
	}
}

// openDepth is the deepest count of open brackets outside strings. For valid
// JSON it is exact; for invalid JSON any answer will do, validation rejects it.
func openDepth(raw []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// extraReader walks JSON text that fastjson.Validate accepted, so it checks
// nothing but nesting depth.
type extraReader struct {
	s []byte
	i int
}

func (r *extraReader) space() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t' || r.s[r.i] == '\n' || r.s[r.i] == '\r') {
		r.i++
	}
}

// value reads one value that sits inside depth containers. ok is false when
// it, or anything in it, is nested too deep for json-c.
func (r *extraReader) value(depth int) (v extra.Value, ok bool) {
	if depth >= extra.MaxDepth {
		return extra.Value{}, false
	}
	switch c := r.s[r.i]; c {
	case '"':
		return extra.Value{Kind: extra.KindString, Str: extra.CString(r.str())}, true
	case '{', '[':
		return extra.Value{Kind: extra.KindUnusable}, r.container(depth)
	case 't':
		r.i += len("true")
		return extra.Value{Kind: extra.KindBool, Bool: true}, true
	case 'f':
		r.i += len("false")
		return extra.Value{Kind: extra.KindBool}, true
	case 'n':
		r.i += len("null")
		return extra.Value{Kind: extra.KindUnusable}, true
	}
	start := r.i
	for r.i < len(r.s) && strings.IndexByte("+-0123456789.eE", r.s[r.i]) >= 0 {
		r.i++
	}
	return extra.Value{Kind: extra.KindNumber, Num: jsonNumber(string(r.s[start:r.i]))}, true
}

// container skips an array or object at depth; its members sit at depth+1.
func (r *extraReader) container(depth int) bool {
	isObject := r.s[r.i] == '{'
	r.i++
	r.space()
	if r.s[r.i] == ']' || r.s[r.i] == '}' {
		r.i++
		return true
	}
	for {
		r.space()
		if isObject {
			r.str()
			r.space()
			r.i++ // ':'
			r.space()
		}
		if _, ok := r.value(depth + 1); !ok {
			return false
		}
		r.space()
		c := r.s[r.i]
		r.i++
		if c == ']' || c == '}' {
			return true
		}
	}
}

// str reads a string token and decodes it with extra.DecodeEscapes.
func (r *extraReader) str() string {
	r.i++ // opening quote
	start := r.i
	for r.s[r.i] != '"' {
		if r.s[r.i] == '\\' {
			r.i++
		}
		r.i++
	}
	r.i++ // closing quote
	return string(extra.DecodeEscapes(nil, r.s[start:r.i-1]))
}

func jsonNumber(text string) float64 {
	if !strings.ContainsAny(text, ".eE") {
		i, err := strconv.ParseInt(text, 10, 64)
		if err == nil {
			return float64(i)
		}
		if text[0] == '-' {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return parseRounded(text)
}

// ExtraUsable reports whether slurmctld would keep raw as a node's extra
// data: strict JSON nesting no value inside extra.MaxDepth arrays and objects. A node whose extra
// fails this has no extra data, and Slurm logs "Failed to decode extra".
func ExtraUsable(raw []byte) bool {
	_, ok := ParseExtra(raw)
	return ok
}
