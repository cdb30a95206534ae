package inventory

import (
	"fmt"

	"github.com/nodesift/sift/position"
)

// maxDepth bounds JSON nesting so a hostile file cannot exhaust the stack.
const maxDepth = 512

// scanner walks strict RFC 8259 JSON text and reports the byte spans of
// values, which fastjson does not expose: sift needs them for line numbers
// and to keep an extra object's exact source text.
type scanner struct {
	b []byte
}

// errf returns a JSON syntax error at byte off.
func (s *scanner) errf(off int, format string, args ...any) *position.Error {
	return position.NewError(off, fmt.Sprintf(format, args...))
}

func (s *scanner) ws(i int) int {
	for i < len(s.b) {
		switch s.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value returns the end of the JSON value starting at i (no leading space).
func (s *scanner) value(i, depth int) (int, *position.Error) {
	if i >= len(s.b) {
		return i, s.errf(i, "unexpected end of input, expected a JSON value")
	}
	switch c := s.b[i]; {
	case c == '{':
		return s.object(i, depth+1, nil)
	case c == '[':
		return s.array(i, depth+1, nil)
	case c == '"':
		return s.str(i)
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	default:
		return i, s.errf(i, "unexpected %s, expected a JSON value", describe(c))
	}
}

func describe(c byte) string {
	if c >= 0x21 && c < 0x7f {
		return fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (s *scanner) literal(i int, word string) (int, *position.Error) {
	for k := 0; k < len(word); k++ {
		if i+k >= len(s.b) || s.b[i+k] != word[k] {
			return i + k, s.errf(i+k, "invalid literal, expected %q", word)
		}
	}
	return i + len(word), nil
}

// plainStr marks the bytes a string may hold as they are.
var plainStr = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *scanner) str(i int) (int, *position.Error) {
	start := i
	i++
	b := s.b
	for i < len(b) {
		for i < len(b) && plainStr[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(s.b) {
				return start, s.errf(start, "unterminated string, expected a closing '\"'")
			}
			switch s.b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if i+k >= len(s.b) || !isHex(s.b[i+k]) {
						return i + k, s.errf(i+k, "invalid \\u escape, expected 4 hex digits")
					}
				}
				i += 6
			default:
				return i + 1, s.errf(i+1, "invalid escape %s in string", describe(s.b[i+1]))
			}
		case c < 0x20:
			return i, s.errf(i, "control character %s in string, expected it escaped", describe(c))
		default:
			i++
		}
	}
	return start, s.errf(start, "unterminated string, expected a closing '\"'")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) number(i int) (int, *position.Error) {
	if s.b[i] == '-' {
		i++
	}
	switch {
	case i < len(s.b) && s.b[i] == '0':
		i++
	case i < len(s.b) && isDigit(s.b[i]):
		for i < len(s.b) && isDigit(s.b[i]) {
			i++
		}
	default:
		return i, s.errf(i, "invalid number, expected a digit")
	}
	if i < len(s.b) && s.b[i] == '.' {
		i++
		if i >= len(s.b) || !isDigit(s.b[i]) {
			return i, s.errf(i, "invalid number, expected a digit after '.'")
		}
		for i < len(s.b) && isDigit(s.b[i]) {
			i++
		}
	}
	if i < len(s.b) && (s.b[i] == 'e' || s.b[i] == 'E') {
		i++
		if i < len(s.b) && (s.b[i] == '+' || s.b[i] == '-') {
			i++
		}
		if i >= len(s.b) || !isDigit(s.b[i]) {
			return i, s.errf(i, "invalid number, expected a digit in the exponent")
		}
		for i < len(s.b) && isDigit(s.b[i]) {
			i++
		}
	}
	return i, nil
}

// member is one member of a JSON object: the spans of its key (quotes
// included) and of its value.
type member struct {
	keyStart, keyEnd, valStart, valEnd int
}

// object scans the object at i; when members is non-nil it receives the
// object's members in source order.
func (s *scanner) object(i, depth int, members *[]member) (int, *position.Error) {
	if depth > maxDepth {
		return i, s.errf(i, "JSON nested deeper than %d levels", maxDepth)
	}
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(s.b) {
			return i, s.errf(i, "unexpected end of input, expected a member name")
		}
		if s.b[i] != '"' {
			return i, s.errf(i, "unexpected %s, expected a member name in double quotes", describe(s.b[i]))
		}
		var m member
		m.keyStart = i
		end, err := s.str(i)
		if err != nil {
			return end, err
		}
		m.keyEnd = end
		i = s.ws(end)
		if i >= len(s.b) || s.b[i] != ':' {
			return i, s.unexpected(i, "':' after the member name")
		}
		i = s.ws(i + 1)
		m.valStart = i
		if i, err = s.value(i, depth); err != nil {
			return i, err
		}
		m.valEnd = i
		if members != nil {
			*members = append(*members, m)
		}
		i = s.ws(i)
		if i >= len(s.b) {
			return i, s.errf(i, "unexpected end of input, expected ',' or '}'")
		}
		switch s.b[i] {
		case ',':
			i = s.ws(i + 1)
		case '}':
			return i + 1, nil
		default:
			return i, s.unexpected(i, "',' or '}'")
		}
	}
}

// array scans the array at i; when elems is non-nil it receives the
// [start, end) span of each element.
func (s *scanner) array(i, depth int, elems *[][2]int) (int, *position.Error) {
	if depth > maxDepth {
		return i, s.errf(i, "JSON nested deeper than %d levels", maxDepth)
	}
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == ']' {
		return i + 1, nil
	}
	for {
		start := i
		end, err := s.value(i, depth)
		if err != nil {
			return end, err
		}
		if elems != nil {
			*elems = append(*elems, [2]int{start, end})
		}
		i = s.ws(end)
		if i >= len(s.b) {
			return i, s.errf(i, "unexpected end of input, expected ',' or ']'")
		}
		switch s.b[i] {
		case ',':
			i = s.ws(i + 1)
		case ']':
			return i + 1, nil
		default:
			return i, s.unexpected(i, "',' or ']'")
		}
	}
}

func (s *scanner) unexpected(i int, want string) *position.Error {
	if i >= len(s.b) {
		return s.errf(i, "unexpected end of input, expected %s", want)
	}
	return s.errf(i, "unexpected %s, expected %s", describe(s.b[i]), want)
}
