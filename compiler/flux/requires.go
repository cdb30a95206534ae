package flux

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/position"
)

// ParseRequires reads a `--requires` expression (the RFC 35 shorthand that
// flux run/submit/batch/alloc accept) and returns the tree of the RFC 31
// constraint it stands for: exactly ParseRFC31 of RequiresJSON(text). Several
// --requires options are joined with one space before parsing, as flux does.
// Syntax errors are *RequiresError; a well-formed expression that is not a
// valid constraint (such as `foo:bar`) gives ParseRFC31's *Error.
func ParseRequires(text string) (ast.Node, error) {
	t, err := parseRequires(text)
	if err != nil {
		return nil, err
	}
	var leaves map[int]textRange
	js := t.appendJSON(nil, &leaves)
	n, err := parseRFC31(js)
	if err != nil {
		if e, ok := err.(*Error); ok {
			// Offsets into the generated JSON mean nothing to the user:
			// point at the text the faulty JSON value was made from.
			return nil, &Error{Pos: position.Pos{Offset: textOffset(e.Offset, leaves)}, Msg: e.Msg}
		}
		return nil, err
	}
	reposition(n, leaves)
	return n, nil
}

// RequiresJSON returns the compact RFC 31 JSON that flux-core's parser
// (flux.constraint.parser with the job commands' configuration) makes of a
// `--requires` expression, with its structure kept: `a b` gives
// {"properties":["a","b"]} and `-a` gives {"not":[{"properties":["a"]}]}.
func RequiresJSON(text string) (string, error) {
	t, err := parseRequires(text)
	if err != nil {
		return "", err
	}
	return string(t.appendJSON(nil, nil)), nil
}

// textRange is text[start:end] of a --requires expression.
type textRange struct{ start, end int }

// reposition gives each leaf of a tree built from generated JSON the range
// of the --requires text it came from, found in leaves by its offset in
// the JSON, and marks every other node as synthesized.
func reposition(n ast.Node, leaves map[int]textRange) {
	switch n := n.(type) {
	case *ast.And:
		n.Start = -1
		for _, x := range n.X {
			reposition(x, leaves)
		}
	case *ast.Or:
		n.Start = -1
		for _, x := range n.X {
			reposition(x, leaves)
		}
	case *ast.Not:
		n.Start = -1
		reposition(n.X, leaves)
	case *ast.Const:
		n.Start = -1
	case *ast.Property:
		n.Start, n.End = leafRange(n.Start, leaves)
	case *ast.Hostlist:
		n.Start, n.End = leafRange(n.Start, leaves)
	case *ast.Ranks:
		n.Start, n.End = leafRange(n.Start, leaves)
	case *ast.Compare:
		n.Start, n.End = -1, -1
	}
}

// textOffset is the start of the --requires text that the JSON at offset
// at was made from: the value recorded there, else the nearest recorded one
// before it, else 0.
func textOffset(at int, leaves map[int]textRange) int {
	best, start := -1, 0
	for off, r := range leaves {
		if off <= at && off > best && r.end > r.start {
			best, start = off, r.start
		}
	}
	return start
}

// leafRange is the text range recorded for the JSON offset at, or -1, -1.
func leafRange(at int, leaves map[int]textRange) (start, end int) {
	if r, ok := leaves[at]; ok && r.end > r.start {
		return r.start, r.end
	}
	return -1, -1
}

// rterm is one constraint as flux-core's Python parser builds it: a
// one-key dict whose list holds strings and constraints.
type rterm struct {
	op    string
	items []ritem
	src   textRange // the token of a term made from one; end <= start else
}

// ritem is a string or, when t is set, a nested constraint. src is where
// a string came from in the --requires text.
type ritem struct {
	s   string
	t   *rterm
	src textRange
}

