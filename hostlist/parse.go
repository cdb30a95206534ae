package hostlist

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nodesift/sift/position"
)

// element is one lo-hi item of a bracket: width is the length of lo's text.
type element struct {
	lo, hi uint64
	width  int
}

// Parse parses s in the given dialect. An empty string (or separators only)
// is the empty list. As in both C libraries, a NUL byte ends the string.
func Parse(dialect Dialect, s string) (*List, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	l := &List{dialect: dialect}
	var err error
	switch dialect {
	case Flux:
		err = l.parseFlux(s)
	case Slurm:
		err = l.parseSlurm(s)
	default:
		return nil, fmt.Errorf("hostlist: unknown dialect %d", int(dialect))
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

func tooLarge(off int) error {
	return &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("more than %d ranges", MaxRanges), Err: ErrTooLarge}
}

// parseElement parses "lo", "lo-" or "lo-hi" as both libraries'
// parse_next_range/_parse_single_range do: strtoul for each end (so leading
// blanks and a sign are accepted and count toward the width), junk after lo
// ignored when hi follows, hi >= lo, at most max hosts.
func parseElement(s string, off int, max uint64) (element, error) {
	bad := func(msg string) (element, error) {
		return element{}, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("%s in range '%s'", msg, position.Clip(s)), Err: ErrInvalid}
	}
	loText, hiText, dash := strings.Cut(s, "-")
	if dash && strings.HasPrefix(hiText, "-") {
		return bad("negative number")
	}
	lo, n := strtoul(loText)
	if n == 0 {
		return bad("expected a number")
	}
	hi, rest := lo, loText[n:]
	if dash && hiText != "" {
		var m int
		hi, m = strtoul(hiText)
		if m == 0 {
			return bad("expected a number after '-'")
		}
		rest = hiText[m:]
	}
	if rest != "" {
		return bad("unexpected characters")
	}
	if lo > hi {
		return bad("decreasing range")
	}
	if hi-lo+1 > max || hi-lo+1 == 0 {
		return element{}, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("more than %d hosts in range '%s'", max, position.Clip(s)), Err: ErrRange}
	}
	return element{lo: lo, hi: hi, width: len(loText)}, nil
}

// parseElements splits a bracket's text on commas and parses each piece.
func parseElements(list string, off int, max uint64, maxElems int, reject string) ([]element, error) {
	var out []element
	for pos := 0; ; {
		if len(out) == maxElems {
			return nil, &Error{Pos: position.Pos{Offset: off + pos}, Msg: fmt.Sprintf("more than %d elements in one bracket", maxElems), Err: ErrRange}
		}
		end := strings.IndexByte(list[pos:], ',')
		piece := list[pos:]
		if end >= 0 {
			piece = list[pos : pos+end]
		}
		if reject != "" && strings.ContainsAny(piece, reject) {
			return nil, &Error{Pos: position.Pos{Offset: off + pos}, Msg: fmt.Sprintf("invalid range '%s'", position.Clip(piece)), Err: ErrInvalid}
		}
		e, err := parseElement(piece, off+pos, max)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if end < 0 {
			return out, nil
		}
		pos += end + 1
	}
}

// fluxNextTok is libhostlist's next_tok: skip separators, then take bytes
// until a separator outside brackets (bracket depth counts [ up and ] down).
func fluxNextTok(s string, pos int) (tok string, start, next int) {
	for pos < len(s) && isFluxSep(s[pos]) {
		pos++
	}
	if pos == len(s) {
		return "", pos, pos
	}
	start = pos
	level := 0
	for pos < len(s) && (level != 0 || !isFluxSep(s[pos])) {
		switch s[pos] {
		case '[':
			level++
		case ']':
			level--
		}
		pos++
	}
	return s[start:pos], start, pos
}

func isFluxSep(c byte) bool { return c == ',' || c == ' ' || c == '\t' }

