package hostlist

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// nextTokPlain is hostlist.c's _next_tok as written: it looks for the next
// '[' and ']' over the whole rest of the string each time.
func nextTokPlain(s string, pos int) (tok string, start, next int) {
	indexFrom := func(from int, c byte) int {
		if from > len(s) {
			return -1
		}
		if i := strings.IndexByte(s[from:], c); i >= 0 {
			return from + i
		}
		return -1
	}
	for pos < len(s) && isSlurmSep(s[pos]) {
		pos++
	}
	if pos == len(s) {
		return "", pos, pos
	}
	start, parse, end := pos, pos, pos
	for {
		for end < len(s) && !isSlurmSep(s[end]) {
			end++
		}
		for {
			open := indexFrom(parse, '[')
			if open < 0 || open > end {
				return s[start:end], start, end
			}
			close := indexFrom(parse, ']')
			if close < 0 || close < open {
				return s[start:end], start, end
			}
			if close < end {
				parse = close + 1
				continue
			}
			end = close
			break
		}
	}
}

func TestSlurmTokensMatchPlainNextTok(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const alphabet = "ab1[]-, \t\n"
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		toks := newSlurmTokens(s)
		for pos := 0; ; {
			got, gs, gn := toks.nextTok(pos)
			want, ws, wn := nextTokPlain(s, pos)
			if got != want || gs != ws || gn != wn {
				t.Fatalf("%q at %d: got %q %d %d, want %q %d %d", s, pos, got, gs, gn, want, ws, wn)
			}
			if got == "" {
				break
			}
			pos = gn
		}
	}
}
