package idset

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nodesift/sift/position"
)

// MaxID is the largest id an idset may hold (flux-core's universe limit is 2^31).
const MaxID = 1<<31 - 1

// Range is the closed interval of ids [Lo, Hi].
type Range struct {
	Lo, Hi uint32
}

// Set is an immutable-by-convention set of ids kept as sorted, disjoint,
// non-adjacent ranges. The zero value is the empty set.
type Set struct {
	ranges []Range
}

// Flags select the encoding written by Encode.
type Flags int

const (
	// Ranged writes every run of two or more consecutive ids as lo-hi.
	Ranged Flags = 1 << iota
	// Brackets wraps the encoding in [] when it holds two or more ids.
	Brackets
)

// ErrInvalid and ErrRange classify decode errors as flux-core's errno does
// (EINVAL and ERANGE); test for them with errors.Is.
var (
	ErrInvalid = errors.New("invalid idset")
	ErrRange   = errors.New("idset universe size would exceed maximum")
)

// Error is a decode error: Msg is flux-core's message and Offset the byte
// of the input it refers to.
type Error struct {
	position.Pos
	Msg string
	Err error // ErrInvalid or ErrRange
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the error class (ErrInvalid or ErrRange).
func (e *Error) Unwrap() error { return e.Err }

// Decode parses s as a strict RFC 22 idset, exactly as flux-core's
// idset_decode does (except that numbers of 2^32 and more are rejected).
func Decode(s string) (*Set, error) {
	body, base := s, 0
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		body, base = s[1:len(s)-1], 1
	}
	if i := strings.IndexAny(body, "[]"); i >= 0 {
		return nil, &Error{Pos: position.Pos{Offset: base + i}, Msg: "mismatched or nested brackets", Err: ErrInvalid}
	}
	set := &Set{}
	var maxID uint64
	have := false
	for pos := 0; pos <= len(body); {
		end := strings.IndexByte(body[pos:], ',')
		if end < 0 {
			end = len(body)
		} else {
			end += pos
		}
		elem := body[pos:end]
		off := base + pos
		pos = end + 1
		if elem == "" {
			continue
		}
		lo, hi, ok := parseElement(elem)
		if !ok {
			return nil, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("error parsing range '%s'", position.Clip(elem)), Err: ErrInvalid}
		}
		// libidset keeps ids in 32 bits: its order and validity checks see
		// the truncated values, so these follow it; ids of 2^32 and more,
		// which it would then store wrapped, are refused.
		if have && uint64(uint32(lo)) <= maxID {
			return nil, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("range '%s' is out of order", position.Clip(elem)), Err: ErrInvalid}
		}
		if isInvalidID(uint64(uint32(lo))) || isInvalidID(uint64(uint32(hi))) {
			return nil, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("error appending '%s': Invalid argument", position.Clip(elem)), Err: ErrInvalid}
		}
		if hi > MaxID || lo > MaxID {
			return nil, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("error appending '%s': set universe size would exceed maximum %d", position.Clip(elem), MaxID), Err: ErrRange}
		}
		set.appendRange(uint32(lo), uint32(hi))
		maxID, have = hi, true
	}
	return set, nil
}

// isInvalidID reports the two 32-bit values libidset refuses with EINVAL
// (UINT_MAX and its IDSET_INVALID_ID sentinel).
func isInvalidID(n uint64) bool { return n == 1<<32-1 || n == 1<<32-2 }

// parseElement parses "N" or "N-M" with libidset's rules: digits only, no
// leading zeros, M > N, nothing trailing, no 64-bit overflow.
func parseElement(elem string) (lo, hi uint64, ok bool) {
	n, rest, ok := parseID(elem)
	if !ok {
		return 0, 0, false
	}
	if rest == "" {
		return n, n, true
	}
	if rest[0] != '-' {
		return 0, 0, false
	}
	m, rest, ok := parseID(rest[1:])
	if !ok || rest != "" || m <= uint64(uint32(n)) { // libidset compares with lo in 32 bits
		return 0, 0, false
	}
	return n, m, true
}

// parseID reads a decimal number at the start of s: at least one digit, no
// leading zero unless it is the only digit, no 64-bit overflow.
func parseID(s string) (n uint64, rest string, ok bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || (s[0] == '0' && i > 1) {
		return 0, s, false
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		return 0, s, false
	}
	return n, s[i:], true
}

