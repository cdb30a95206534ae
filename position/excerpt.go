package position

import (
	"strings"
	"unicode/utf8"
)

// Width is how many bytes of an input an error echoes at most, not counting
// the "..." that marks a cut: enough to recognize the place, never a whole
// megabyte of input in one line of a terminal.
const Width = 96

// Window returns Width bytes of s around byte off (off clamped to s), with
// "..." where s is cut, and the offset of off inside the result. The window
// is centred on off where s allows and widened to whole UTF-8 sequences, so
// it never splits one. Window(s, 0) is the head of s, for echoing a value whole when
// it is short and cut when it is long.
func Window(s string, off int) (string, int) {
	off = max(0, min(off, len(s)))
	start := max(0, min(off-Width/2, len(s)-Width))
	end := min(len(s), start+Width)
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	win, at := s[start:end], off-start
	if start > 0 {
		win, at = "..."+win, at+3
	}
	if end < len(s) {
		win += "..."
	}
	return win, at
}

// Clip returns s whole when it is at most Width bytes long, else its first
// Width bytes and "...".
func Clip(s string) string {
	w, _ := Window(s, 0)
	return w
}

// Excerpt is what an error shows of its input: the line holding the byte at
// fault, cut to a window around it, and a caret line under it.
type Excerpt struct {
	// Line and Column are 1-based; Column counts bytes.
	Line, Column int
	// Lines is how many lines the whole text has.
	Lines int
	// Text is at most Width bytes of the line around the byte, "..." where
	// cut, with control bytes and invalid UTF-8 shown as '?'.
	Text string
	// Caret is whitespace as wide as Text up to the byte, then '^'.
	Caret string
}

// Around returns the excerpt of text at byte off, or false when off is
// outside text (off == len(text) is the end of the text, where an
// unexpected end is reported).
func Around(text string, off int) (Excerpt, bool) {
	if off < 0 || off > len(text) {
		return Excerpt{}, false
	}
	lineStart := strings.LastIndexByte(text[:off], '\n') + 1
	lineEnd := len(text)
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		lineEnd = off + i
	}
	line := strings.TrimSuffix(text[lineStart:lineEnd], "\r")
	win, at := Window(line, off-lineStart)
	win = printable(win)
	return Excerpt{
		Line:   strings.Count(text[:lineStart], "\n") + 1,
		Column: off - lineStart + 1,
		Lines:  strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1,
		Text:   win,
		Caret:  pad(win[:at]) + "^",
	}, true
}

// printable replaces control bytes (but tab) and invalid UTF-8 with '?', one
// for one, so the echo cannot drive the terminal and the caret stays under
// its byte.
func printable(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteByte('?')
		case r < 0x20 && r != '\t', r == 0x7f:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pad returns whitespace as wide as prefix, keeping tabs so the caret lines
// up under the same byte in a terminal.
func pad(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
