package slurm

import (
	"fmt"
	"strings"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/position"
)

// MaxLen is the longest extra constraint Slurm accepts, in bytes
// (job_desc->extra; longer gives ESLURM_PATHNAME_TOO_LONG).
const MaxLen = 1024

// Error is an invalid extra constraint: Offset is the byte where the problem
// was detected and Msg says what was expected there.
type Error struct {
	position.Pos
	Msg string
}

// Error returns "invalid constraint at byte N: " and the message.
func (e *Error) Error() string {
	return fmt.Sprintf("invalid constraint at byte %d: %s", e.Offset, e.Msg)
}

const (
	msgOperand = `expected a key or "("`
	msgBoolOp  = `expected a boolean operator (&, "," or |)`
	msgCmpOp   = `expected a comparison operator (=, !=, <, <=, >, >=)`
	msgOpsList = `=, !=, <, <=, >, >=`
)

// Byte classes of Slurm's extra-constraint syntax.
const (
	classBool  = 1 << iota // , & |
	classCmp               // < > = !
	classGroup             // ( )
)

var class = [256]uint8{
	',': classBool, '&': classBool, '|': classBool,
	'<': classCmp, '>': classCmp, '=': classCmp, '!': classCmp,
	'(': classGroup, ')': classGroup,
}

// Parse parses a Slurm --extra constraint with the rules of Slurm's own
// parser. Whitespace is part of keys and values. A level with one item is
// that item; a level joined by & or , is an *ast.And, by | an *ast.Or.
func Parse(text string) (ast.Node, error) {
	if len(text) > MaxLen {
		return nil, &Error{Pos: position.Pos{Offset: MaxLen}, Msg: fmt.Sprintf("constraint longer than %d bytes", MaxLen)}
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return nil, &Error{Pos: position.Pos{Offset: i}, Msg: "unexpected NUL byte: a constraint is a C string"}
	}
	// Leaves come from one slab: a constraint has at most one leaf more
	// than it has boolean operators, and n leaves take 4n-1 bytes or more.
	leaves := 1
	for i := 0; i < len(text); i++ {
		if class[text[i]] == classBool {
			leaves++
		}
	}
	leaves = min(leaves, (len(text)+1)/4)
	p := parser{s: text, leaves: make([]ast.Compare, 0, leaves)}
	n, err := p.level(-1)
	if err != nil {
		return nil, err
	}
	return n, nil
}

type parser struct {
	s      string
	pos    int
	leaves []ast.Compare // slab for Compare nodes, sized so it never grows
	stack  []ast.Node    // items of the open levels, innermost last
}

// level parses items joined by one boolean operator up to the ")" that
// closes the group opened at byte open, or to the end of the text when open
// is -1. It leaves pos after the ")".
func (p *parser) level(open int) (ast.Node, error) {
	start := open
	if start < 0 {
		start = 0
	}
	base := len(p.stack) // this level's items are p.stack[base:]
	var (
		op       byte // 0 until the first boolean operator; ',' is stored as '&'
		afterOp  = true
		lastOpAt = -1
	)
	for p.pos < len(p.s) {
		i := p.pos
		switch c := p.s[i]; c {
		case '(':
			if !afterOp {
				return nil, p.expectedBoolOp(i, open)
			}
			p.pos++
			x, err := p.level(i)
			if err != nil {
				return nil, err
			}
			p.stack = append(p.stack, x)
			afterOp = false
		case ')':
			if open < 0 {
				return nil, &Error{Pos: position.Pos{Offset: i}, Msg: `unexpected ")" with no "(" open: ` + msgBoolOp + " or end of constraint"}
			}
			if afterOp {
				if len(p.stack) == base {
					return nil, &Error{Pos: position.Pos{Offset: i}, Msg: "empty group: " + msgOperand}
				}
				return nil, &Error{Pos: position.Pos{Offset: i}, Msg: msgOperand + " after the boolean operator at byte " + itoa(lastOpAt)}
			}
			p.pos++
			return p.group(start, op, base), nil
		case ',', '&', '|':
			if afterOp {
				return nil, &Error{Pos: position.Pos{Offset: i}, Msg: msgOperand + " (a boolean operator must follow a comparison or a group)"}
			}
			if i+1 < len(p.s) && class[p.s[i+1]] == classBool {
				return nil, &Error{Pos: position.Pos{Offset: i + 1}, Msg: msgOperand + ": boolean operators are single characters"}
			}
			this := c
			if this == ',' {
				this = '&'
			}
			if op != 0 && op != this {
				return nil, &Error{Pos: position.Pos{Offset: i}, Msg: fmt.Sprintf("expected %q (boolean operators may not be mixed at one level; add parentheses)", string(op))}
			}
			op = this
			afterOp = true
			lastOpAt = i
			p.pos++
		default:
			if !afterOp {
				return nil, p.expectedBoolOp(i, open)
			}
			x, err := p.leaf()
			if err != nil {
				return nil, err
			}
			p.stack = append(p.stack, x)
			afterOp = false
		}
	}
	end := len(p.s)
	if afterOp {
		if len(p.stack) == base && open < 0 {
			return nil, &Error{Pos: position.Pos{Offset: end}, Msg: "unexpected end of constraint: expected a key or \"(\" (an empty constraint is invalid)"}
		}
		return nil, &Error{Pos: position.Pos{Offset: end}, Msg: "unexpected end of constraint: " + msgOperand}
	}
	if open >= 0 {
		return nil, &Error{Pos: position.Pos{Offset: end}, Msg: fmt.Sprintf(`unexpected end of constraint: expected ")" to close the "(" at byte %d`, open)}
	}
	return p.group(start, op, base), nil
}