// appendJSON appends t as compact RFC 31 JSON. With leaves not nil it also
// records, by offset in b, the text range of each constraint object and
// string made from one token: a leaf's own (a `hostlist` or `ranks`
// object, a `properties` string), and the others so that an error in the
// JSON can point into the text.
func (t *rterm) appendJSON(b []byte, leaves *map[int]textRange) []byte {
	if leaves != nil && t.src.end > t.src.start {
		mark(leaves, len(b), t.src)
	}
	b = append(b, '{')
	b = appendString(b, t.op)
	b = append(b, ":["...)
	for i, it := range t.items {
		if i > 0 {
			b = append(b, ',')
		}
		if it.t != nil {
			b = it.t.appendJSON(b, leaves)
		} else {
			if leaves != nil && it.src.end > it.src.start {
				mark(leaves, len(b), it.src)
			}
			b = appendString(b, it.s)
		}
	}
	return append(b, "]}"...)
}

// mark records that the JSON at offset at came from text range r.
func mark(leaves *map[int]textRange, at int, r textRange) {
	if *leaves == nil {
		*leaves = map[int]textRange{}
	}
	(*leaves)[at] = r
}

// Token kinds of the lexer.
const (
	kEnd = iota
	kToken
	kNot
	kAnd
	kOr
	kNegate
	kLParen
	kRParen
)

type rtoken struct {
	kind int
	val  string
	pos  int       // character index, as Python counts
	off  int       // byte offset
	src  textRange // the token's text; for a glued token, from the held `op:` on
}

// Lexer states.
const (
	lexInitial = iota
	lexSingle
	lexDouble
)

// rlexer reproduces flux-core's PLY lexer: rules are tried in order at each
// position (first match wins), whitespace is skipped, a token ending in ':'
// is held and glued to the next one, and quotes switch to a quoting state
// whose whole content is one token.
type rlexer struct {
	text       string
	runes      []rune
	offs       []int // byte offset of each rune, then len(text)
	pos        int
	state      int
	quoteStart int
	pending    *rtoken
	parens     int
	lastL      int
	lastR      int
}

func newLexer(text string) *rlexer {
	lx := &rlexer{text: text}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			// Python reads such a byte as one surrogate-escaped character.
			r = 0xDC00 + rune(text[i])
		}
		lx.runes = append(lx.runes, r)
		lx.offs = append(lx.offs, i)
		i += n
	}
	lx.offs = append(lx.offs, len(text))
	return lx
}

func (lx *rlexer) errorAt(pos int, msg string) *RequiresError {
	return &RequiresError{Text: lx.text, Pos: position.Pos{Offset: lx.offs[pos]}, Msg: msg}
}

// pySpace reports whether Python's str.isspace (and so the regex \s) holds.
func pySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyWord reports whether Python's regex \w holds for r.
func pyWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// keyword reports whether the word kw starts at the lexer's position and
// ends at a word boundary.
func (lx *rlexer) keyword(kw string) bool {
	end := lx.pos + len(kw)
	if end > len(lx.runes) {
		return false
	}
	for i := 0; i < len(kw); i++ {
		if lx.runes[lx.pos+i] != rune(kw[i]) {
			return false
		}
	}
	return end == len(lx.runes) || !pyWord(lx.runes[end])
}

func (lx *rlexer) emit(kind, start, end int) rtoken {
	lx.pos = end
	return rtoken{kind: kind, val: lx.text[lx.offs[start]:lx.offs[end]], pos: start, off: lx.offs[start], src: textRange{lx.offs[start], lx.offs[end]}}
}

// word handles a TOKEN match: glue it to a held token, or hold it if it
// ends with ':'. It reports whether a token is ready.
func (lx *rlexer) word(t rtoken) (rtoken, bool) {
	if lx.pending != nil {
		t.val = lx.pending.val + t.val
		t.src.start = lx.pending.src.start
		lx.pending = nil
		return t, true
	}
	if strings.HasSuffix(t.val, ":") {
		lx.pending = &t
		return t, false
	}
	return t, true
}

