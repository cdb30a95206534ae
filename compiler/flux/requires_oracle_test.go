package flux

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// TestRequiresMatchesFluxCore replays testdata/requires_oracle.jsonl: each
// line is an expression with the JSON (`ok`) or the error message (`err`)
// that flux-core's own parser (flux.constraint.parser, PLY 3.11, with the
// job commands' MiniConstraintParser configuration) gave for it. The inputs
// are hand-picked cases from reference §8, random combinations of terms,
// operators, quotes and odd characters, and keywords followed by Unicode
// letters, digits, marks and spaces (Python's \w, \b and \s).
func TestRequiresMatchesFluxCore(t *testing.T) {
	f, err := os.Open("testdata/requires_oracle.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var c struct{ In, Ok, Err string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		got, err := RequiresJSON(c.In)
		switch {
		case c.Err != "":
			var re *RequiresError
			if !errors.As(err, &re) || re.Msg != c.Err {
				t.Errorf("RequiresJSON(%q) = %q, %v; want error %q", c.In, got, err, c.Err)
			}
		case err != nil || got != c.Ok:
			t.Errorf("RequiresJSON(%q) = %q, %v; want %q", c.In, got, err, c.Ok)
		}
	}
	if n == 0 {
		t.Fatal("no cases")
	}
}