func (l *List) parseFlux(s string) error {
	for pos := 0; ; {
		tok, start, next := fluxNextTok(s, pos)
		if tok == "" {
			return nil
		}
		pos = next
		open := strings.IndexByte(tok, '[')
		if open < 0 {
			if i := strings.IndexByte(tok, ']'); i >= 0 {
				return &Error{Pos: position.Pos{Offset: start + i}, Msg: "unmatched ']'", Err: ErrInvalid}
			}
			if len(tok) > fluxTokenMax {
				tok = tok[:fluxTokenMax]
			}
			if _, err := l.pushHost(tok); err != nil {
				return tooLarge(start)
			}
			continue
		}
		prefix := tok[:open]
		close := strings.IndexByte(tok[open+1:], ']')
		if close < 0 {
			return &Error{Pos: position.Pos{Offset: start + open}, Msg: "missing ']'", Err: ErrInvalid}
		}
		close += open + 1
		elems, err := parseElements(tok[open+1:close], start+open+1, FluxMaxRange, FluxMaxElements, "")
		if err != nil {
			return err
		}
		suffix := tok[close+1:]
		if suffix == "" {
			for _, e := range elems {
				if l.push(hostRange{prefix: prefix, lo: e.lo, hi: e.hi, width: e.width}) != nil {
					return tooLarge(start)
				}
			}
			continue
		}
		// Each host becomes an opaque single host, printed into a buffer
		// sized from the first element's width (snprintf truncates).
		size := len(prefix) + len(suffix) + 20 + elems[0].width - 1
		for _, e := range elems {
			for n := e.lo; ; n++ {
				h := prefix + pad(n, e.width) + suffix
				if len(h) > size {
					h = h[:size]
				}
				if l.push(hostRange{prefix: h, single: true}) != nil {
					return tooLarge(start)
				}
				if n == e.hi {
					break
				}
			}
		}
	}
}

// slurmTokens is hostlist.c's _next_tok: take bytes up to a separator, but
// keep going past separators that sit inside a [...] pair. _next_tok looks
// for the next '[' and ']' over the whole rest of the string each time, which
// is quadratic in a long list of plain hosts; the positions it finds are
// remembered instead, which gives the same tokens, because the scan only
// ever moves forward.
type slurmTokens struct {
	s string
	// next[c] is the first c at or after from[c] (-1: none), for '[' and ']'.
	next, from [2]int
}

func newSlurmTokens(s string) *slurmTokens {
	return &slurmTokens{s: s, next: [2]int{-2, -2}}
}

// index returns the index of the first '[' (k 0) or ']' (k 1) at or after
// pos, or -1. Like strchr on the C token, it stops at the end of the
// string only.
func (t *slurmTokens) index(k, pos int) int {
	if t.next[k] != -2 && t.from[k] <= pos && (t.next[k] < 0 || t.next[k] >= pos) {
		return t.next[k]
	}
	i := -1
	if pos <= len(t.s) {
		if i = strings.IndexByte(t.s[pos:], "[]"[k]); i >= 0 {
			i += pos
		}
	}
	t.next[k], t.from[k] = i, pos
	return i
}

// nextTok returns the token at or after pos and where the scan goes on.
func (t *slurmTokens) nextTok(pos int) (tok string, start, next int) {
	s := t.s
	for pos < len(s) && isSlurmSep(s[pos]) {
		pos++
	}
	if pos == len(s) {
		return "", pos, pos
	}
	start = pos
	parse := pos
	end := pos
	for {
		for end < len(s) && !isSlurmSep(s[end]) {
			end++
		}
		for {
			open := t.index(0, parse)
			if open < 0 || open > end {
				goto done
			}
			close := t.index(1, parse)
			if close < 0 || close < open {
				goto done
			}
			if close < end {
				parse = close + 1
				continue
			}
			end = close
			break
		}
	}
done:
	return s[start:end], start, end
}

