package flux

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
)

func TestRequiresJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ref §8: default operator is properties", `a`, `{"properties":["a"]}`},
		{"ref §8: juxtaposed properties merge", `a b c`, `{"properties":["a","b","c"]}`},
		{"ref §8: properties split on comma, empties kept", `a,,b`, `{"properties":["a","","b"]}`},
		{"ref §8: host alias", `host:a`, `{"hostlist":["a"]}`},
		{"ref §8: hosts alias", `hosts:n[1-3]`, `{"hostlist":["n[1-3]"]}`},
		{"ref §8: rank alias", `rank:0-3`, `{"ranks":["0-3"]}`},
		{"ref §8: other operators are not split", `host:a,b`, `{"hostlist":["a,b"]}`},
		{"ref §8: split at the first colon", `a:b:c`, `{"a":["b:c"]}`},
		{"ref §8: split at the first colon (time)", `time:11:00am`, `{"time":["11:00am"]}`},
		{"ref §8: empty operator allowed by the parser", `:a`, `{"":["a"]}`},
		{"ref §8: quoting does not stop op splitting", `'host:foo'`, `{"hostlist":["foo"]}`},
		{"ref §8: op: glued to a quoted value", `host:'foo bar'`, `{"hostlist":["foo bar"]}`},
		{"ref §8: hostlist terms are not merged", `host:a host:b`, `{"and":[{"hostlist":["a"]},{"hostlist":["b"]}]}`},
		{"ref §8: or chains flatten", `a|b or c||d`, `{"or":[{"properties":["a"]},{"properties":["b"]},{"properties":["c"]},{"properties":["d"]}]}`},
		{"ref §8: not of a group", `not (a b)`, `{"not":[{"properties":["a","b"]}]}`},
		{"ref §8: - negates a term", `-a b c`, `{"and":[{"not":[{"properties":["a"]}]},{"properties":["b"]},{"properties":["c"]}]}`},
		{"ref §8: juxtaposition after or binds looser", `a or b c`, `{"and":[{"or":[{"properties":["a"]},{"properties":["b"]}]},{"properties":["c"]}]}`},
		{"ref §8: & binds tighter than or", `a or b&c`, `{"or":[{"properties":["a"]},{"properties":["b","c"]}]}`},
		{"ref §8: juxtaposition before or", `a b|c`, `{"or":[{"properties":["a","b"]},{"properties":["c"]}]}`},
		{"ref §8: keywords are lowercase only", `a AND b`, `{"properties":["a","AND","b"]}`},
		{"ref §8: keywords are whole words", `andy nota orb`, `{"properties":["andy","nota","orb"]}`},
		{"ref §8: odd characters are term characters", `a-b a.b a@b a!b ^a +batch`, `{"properties":["a-b","a.b","a@b","a!b","^a","+batch"]}`},
		{"ref §8: NOT then NOT shifts (PLY)", `not a not b`, `{"not":[{"and":[{"properties":["a"]},{"not":[{"properties":["b"]}]}]}]}`},
		{"ref §8: not binds one term before juxtaposition", `not a b`, `{"and":[{"not":[{"properties":["a"]}]},{"properties":["b"]}]}`},
		{"ref §8: and on the left takes items", `host:a host:b c d`, `{"and":[{"hostlist":["a"]},{"hostlist":["b"]},{"properties":["c"]},{"properties":["d"]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RequiresJSON(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("RequiresJSON(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestRequiresErrors(t *testing.T) {
	tests := []struct {
		name, in, msg string
		offset        int
	}{
		{"ref §8: - before a group", `-(a|b)`, `Invalid token '(' at position 1`, 1},
		{"ref §8: double negate", `--a`, `Invalid token '-' at position 1`, 1},
		{"ref §8: dangling or", `a|`, `Unexpected end of input in 'a|'`, 2},
		{"ref §8: bare not", `not`, `Unexpected end of input in 'not'`, 3},
		{"ref §8: empty quotes", `""`, `Unexpected end of input in '""'`, 2},
		{"ref §8: empty input", ``, `Unexpected end of input in ''`, 0},
		{"ref §8: unclosed parenthesis", `a (b`, `Unclosed parenthesis in position 2`, 2},
		{"ref §8: unclosed single quote", `a 'b`, `Unclosed quote "'" at position 3`, 4},
		{"ref §8: unclosed double quote", `"b`, `Unclosed quote '"' at position 1`, 2},
		{"ref §8: mismatched parentheses (literal braces)", `a)`, `Mismatched parentheses starting at position {self.lexer.last_rparens}.`, 1},
		{"ref §8: missing argument", `a host:`, `Missing argument to token 'host:'`, 2},
		{"ref §8: invalid operator character", `4g,host:foo`, `invalid character ',' in operator '4g,host:'`, 0},
		{"ref §8: illegal (non-ASCII space) character", "a \u00a0b", "Illegal character '\u00a0' at position 2", 2},
		{"positions count characters", "\u00e9\u00e9 | |", `Invalid token '|' at position 5`, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRequires(tt.in)
			var e *RequiresError
			if !errors.As(err, &e) {
				t.Fatalf("ParseRequires(%q) error = %v, want %q", tt.in, err, tt.msg)
			}
			if e.Msg != tt.msg || e.ByteOffset() != tt.offset {
				t.Errorf("ParseRequires(%q) error = %q at %d, want %q at %d", tt.in, e.Msg, e.ByteOffset(), tt.msg, tt.offset)
			}
			if want := "--requires='" + tt.in + "': " + tt.msg; e.Error() != want {
				t.Errorf("Error() = %q, want %q", e.Error(), want)
			}
		})
	}
}