func (lx *rlexer) next() (rtoken, error) {
	for {
		if lx.pos >= len(lx.runes) {
			switch lx.state {
			case lexSingle:
				return rtoken{}, lx.errorAt(len(lx.runes), `Unclosed quote "'" at position `+strconv.Itoa(lx.quoteStart))
			case lexDouble:
				return rtoken{}, lx.errorAt(len(lx.runes), `Unclosed quote '"' at position `+strconv.Itoa(lx.quoteStart))
			}
			if lx.pending != nil {
				return rtoken{}, lx.errorAt(lx.pending.pos, "Missing argument to token '"+position.Clip(lx.pending.val)+"'")
			}
			return rtoken{kind: kEnd, pos: lx.pos, off: len(lx.text)}, nil
		}
		start := lx.pos
		c := lx.runes[start]
		if lx.state != lexInitial {
			quote := '\''
			if lx.state == lexDouble {
				quote = '"'
			}
			if c == quote {
				lx.pos++
				lx.state = lexInitial
				continue
			}
			end := start
			for end < len(lx.runes) && lx.runes[end] != quote {
				end++
			}
			if t, ok := lx.word(lx.emit(kToken, start, end)); ok {
				return t, nil
			}
			continue
		}
		switch {
		case strings.ContainsRune(" \t\r\n\f\v", c):
			lx.pos++
			continue
		case c == '-':
			return lx.emit(kNegate, start, start+1), nil
		case lx.keyword("not"):
			return lx.emit(kNot, start, start+3), nil
		case c == '&':
			end := start + 1
			if end < len(lx.runes) && lx.runes[end] == '&' {
				end++
			}
			return lx.emit(kAnd, start, end), nil
		case lx.keyword("and"):
			return lx.emit(kAnd, start, start+3), nil
		case c == '|':
			end := start + 1
			if end < len(lx.runes) && lx.runes[end] == '|' {
				end++
			}
			return lx.emit(kOr, start, end), nil
		case lx.keyword("or"):
			return lx.emit(kOr, start, start+2), nil
		case c == '(':
			lx.parens++
			lx.lastL = start
			return lx.emit(kLParen, start, start+1), nil
		case c == ')':
			lx.parens--
			lx.lastR = start
			return lx.emit(kRParen, start, start+1), nil
		}
		end := start
		for end < len(lx.runes) {
			r := lx.runes[end]
			if strings.ContainsRune("()|&\"'", r) || pySpace(r) {
				break
			}
			end++
		}
		if end > start {
			if t, ok := lx.word(lx.emit(kToken, start, end)); ok {
				return t, nil
			}
			continue
		}
		switch c {
		case '\'':
			lx.state = lexSingle
		case '"':
			lx.state = lexDouble
		default:
			return rtoken{}, lx.errorAt(start, "Illegal character '"+string(pyChar(c))+"' at position "+strconv.Itoa(start))
		}
		lx.pos++
		lx.quoteStart = lx.pos
	}
}

// pyChar undoes the surrogate escape of an undecodable byte.
func pyChar(r rune) []byte {
	if r >= 0xDC80 && r <= 0xDCFF {
		return []byte{byte(r - 0xDC00)}
	}
	return []byte(string(r))
}

// Parser states of the LALR(1) automaton PLY builds from flux-core's
// grammar; see parseRequires.
const (
	sStart     = 0  // S' → . E
	sTop       = 1  // S' → E .
	sNot       = 2  // E → NOT . E
	sNegate    = 3  // E → NEGATE . T
	sParen     = 4  // E → ( . E )
	sTerm      = 5  // E → T .
	sToken     = 6  // T → TOKEN .
	sAnd       = 7  // E → E AND . E
	sOr        = 8  // E → E OR . E
	sJuxt      = 9  // E → E E .
	sNotE      = 10 // E → NOT E .
	sNegT      = 11 // E → NEGATE T .
	sParenE    = 12 // E → ( E . )
	sAndE      = 13 // E → E AND E .
	sOrE       = 14 // E → E OR E .
	sParenDone = 15 // E → ( E ) .
)

type rframe struct {
	state int
	term  *rterm
	tok   rtoken
}