func isSlurmSep(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' }

func (l *List) parseSlurm(s string) error {
	toks := newSlurmTokens(s)
	for pos := 0; ; {
		tok, start, next := toks.nextTok(pos)
		if tok == "" {
			return nil
		}
		pos = next
		open := strings.LastIndexByte(tok, '[')
		if open < 0 {
			if _, err := l.pushHost(tok); err != nil {
				return tooLarge(start)
			}
			continue
		}
		close := strings.IndexByte(tok[open+1:], ']')
		if close < 0 {
			return &Error{Pos: position.Pos{Offset: start + open}, Msg: "missing ']'", Err: ErrInvalid}
		}
		close += open + 1
		var suffix *string
		if after := tok[close+1:]; after != "" && after[0] != ',' {
			suffix = &after
		}
		elems, err := parseElements(tok[open+1:close], start+open+1, SlurmMaxRange, SlurmMaxElements, "x")
		if err != nil {
			return err
		}
		work := 0
		switch err := l.pushSlurmPrefix(tok[:open], suffix, elems, &work); {
		case errors.Is(err, ErrTooLarge):
			return tooLarge(start)
		case err != nil:
			return &Error{Pos: position.Pos{Offset: start}, Msg: "invalid prefix range: " + err.Error(), Err: ErrInvalid}
		}
	}
}

// pushSlurmPrefix is _push_range_list: the last [..] of the prefix is
// expanded as the outer factor of a cross product (recursively for earlier
// brackets). As in Slurm, an error below the first level is ignored and
// drops that part of the token silently. work counts the prefixes built:
// past MaxRanges the token fails with ErrTooLarge (nested brackets whose
// inner levels fail would otherwise loop up to 2^48 times for nothing).
func (l *List) pushSlurmPrefix(prefix string, suffix *string, elems []element, work *int) error {
	p := strings.LastIndexByte(prefix, '[')
	q := -1
	if p >= 0 {
		q = strings.LastIndexByte(prefix[p:], ']')
	}
	if q < 0 {
		return l.pushSlurmElems(prefix, suffix, elems)
	}
	q += p
	base, mid := prefix[:p], prefix[q+1:]
	recurse := strings.IndexByte(base, '[') >= 0
	pre, err := parseElements(prefix[p+1:q], 0, SlurmMaxRange, SlurmMaxElements, "x")
	if err != nil {
		return err
	}
	var cnt uint64
	for _, e := range pre {
		cnt += e.hi - e.lo + 1
		if cnt > SlurmMaxPrefixCnt {
			return fmt.Errorf("more than %d prefixes", SlurmMaxPrefixCnt)
		}
		for j := e.lo; ; j++ {
			if *work++; *work > MaxRanges {
				return ErrTooLarge
			}
			np := base + pad(j, e.width) + mid
			if recurse {
				if err := l.pushSlurmPrefix(np, suffix, elems, work); errors.Is(err, ErrTooLarge) {
					return err
				}
			} else if err := l.pushSlurmElems(np, suffix, elems); err != nil {
				return err
			}
			if j == e.hi {
				break
			}
		}
	}
	return nil
}

// pushSlurmElems is hostlist_push_hr for each element: with a suffix every
// host becomes an opaque single host.
func (l *List) pushSlurmElems(prefix string, suffix *string, elems []element) error {
	for _, e := range elems {
		if suffix == nil {
			if err := l.push(hostRange{prefix: prefix, lo: e.lo, hi: e.hi, width: e.width}); err != nil {
				return err
			}
			continue
		}
		for n := e.lo; ; n++ {
			if err := l.push(hostRange{prefix: prefix + pad(n, e.width) + *suffix, single: true}); err != nil {
				return err
			}
			if n == e.hi {
				break
			}
		}
	}
	return nil
}

// NaturalCompare orders strings as Slurm's strnatcmp (Martin Pool's natural
// order compare) does: blanks skipped, digit runs compared by value, or
// left-aligned when either starts with '0'; chars compare as signed, as C's
// char does on the platforms Slurm runs on. slurmctld sorts its node table
// and hostlists this way.
func NaturalCompare(a, b string) int {
	at := func(s string, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	ai, bi := 0, 0
	for {
		ca, cb := at(a, ai), at(b, bi)
		for isNatSpace(ca) {
			ai++
			ca = at(a, ai)
		}
		for isNatSpace(cb) {
			bi++
			cb = at(b, bi)
		}
		if isDigit(ca) && isDigit(cb) {
			var r int
			if ca == '0' || cb == '0' {
				r = natCompareLeft(a[ai:], b[bi:])
			} else {
				r = natCompareRight(a[ai:], b[bi:])
			}
			if r != 0 {
				return r
			}
		}
		if ca == 0 && cb == 0 {
			return 0
		}
		if int8(ca) < int8(cb) {
			return -1
		}
		if int8(ca) > int8(cb) {
			return 1
		}
		ai++
		bi++
	}
}

func isNatSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func natCompareRight(a, b string) int {
	bias := 0
	for i := 0; ; i++ {
		da, db := i < len(a) && isDigit(a[i]), i < len(b) && isDigit(b[i])
		switch {
		case !da && !db:
			return bias
		case !da:
			return -1
		case !db:
			return 1
		case a[i] < b[i]:
			if bias == 0 {
				bias = -1
			}
		case a[i] > b[i]:
			if bias == 0 {
				bias = 1
			}
		}
	}
}

func natCompareLeft(a, b string) int {
	for i := 0; ; i++ {
		da, db := i < len(a) && isDigit(a[i]), i < len(b) && isDigit(b[i])
		switch {
		case !da && !db:
			return 0
		case !da:
			return -1
		case !db:
			return 1
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
}