func (p *parser) expectedBoolOp(i, open int) *Error {
	if open < 0 {
		return &Error{Pos: position.Pos{Offset: i}, Msg: msgBoolOp + " or end of constraint"}
	}
	return &Error{Pos: position.Pos{Offset: i}, Msg: msgBoolOp + ` or ")"`}
}

// group pops the items of the level that starts at p.stack[base] and
// returns the simplest node for it: its only item, or an And/Or.
func (p *parser) group(start int, op byte, base int) ast.Node {
	if len(p.stack)-base == 1 {
		x := p.stack[base]
		p.stack = p.stack[:base]
		return x
	}
	items := make([]ast.Node, len(p.stack)-base)
	copy(items, p.stack[base:])
	p.stack = p.stack[:base]
	switch {
	case op == '|':
		return &ast.Or{Start: start, X: items}
	default:
		return &ast.And{Start: start, X: items}
	}
}

// leaf parses KEY CMP VALUE up to the next boolean operator, parenthesis or
// end of text.
func (p *parser) leaf() (ast.Node, error) {
	start := p.pos
	end := start
	k := -1 // the first comparison operator byte, relative to start
	for end < len(p.s) && class[p.s[end]]&(classBool|classGroup) == 0 {
		if k < 0 && class[p.s[end]] == classCmp {
			k = end - start
		}
		end++
	}
	text := p.s[start:end]
	if k < 0 {
		return nil, &Error{Pos: position.Pos{Offset: end}, Msg: msgCmpOp + " after the key " + quote(text)}
	}
	if k == 0 {
		return nil, &Error{Pos: position.Pos{Offset: start}, Msg: "expected a key before the comparison operator (a key may not be empty)"}
	}
	m := k
	for m < len(text) && class[text[m]] == classCmp {
		m++
	}
	op, ok := extra.ParseOp(text[k:m])
	if !ok {
		// Point just after the longest operator the run starts with.
		n := longestOpPrefix(text[k:m])
		if n == 0 {
			return nil, &Error{Pos: position.Pos{Offset: start + k + 1}, Msg: `expected "=" after "!" (comparison operators are ` + msgOpsList + ")"}
		}
		return nil, &Error{Pos: position.Pos{Offset: start + k + n}, Msg: fmt.Sprintf("expected a value after %q: %q is not a comparison operator (%s)", text[k:k+n], text[k:m], msgOpsList)}
	}
	if m == len(text) {
		return nil, &Error{Pos: position.Pos{Offset: end}, Msg: fmt.Sprintf("expected a value after %q (a value may not be empty)", op.String())}
	}
	if j := indexCmp(text[m:]); j >= 0 {
		return nil, &Error{Pos: position.Pos{Offset: start + m + j}, Msg: fmt.Sprintf("expected %s, %q or end of constraint after the value (a value may not contain <, >, = or !)", msgBoolOp[len("expected "):], ")")}
	}
	p.pos = end
	p.leaves = append(p.leaves, ast.Compare{Start: start, End: end, Key: text[:k], Op: op, Value: text[m:]})
	return &p.leaves[len(p.leaves)-1], nil
}

func indexCmp(s string) int {
	for i := 0; i < len(s); i++ {
		if class[s[i]] == classCmp {
			return i
		}
	}
	return -1
}

func longestOpPrefix(run string) int {
	for n := min(2, len(run)); n > 0; n-- {
		if _, ok := extra.ParseOp(run[:n]); ok {
			return n
		}
	}
	return 0
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func itoa(i int) string { return fmt.Sprint(i) }