// TestParseRequiresChecksTheConstraint checks that a well-formed expression
// that is not a valid constraint gives flux-core's message, positioned at
// the user's text the faulty value came from (not at the generated JSON).
func TestParseRequiresChecksTheConstraint(t *testing.T) {
	tests := []struct {
		in, msg string
		offset  int
	}{
		{`foo:bar`, "unknown constraint operator: foo", 0},
		{`a & foo:bar`, "unknown constraint operator: foo", 4},
		{`:a`, "unknown constraint operator: ", 0},
		{`host:f[`, "invalid hostlist 'f[' in [\"f[\"]", 5},
		{`rank:0-3 & host:x[3-1]`, "invalid hostlist 'x[3-1]' in [\"x[3-1]\"]", 16},
		{`ranks:1-0`, "invalid idset '1-0' in [\"1-0\"]", 6},
		{`a & (b | rank:9-1)`, "invalid idset '9-1' in [\"9-1\"]", 14},
		{`a b -host:x[`, "invalid hostlist 'x[' in [\"x[\"]", 10},
		{`x 'a!b'`, `invalid character '!' in property "a!b"`, 3},
	}
	for _, tt := range tests {
		_, err := ParseRequires(tt.in)
		var e *Error
		if !errors.As(err, &e) || e.Msg != tt.msg || e.ByteOffset() != tt.offset {
			t.Errorf("ParseRequires(%q) error = %v at %d, want %q at %d", tt.in, err, offsetOf(e), tt.msg, tt.offset)
		}
	}
	if _, err := ParseRequires(`a&b|c&x(y)`); err != nil {
		t.Errorf("ParseRequires(a&b|c&x(y)) = %v, want a valid constraint", err)
	}
}

func offsetOf(e *Error) int {
	if e == nil {
		return -1
	}
	return e.ByteOffset()
}

// TestFormatRoundTrip checks, over every expression of the flux-core oracle
// file that is a valid constraint, that the tree survives FormatRFC31 and
// ParseRFC31, and that it equals the tree of flux-core's own JSON.
func TestFormatRoundTrip(t *testing.T) {
	f, err := os.Open("testdata/requires_oracle.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	checked := 0
	for sc.Scan() {
		var c struct{ In, Ok string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n, err := ParseRequires(c.In)
		if err != nil {
			continue
		}
		checked++
		want := ast.Dump(n)
		back, err := ParseRFC31([]byte(FormatRFC31(n)))
		if err != nil || ast.Dump(back) != want {
			t.Errorf("%q: FormatRFC31 = %s reads back as %v, %v; want %s", c.In, FormatRFC31(n), back, err, want)
		}
		fromFlux, err := ParseRFC31([]byte(c.Ok))
		if err != nil || ast.Dump(fromFlux) != want {
			t.Errorf("%q: flux-core's JSON %s gives %v, %v; want %s", c.In, c.Ok, fromFlux, err, want)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d valid expressions", checked)
	}
}

func TestFormatRFC31(t *testing.T) {
	tests := []struct {
		in   ast.Node
		want string
	}{
		{&ast.Const{Value: true}, `{}`},
		{&ast.Const{Value: false}, `{"not":[]}`},
		{&ast.Not{X: &ast.Property{Name: "^bar"}}, `{"properties":["^^bar"]}`},
		{&ast.And{X: []ast.Node{&ast.Property{Name: "a"}, &ast.Not{X: &ast.Property{Name: "b"}}}}, `{"properties":["a","^b"]}`},
		{&ast.And{X: []ast.Node{&ast.Property{Name: "a"}}}, `{"and":[{"properties":["a"]}]}`},
		{&ast.Or{}, `{"not":[]}`},
		{&ast.Ranks{Ranges: []ast.RankRange{{Lo: 5, Hi: 5}, {Lo: 0, Hi: 3}, {Lo: 4, Hi: 4}}}, `{"ranks":["0-5"]}`},
		{&ast.Ranks{}, `{"ranks":[]}`},
		{&ast.Hostlist{Exprs: []string{"a\"b", "c\n"}}, `{"hostlist":["a\"b","c\n"]}`},
		{&ast.Not{X: &ast.Hostlist{Exprs: []string{"h[0-1]"}}}, `{"not":[{"hostlist":["h[0-1]"]}]}`},
	}
	for _, tt := range tests {
		if got := FormatRFC31(tt.in); got != tt.want {
			t.Errorf("FormatRFC31(%s) = %s, want %s", ast.Dump(tt.in), got, tt.want)
		}
	}
}