// Parse collects the ids of a lenient list: ids and lo-hi ranges (either
// order of ends) in any order, with duplicates, separated by commas or
// whitespace, optionally inside one pair of brackets. It is the input form
// of `sift idset encode`; use Decode for strict RFC 22 input.
func Parse(s string) (*Set, error) {
	body, base := s, 0
	if t := strings.TrimSpace(s); len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		base = strings.Index(s, "[") + 1
		body = t[1 : len(t)-1]
	}
	var rs []Range
	for pos := 0; pos < len(body); {
		if isSep(body[pos]) {
			pos++
			continue
		}
		end := pos
		for end < len(body) && !isSep(body[end]) {
			end++
		}
		elem := body[pos:end]
		off := base + pos
		pos = end
		lo, hi, ok := parseLenient(elem)
		if !ok {
			return nil, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("error parsing range '%s'", position.Clip(elem)), Err: ErrInvalid}
		}
		if hi > MaxID {
			return nil, &Error{Pos: position.Pos{Offset: off}, Msg: fmt.Sprintf("error appending '%s': set universe size would exceed maximum %d", position.Clip(elem), MaxID), Err: ErrRange}
		}
		rs = append(rs, Range{uint32(lo), uint32(hi)})
	}
	return FromRanges(rs), nil
}

func isSep(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parseLenient reads "N" or "N-M" allowing leading zeros and M < N.
func parseLenient(elem string) (lo, hi uint64, ok bool) {
	a, b, ranged := strings.Cut(elem, "-")
	lo, err := parseDigits(a)
	if err != nil {
		return 0, 0, false
	}
	if !ranged {
		return lo, lo, true
	}
	hi, err = parseDigits(b)
	if err != nil {
		return 0, 0, false
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	return lo, hi, true
}

func parseDigits(s string) (uint64, error) {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, ErrInvalid
	}
	return strconv.ParseUint(s, 10, 64)
}

// FromRanges returns the set holding every id of rs (in any order,
// overlapping or not).
func FromRanges(rs []Range) *Set {
	rs = append([]Range(nil), rs...)
	for i := range rs {
		if rs[i].Lo > rs[i].Hi {
			rs[i].Lo, rs[i].Hi = rs[i].Hi, rs[i].Lo
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	s := &Set{}
	for _, r := range rs {
		s.appendRange(r.Lo, r.Hi)
	}
	return s
}

// appendRange adds [lo,hi], which must not start before the last range.
func (s *Set) appendRange(lo, hi uint32) {
	if n := len(s.ranges); n > 0 {
		last := &s.ranges[n-1]
		if uint64(lo) <= uint64(last.Hi)+1 {
			if hi > last.Hi {
				last.Hi = hi
			}
			return
		}
	}
	s.ranges = append(s.ranges, Range{lo, hi})
}

// Ranges returns the set as ascending, disjoint, non-adjacent ranges. The
// caller must not modify the result.
func (s *Set) Ranges() []Range { return s.ranges }

// Count returns the number of ids in the set.
func (s *Set) Count() uint64 {
	var n uint64
	for _, r := range s.ranges {
		n += uint64(r.Hi-r.Lo) + 1
	}
	return n
}

// Contains reports whether id is in the set.
func (s *Set) Contains(id uint32) bool {
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].Hi >= id })
	return i < len(s.ranges) && s.ranges[i].Lo <= id
}

// Encode writes the set as libidset's idset_encode does with flags.
func (s *Set) Encode(flags Flags) string {
	var b strings.Builder
	count := s.Count()
	brackets := flags&Brackets != 0 && count > 1
	if brackets {
		b.WriteByte('[')
	}
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	for _, r := range s.ranges {
		if flags&Ranged != 0 {
			sep()
			b.WriteString(strconv.FormatUint(uint64(r.Lo), 10))
			if r.Hi > r.Lo {
				b.WriteByte('-')
				b.WriteString(strconv.FormatUint(uint64(r.Hi), 10))
			}
			continue
		}
		for id := uint64(r.Lo); id <= uint64(r.Hi); id++ {
			sep()
			b.WriteString(strconv.FormatUint(id, 10))
		}
	}
	if brackets {
		b.WriteByte(']')
	}
	return b.String()
}

// String returns the ranged encoding.
func (s *Set) String() string { return s.Encode(Ranged) }
