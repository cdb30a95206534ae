package slurm

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
)

// TestParseGolden replays inputs through Parse and compares with what
// Slurm's own parser produced for them (testdata/slurm_parse.golden): the
// same acceptance and the same tree.
func TestParseGolden(t *testing.T) {
	f, err := os.Open("testdata/slurm_parse.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	cases := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			continue
		}
		quoted, want, ok := strings.Cut(text, "\t")
		var in string
		if !ok || json.Unmarshal([]byte(quoted), &in) != nil {
			t.Fatalf("line %d: malformed", line)
		}
		got := "ERR"
		if n, err := Parse(in); err == nil {
			got = cDump(n)
		}
		if got != want {
			t.Errorf("line %d: Parse(%q) = %s, Slurm %s", line, in, got, want)
		}
		cases++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases < 1000 {
		t.Fatalf("only %d golden cases", cases)
	}
}

// cDump prints a tree as the C harness that produced the golden file did:
// a leaf as ["key"op"value"] with bytes outside printable ASCII as \xNN.
func cDump(n ast.Node) string {
	list := func(name string, xs []ast.Node) string {
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = cDump(x)
		}
		return name + "(" + strings.Join(parts, " ") + ")"
	}
	switch n := n.(type) {
	case *ast.Compare:
		return "[" + cQuote(n.Key) + n.Op.String() + cQuote(n.Value) + "]"
	case *ast.And:
		return list("and", n.X)
	case *ast.Or:
		return list("or", n.X)
	}
	return "?"
}

func cQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