// gotoE is the state after an expression is reduced in state s.
func gotoE(s int) int {
	switch s {
	case sStart:
		return sTop
	case sNot:
		return sNotE
	case sParen:
		return sParenE
	case sAnd:
		return sAndE
	case sOr:
		return sOrE
	}
	return sJuxt
}

// parseRequires runs the shift-reduce parse of flux-core's grammar
//
//	E : E E %prec AND | E AND E | E OR E | NOT E | NEGATE T | ( E ) | T
//	T : TOKEN
//
// with precedence OR < AND < NOT < NEGATE (left, left, right, right), with
// the conflicts resolved as PLY resolves them: a token without precedence
// (TOKEN, '(') reduces any complete rule, which is why `a or b c` means
// `(a or b) c` while `a or b & c` means `a or (b & c)`.
// maxRequiresStack bounds the parser's stack: each open parenthesis, not and
// - holds a frame until its operand is complete. Three frames a level of the
// RFC 31 JSON depth limit refuse nothing that limit would accept once
// generated (a not takes two levels of JSON), except more than 900
// parentheses around one term.
const maxRequiresStack = 3 * maxDepth

func parseRequires(text string) (*rterm, error) {
	if len(text) > MaxLen {
		return nil, &Error{Pos: position.Pos{Offset: MaxLen}, Msg: "--requires expression longer than " + strconv.Itoa(MaxLen) + " bytes (sift's limit)"}
	}
	lx := newLexer(text)
	stack := []rframe{{state: sStart}}
	var la rtoken
	haveLA := false
	fail := func() error {
		switch {
		case la.kind == kEnd && lx.parens > 0:
			return lx.errorAt(lx.lastL, "Unclosed parenthesis in position "+strconv.Itoa(lx.lastL))
		case la.kind == kEnd:
			tail, _ := position.Window(text, len(text))
			return lx.errorAt(len(lx.runes), "Unexpected end of input in '"+tail+"'")
		case lx.parens < 0:
			// Upstream lacks the f-string prefix: the braces are printed.
			return lx.errorAt(lx.lastR, "Mismatched parentheses starting at position {self.lexer.last_rparens}.")
		}
		return lx.errorAt(la.pos, "Invalid token '"+position.Clip(la.val)+"' at position "+strconv.Itoa(la.pos))
	}
	shiftStart := func() bool {
		var next int
		switch la.kind {
		case kToken:
			next = sToken
		case kNot:
			next = sNot
		case kNegate:
			next = sNegate
		case kLParen:
			next = sParen
		default:
			return false
		}
		stack = append(stack, rframe{state: next, tok: la})
		haveLA = false
		return true
	}
	shift := func(state int) {
		stack = append(stack, rframe{state: state, tok: la})
		haveLA = false
	}
	reduce := func(n int, t *rterm) {
		stack = stack[:len(stack)-n]
		top := stack[len(stack)-1].state
		stack = append(stack, rframe{state: gotoE(top), term: t})
	}
	for {
		if !haveLA {
			t, err := lx.next()
			if err != nil {
				return nil, err
			}
			la, haveLA = t, true
		}
		if len(stack) > maxRequiresStack {
			return nil, lx.errorAt(la.pos, "more than "+strconv.Itoa(maxRequiresStack)+" open parentheses and operators (sift's limit)")
		}
		top := &stack[len(stack)-1]
		switch top.state {
		case sStart, sNot, sParen, sAnd, sOr:
			if !shiftStart() {
				return nil, fail()
			}
		case sTop, sParenE:
			switch {
			case shiftStart():
			case la.kind == kAnd:
				shift(sAnd)
			case la.kind == kOr:
				shift(sOr)
			case la.kind == kEnd && top.state == sTop:
				return top.term, nil
			case la.kind == kRParen && top.state == sParenE:
				shift(sParenDone)
			default:
				return nil, fail()
			}
		case sNegate:
			if la.kind != kToken {
				return nil, fail()
			}
			shift(sToken)
		case sToken:
			t, err := tokenTerm(lx, top.tok)
			if err != nil {
				return nil, err
			}
			stack = stack[:len(stack)-1]
			next := sTerm
			if stack[len(stack)-1].state == sNegate {
				next = sNegT
			}
			stack = append(stack, rframe{state: next, term: t})
		case sTerm:
			reduce(1, top.term)
		case sNegT:
			reduce(2, &rterm{op: "not", items: []ritem{{t: top.term}}})
		case sParenDone:
			reduce(3, stack[len(stack)-2].term)
		case sJuxt, sNotE, sAndE, sOrE:
			switch la.kind {
			case kNot:
				shift(sNot)
				continue
			case kNegate:
				shift(sNegate)
				continue
			case kAnd:
				if top.state == sOrE {
					shift(sAnd)
					continue
				}
			}
			switch top.state {
			case sJuxt:
				reduce(2, combine(stack[len(stack)-2].term, top.term))
			case sNotE:
				reduce(2, &rterm{op: "not", items: []ritem{{t: top.term}}})
			case sAndE:
				reduce(3, combine(stack[len(stack)-3].term, top.term))
			case sOrE:
				left := stack[len(stack)-3].term
				if left.op == "or" {
					left.items = append(left.items, ritem{t: top.term})
					reduce(3, left)
				} else {
					reduce(3, &rterm{op: "or", items: []ritem{{t: left}, {t: top.term}}})
				}
			}
		}
	}
}

