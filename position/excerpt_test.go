package position

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWindowEchoesAtMostWidthBytes(t *testing.T) {
	long := strings.Repeat("a", 200) + "X" + strings.Repeat("b", 200)
	tests := []struct {
		name string
		s    string
		off  int
		want string
		at   int
	}{
		{"short is whole", "a&b", 1, "a&b", 1},
		{"end of short", "a&b", 3, "a&b", 3},
		{"middle of long", long, 200, "..." + strings.Repeat("a", 48) + "X" + strings.Repeat("b", 47) + "...", 51},
		{"head of long", long, 0, strings.Repeat("a", 96) + "...", 0},
		{"tail of long", long, len(long), "..." + strings.Repeat("b", 96), 99},
		{"offset past the end clamps", "abc", 9, "abc", 3},
		{"no split UTF-8", strings.Repeat("é", 100), 101, "..." + strings.Repeat("é", 49) + "...", 3 + 49},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, at := Window(tt.s, tt.off)
			if got != tt.want || at != tt.at {
				t.Errorf("Window(%d bytes, %d) = %q, %d; want %q, %d", len(tt.s), tt.off, got, at, tt.want, tt.at)
			}
			if n := len(strings.Trim(got, ".")); n > Width+2*(utf8.UTFMax-1) {
				t.Errorf("window holds %d bytes of input, more than %d", n, Width)
			}
		})
	}
}

func TestClip(t *testing.T) {
	if got := Clip("short"); got != "short" {
		t.Errorf("Clip(short) = %q", got)
	}
	if got := Clip(strings.Repeat("x", 1000)); got != strings.Repeat("x", Width)+"..." {
		t.Errorf("Clip(1000 x) = %q", got)
	}
}

func TestAroundShowsTheLineOfTheByte(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		off        int
		line, col  int
		lines      int
		echo, care string
	}{
		{"one line", "a && b", 3, 1, 4, 1, "a && b", "   ^"},
		{"end of text", "a &", 3, 1, 4, 1, "a &", "   ^"},
		{"second line", "{\n  \"x\": 1\n}\n", 9, 2, 8, 3, "  \"x\": 1", "       ^"},
		{"CRLF line", "a\r\nbad\r\n", 4, 2, 2, 2, "bad", " ^"},
		{"tab kept", "\tx y", 3, 1, 4, 1, "\tx y", "\t  ^"},
		{"control byte shown as ?", "a\x00b", 1, 1, 2, 1, "a?b", " ^"},
		{"invalid UTF-8 shown as ?", "a\xffb", 2, 1, 3, 1, "a?b", "  ^"},
		{"long line cut", strings.Repeat("x", 300) + "!" + strings.Repeat("y", 300), 300, 1, 301, 1,
			"..." + strings.Repeat("x", 48) + "!" + strings.Repeat("y", 47) + "...", strings.Repeat(" ", 51) + "^"},
		{"long line of a file cut", "ok\n" + strings.Repeat("z", 500) + "\nok\n", 3 + 400, 2, 401, 3,
			"..." + strings.Repeat("z", 96) + "...", strings.Repeat(" ", 51) + "^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := Around(tt.text, tt.off)
			if !ok {
				t.Fatalf("Around(%q, %d) not ok", tt.text, tt.off)
			}
			want := Excerpt{Line: tt.line, Column: tt.col, Lines: tt.lines, Text: tt.echo, Caret: tt.care}
			if e != want {
				t.Errorf("Around = %+v\nwant      %+v", e, want)
			}
		})
	}
}

func TestAroundRefusesOffsetsOutsideTheText(t *testing.T) {
	for _, off := range []int{-1, 4} {
		if _, ok := Around("abc", off); ok {
			t.Errorf("Around(abc, %d) ok", off)
		}
	}
}
