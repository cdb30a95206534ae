package flux

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/valyala/fastjson"
)

// FormatRFC31 writes n as compact RFC 31 JSON that ParseRFC31 reads back to
// the same tree. A negated property is written `^name` and an AND of
// property leaves as one `properties` array. A Slurm comparison has no RFC 31
// form: it is written as the operator `extra`, which ParseRFC31 rejects.
func FormatRFC31(n ast.Node) string {
	return string(appendRFC31(nil, n))
}

func appendRFC31(b []byte, n ast.Node) []byte {
	switch n := n.(type) {
	case *ast.Const:
		if n.Value {
			return append(b, "{}"...)
		}
		return append(b, `{"not":[]}`...)
	case *ast.Property:
		b = append(b, `{"properties":[`...)
		b = appendPropertyName(b, n)
		return append(b, "]}"...)
	case *ast.Not:
		if _, ok := n.X.(*ast.Property); ok {
			b = append(b, `{"properties":[`...)
			b = appendPropertyName(b, n)
			return append(b, "]}"...)
		}
		b = append(b, `{"not":[`...)
		b = appendRFC31(b, n.X)
		return append(b, "]}"...)
	case *ast.And:
		if len(n.X) >= 2 && allPropertyLeaves(n.X) {
			b = append(b, `{"properties":[`...)
			for i, x := range n.X {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendPropertyName(b, x)
			}
			return append(b, "]}"...)
		}
		return appendList(b, "and", n.X)
	case *ast.Or:
		if len(n.X) == 0 {
			return append(b, `{"not":[]}`...)
		}
		return appendList(b, "or", n.X)
	case *ast.Hostlist:
		b = append(b, `{"hostlist":[`...)
		for i, e := range n.Exprs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, "]}"...)
	case *ast.Ranks:
		b = append(b, `{"ranks":[`...)
		if len(n.Ranges) > 0 {
			b = append(b, '"')
			for i, r := range unionRanges(append([]ast.RankRange(nil), n.Ranges...)) {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, uint64(r.Lo), 10)
				if r.Hi != r.Lo {
					b = append(b, '-')
					b = strconv.AppendUint(b, uint64(r.Hi), 10)
				}
			}
			b = append(b, '"')
		}
		return append(b, "]}"...)
	case *ast.Compare:
		b = append(b, `{"extra":[`...)
		b = appendString(b, n.Key+n.Op.String()+n.Value)
		return append(b, "]}"...)
	}
	return append(b, `{"not":[]}`...)
}

func appendList(b []byte, op string, xs []ast.Node) []byte {
	b = append(b, `{"`...)
	b = append(b, op...)
	b = append(b, `":[`...)
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRFC31(b, x)
	}
	return append(b, "]}"...)
}

// allPropertyLeaves reports whether every x is a property or a negated
// property that a `properties` array can spell.
func allPropertyLeaves(xs []ast.Node) bool {
	for _, x := range xs {
		switch x := x.(type) {
		case *ast.Property:
			if strings.HasPrefix(x.Name, "^") {
				return false
			}
		case *ast.Not:
			if _, ok := x.X.(*ast.Property); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// appendPropertyName writes a property leaf (or its negation) as a
// `properties` element.
func appendPropertyName(b []byte, n ast.Node) []byte {
	switch n := n.(type) {
	case *ast.Property:
		return appendString(b, n.Name)
	case *ast.Not:
		return appendString(b, "^"+n.X.(*ast.Property).Name)
	}
	return b
}

// appendString writes s as a JSON string: UTF-8 kept as is, quotes,
// backslashes and control characters escaped (\u00xx in lower case, as
// Python's json module writes them).
func appendString(b []byte, s string) []byte {
	return appendEscaped(b, s, "0123456789abcdef")
}

// appendJanssonString writes s as jansson's dump_string does: as
// appendString, with \u escapes in upper case.
func appendJanssonString(b []byte, s string) []byte {
	return appendEscaped(b, s, "0123456789ABCDEF")
}

func appendEscaped(b []byte, s, hex string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			_, n := utf8.DecodeRuneInString(s[i:])
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			if c < 0x20 {
				b = append(b, `\u00`...)
				b = append(b, hex[c>>4], hex[c&15])
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
}

// janssonJSON writes v as jansson's json_dumps(v, 0) does (one line, ", "
// between items and ": " after keys), for the error messages that quote a
// whole `hostlist` or `ranks` array.
func janssonJSON(b []byte, v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		b = append(b, '{')
		i := 0
		o.Visit(func(k []byte, kv *fastjson.Value) {
			if i > 0 {
				b = append(b, ", "...)
			}
			i++
			b = appendJanssonString(b, string(k))
			b = append(b, ": "...)
			b = janssonJSON(b, kv)
		})
		return append(b, '}')
	case fastjson.TypeArray:
		items, _ := v.Array()
		b = append(b, '[')
		for i, it := range items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = janssonJSON(b, it)
		}
		return append(b, ']')
	case fastjson.TypeString:
		s, _ := v.StringBytes()
		return appendJanssonString(b, string(s))
	case fastjson.TypeNumber:
		return appendJanssonNumber(b, string(v.MarshalTo(nil)))
	case fastjson.TypeTrue:
		return append(b, "true"...)
	case fastjson.TypeFalse:
		return append(b, "false"...)
	}
	return append(b, "null"...)
}

// appendJanssonNumber writes a JSON number as jansson prints it: integers
// in decimal, reals with 17 significant digits, always with a '.' or an
// exponent, and the exponent without '+' or leading zeros.
func appendJanssonNumber(b []byte, raw string) []byte {
	if !strings.ContainsAny(raw, ".eE") {
		i, err := strconv.ParseInt(raw, 10, 64)
		if err == nil {
			return strconv.AppendInt(b, i, 10)
		}
	}
	f, _ := strconv.ParseFloat(raw, 64)
	s := strconv.FormatFloat(f, 'g', 17, 64)
	if e := strings.IndexByte(s, 'e'); e >= 0 {
		mant, exp := s[:e], s[e+1:]
		neg := strings.HasPrefix(exp, "-")
		exp = strings.TrimLeft(exp, "+-")
		exp = strings.TrimLeft(exp, "0")
		if exp == "" {
			exp = "0"
		}
		if neg {
			exp = "-" + exp
		}
		s = mant + "e" + exp
	} else if !strings.Contains(s, ".") {
		s += ".0"
	}
	return append(b, s...)
}