// tokenTerm turns one term into a constraint: `op:value` split at the first
// ':', aliases applied, `properties` values split on ','.
func tokenTerm(lx *rlexer, tok rtoken) (*rterm, error) {
	op, value, found := strings.Cut(tok.val, ":")
	switch {
	case !found:
		op, value = "properties", tok.val
	case op == "host", op == "hosts":
		op = "hostlist"
	case op == "rank":
		op = "ranks"
	}
	for _, r := range op {
		if !pyWord(r) && !strings.ContainsRune(".+@-", r) {
			return nil, &RequiresError{Text: lx.text, Pos: position.Pos{Offset: tok.off},
				Msg: "invalid character '" + string(r) + "' in operator '" + position.Clip(op) + ":'"}
		}
	}
	t := &rterm{op: op, src: tok.src}
	if op == "properties" {
		// Each name's own text when the token is one piece of the input,
		// else the whole token.
		whole := lx.text[tok.src.start:tok.src.end] == tok.val
		at := tok.src.start + len(tok.val) - len(value)
		for _, v := range strings.Split(value, ",") {
			it := ritem{s: v, src: tok.src}
			if whole {
				it.src = textRange{at, at + len(v)}
			}
			t.items = append(t.items, it)
			at += len(v) + 1
		}
	} else {
		it := ritem{s: value, src: tok.src}
		if lx.text[tok.src.start:tok.src.end] == tok.val {
			at := tok.src.start + len(tok.val) - len(value)
			it.src = textRange{at, at + len(value)}
		}
		t.items = []ritem{it}
	}
	return t, nil
}

// combine joins two ANDed constraints as flux-core's combine_like_terms:
// an `and` on the left takes the right as one more item; otherwise two
// `properties` merge into the first, and anything else becomes an `and`.
func combine(p1, p2 *rterm) *rterm {
	entries := []*rterm{p1, p2}
	if p1.op == "and" {
		p1.items = append(p1.items, ritem{t: p2})
		entries = entries[:1]
	}
	var terms []*rterm
	var props *rterm
	for _, e := range entries {
		switch {
		case e.op != "properties":
			terms = append(terms, e)
		case props == nil:
			props = e
			terms = append(terms, e)
		default:
			props.items = append(props.items, e.items...)
		}
	}
	if len(terms) == 1 {
		return terms[0]
	}
	t := &rterm{op: "and"}
	for _, x := range terms {
		t.items = append(t.items, ritem{t: x})
	}
	return t
}
