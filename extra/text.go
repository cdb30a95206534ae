package extra

import (
	"strings"
	"unicode/utf8"
)

// DecodeEscapes appends to dst the body of a JSON string (the bytes between
// its quotes, already checked to be valid JSON) decoded as json-c decodes
// it: a high surrogate not followed by a \u low surrogate, and a lone low
// surrogate, each become U+FFFD; \u0000 gives a NUL byte (which CString and
// CBytes then treat as the end); raw bytes are kept as they are, valid UTF-8
// or not.
func DecodeEscapes(dst, body []byte) []byte {
	high := rune(0) // a pending high surrogate
	flush := func() {
		if high != 0 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			high = 0
		}
	}
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && body[i+1] == 'u':
			u, _ := Hex4(body[i+2:])
			i += 6
			switch {
			case high != 0 && u >= 0xDC00 && u <= 0xDFFF:
				dst = utf8.AppendRune(dst, 0x10000+(high-0xD800)<<10+(u-0xDC00))
				high = 0
			case u >= 0xD800 && u <= 0xDBFF:
				flush()
				high = u
			case u >= 0xDC00 && u <= 0xDFFF:
				flush()
				dst = utf8.AppendRune(dst, utf8.RuneError)
			default:
				flush()
				dst = utf8.AppendRune(dst, u)
			}
		case c == '\\':
			flush()
			dst = append(dst, unescape(body[i+1]))
			i += 2
		default:
			flush()
			dst = append(dst, c)
			i++
		}
	}
	flush()
	return dst
}

// Hex4 reads the four hex digits of a \u escape; ok is false when b is
// shorter or holds another byte.
func Hex4(b []byte) (u rune, ok bool) {
	if len(b) < 4 {
		return 0, false
	}
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			u = u<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			u = u<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			u = u<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return u, true
}

// unescape is the byte a one-character escape stands for.
func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\' and '/'
}

// CString cuts s at its first NUL: Slurm keeps json-c strings as C strings.
func CString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// CBytes is CString for bytes.
func CBytes(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}
