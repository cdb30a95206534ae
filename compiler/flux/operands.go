package flux

import (
	"strings"

	"github.com/nodesift/sift/compiler/ast"
)

// The operand checks below follow flux-core's libidset and libhostlist
// decoders (reference §3, §4).

// maxRank is the largest id libidset accepts (IDSET_MAX_UNIVERSE - 1).
const maxRank = 1<<31 - 1

// decodeRanks decodes an RFC 22 idset as flux-core's idset_decode does:
// optional outer brackets, empty elements skipped, strictly ascending
// elements, no leading zeros, `a-b` only with a < b. Ids of 2^31 and more
// are rejected (flux-core wraps ids of 2^32 and more; sift refuses them).
func decodeRanks(s string) ([]ast.RankRange, bool) {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	if strings.ContainsAny(s, "[]") {
		return nil, false
	}
	var out []ast.RankRange
	have := false
	var prevHi uint32
	for _, elem := range strings.Split(s, ",") {
		if elem == "" {
			continue
		}
		lo, rest, ok := idsetNumber(elem)
		if !ok {
			return nil, false
		}
		hi := lo
		if rest != "" {
			if rest[0] != '-' {
				return nil, false
			}
			var tail string
			hi, tail, ok = idsetNumber(rest[1:])
			if !ok || tail != "" || hi <= lo {
				return nil, false
			}
		}
		if have && lo <= prevHi {
			return nil, false
		}
		have, prevHi = true, hi
		out = append(out, ast.RankRange{Lo: lo, Hi: hi})
	}
	return out, true
}

// idsetNumber reads a decimal id without sign or leading zeros at the start
// of s and returns the rest.
func idsetNumber(s string) (uint32, string, bool) {
	i := 0
	var v uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + uint64(s[i]-'0')
		if v > maxRank {
			return 0, "", false
		}
		i++
	}
	if i == 0 || (i > 1 && s[0] == '0') {
		return 0, "", false
	}
	return uint32(v), s[i:], true
}

// maxHostRange is the most hosts one libhostlist bracket element may cover.
const maxHostRange = 1 << 20

// validHostlist reports whether flux-core's hostlist_decode accepts s.
func validHostlist(s string) bool {
	for len(s) > 0 {
		i := 0
		depth := 0
		for i < len(s) {
			c := s[i]
			if depth == 0 && (c == ',' || c == ' ' || c == '\t') {
				break
			}
			if c == '[' {
				depth++
			} else if c == ']' && depth > 0 {
				depth--
			}
			i++
		}
		if i > 0 && !validHostToken(s[:i]) {
			return false
		}
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return true
}

func validHostToken(tok string) bool {
	open := strings.IndexByte(tok, '[')
	if open < 0 {
		return !strings.Contains(tok, "]")
	}
	close := strings.IndexByte(tok[open:], ']')
	if close < 0 {
		return false
	}
	list := tok[open+1 : open+close]
	if list == "" || strings.Contains(list, "[") {
		return false
	}
	elems := strings.Split(list, ",")
	if len(elems) > 10240 {
		return false
	}
	for _, e := range elems {
		lo, rest, ok := strtoul(e)
		if !ok {
			return false
		}
		hi := lo
		if rest != "" {
			if rest[0] != '-' {
				return false
			}
			rest = rest[1:]
			if rest != "" {
				var tail string
				hi, tail, ok = strtoul(rest)
				if !ok || tail != "" || strings.HasPrefix(strings.TrimLeft(rest, " \t\n\v\f\r"), "-") {
					return false
				}
			}
		}
		if hi < lo || hi-lo >= maxHostRange {
			return false
		}
	}
	return true
}

// strtoul reads a number as C's strtoul does (leading space and '+'
// allowed, saturating at 2^64-1) and returns the rest. A leading '-' is
// refused, as libhostlist refuses negative ids.
func strtoul(s string) (uint64, string, bool) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	if i < len(s) && s[i] == '+' {
		i++
	} else if i < len(s) && s[i] == '-' {
		return 0, "", false
	}
	start := i
	var v uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := uint64(s[i] - '0')
		if v > (^uint64(0)-d)/10 {
			v = ^uint64(0)
		} else {
			v = v*10 + d
		}
		i++
	}
	if i == start {
		return 0, "", false
	}
	return v, s[i:], true
}
