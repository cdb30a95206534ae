package slurm

import (
	"errors"
	"strings"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
)

const (
	seedValid   = "seed document: valid requests"
	seedInvalid = "seed document: invalid requests"
	seedWS      = "seed document: whitespace warning"
	refGrammar  = "slurm-extra-semantics.md#grammar"
	refReject   = "slurm-extra-semantics.md#rejections"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		dump string
		ref  string
	}{
		{"a=1.23", `["a"="1.23"]`, seedValid},
		{"a=   b", `["a"="   b"]`, seedValid},
		{"a!=1.24", `["a"!="1.24"]`, seedValid},
		{"a!=1.23|foo!=blah", `or(["a"!="1.23"] ["foo"!="blah"])`, seedValid},
		{"b=200", `["b"="200"]`, seedValid},
		{"b=true", `["b"="true"]`, seedValid},
		{"foo<baz", `["foo"<"baz"]`, seedValid},
		{"(c<=0.0001&a=1.25)|zed=23.0", `or(and(["c"<="0.0001"] ["a"="1.25"]) ["zed"="23.0"])`, seedValid},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
			`and(or(and(["c"<="0.0001"] ["a"="1.25"]) ["zed"="23.0"]) or(["a"<"1"] ["b"="false"] ["c">="0.00000001"]))`, seedValid},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)",
			`and(or(and(["c"<="0.0001"] ["a"="1.25"]) ["zed"="23.0"]) or(["a"<"1"] ["b"="true"] ["c">="0.1"]))`, seedValid},
		{"(a=1&b=2)|c=foobar", `or(and(["a"="1"] ["b"="2"]) ["c"="foobar"])`, seedValid + " (syntax section)"},
		{"( a=b)", `[" a"="b"]`, seedWS},
		{"a = 1", `["a "=" 1"]`, refGrammar + ": whitespace kept verbatim"},
		{"a\t=\"x y\"", "[\"a\\t\"=\"\\\"x y\\\"\"]", refGrammar + ": quotes and tabs are ordinary"},
		{"k\\é=v'", `["k\\é"="v'"]`, refGrammar + ": backslash and non-ASCII are ordinary"},
		{"a=1,b=2", `and(["a"="1"] ["b"="2"])`, refGrammar + ": , is &"},
		{"a=1,b=2&c=3", `and(["a"="1"] ["b"="2"] ["c"="3"])`, refGrammar + ": , mixed with &"},
		{"a=1&b=2,c=3", `and(["a"="1"] ["b"="2"] ["c"="3"])`, refGrammar + ": , mixed with &"},
		{"a<1", `["a"<"1"]`, refGrammar + ": CMP <"},
		{"a<=1", `["a"<="1"]`, refGrammar + ": CMP <="},
		{"a>1", `["a">"1"]`, refGrammar + ": CMP >"},
		{"a>=1", `["a">="1"]`, refGrammar + ": CMP >="},
		{"a=1", `["a"="1"]`, refGrammar + ": CMP ="},
		{"a!=1", `["a"!="1"]`, refGrammar + ": CMP !="},
		{"((a=1))", `["a"="1"]`, refGrammar + ": a group with one item is that item"},
		{"(a=1)", `["a"="1"]`, refGrammar},
		{"(a=1|b=2)&(c=3,d=4)", `and(or(["a"="1"] ["b"="2"]) and(["c"="3"] ["d"="4"]))`, refGrammar + ": one operator per level"},
		{"(a=1&b=2)&c=3", `and(and(["a"="1"] ["b"="2"]) ["c"="3"])`, refGrammar + ": nested levels stay nested"},
		{"a=1|(b=2|(c=3&d=4))", `or(["a"="1"] or(["b"="2"] and(["c"="3"] ["d"="4"])))`, refGrammar},
		{"o.x=1", `["o.x"="1"]`, refGrammar + ": no dotted paths"},
		{"a=" + strings.Repeat("x", MaxLen-2), `["a"="` + strings.Repeat("x", MaxLen-2) + `"]`, refGrammar + ": 1024 bytes is the limit"},
		{strings.Repeat("(", 300) + "a=1" + strings.Repeat(")", 300), `["a"="1"]`, refGrammar + ": no depth limit"},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%.60q): %v (%s)", tt.in, err, tt.ref)
			continue
		}
		if got := ast.Dump(n); got != tt.dump {
			t.Errorf("Parse(%.60q) = %s, want %s (%s)", tt.in, got, tt.dump, tt.ref)
		}
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string // a substring of the message
		ref    string
	}{
		{"a,<=6", 1, "expected a comparison operator", seedInvalid + ": invalid comparison operator"},
		{"a<=6<=", 4, "a value may not contain", seedInvalid + ": trailing operator"},
		{"a=5&&&b=5", 4, "boolean operators are single characters", seedInvalid + ": multiple boolean operators"},
		{"a=5|||b=5", 4, "boolean operators are single characters", seedInvalid + ": multiple boolean operators"},
		{"a====5", 2, `"====" is not a comparison operator`, seedInvalid + ": multiple comparison operators"},
		{"b<=<=5", 3, `"<=<=" is not a comparison operator`, seedInvalid + ": multiple comparison operators"},
		{"a=5&()", 5, "empty group", seedInvalid + ": empty parentheses"},
		{"a=5&b=5|c=5", 7, `expected "&" (boolean operators may not be mixed at one level; add parentheses)`, seedInvalid + ": mixed operators"},
		{"(a=1)&(b=2)|(c=3)", 11, `expected "&"`, seedInvalid + ": mixed operators"},
		{"a=1(b=2)", 3, "expected a boolean operator", seedInvalid + ": no operator between requests"},
		{"(a=1)(b=2)", 5, "expected a boolean operator", seedInvalid + ": no operator between requests"},
		{"(((a=1)b=2))", 7, `expected a boolean operator (&, "," or |) or ")"`, seedInvalid + ": no operator between requests"},
		{" (a=b)", 1, "expected a comparison operator", seedWS},
		{"", 0, "unexpected end of constraint: expected a key", refReject + ": empty request"},
		{" ", 1, "expected a comparison operator", refReject + ": whitespace-only request"},
		{"\t\n", 2, "expected a comparison operator", refReject + ": whitespace-only request"},
		{"foo", 3, "expected a comparison operator", refReject + ": leaf with no comparison operator"},
		{"a=1&foo", 7, "expected a comparison operator", refReject + ": leaf with no comparison operator"},
		{"a==1", 2, `"==" is not`, refReject + ": bad operator run"},
		{"a=>1", 2, `"=>" is not`, refReject + ": bad operator run"},
		{"a=<1", 2, `"=<" is not`, refReject + ": bad operator run"},
		{"a<>1", 2, `"<>" is not`, refReject + ": bad operator run"},
		{"a!1", 2, `expected "=" after "!"`, refReject + ": bad operator run"},
		{"a!", 2, `expected "=" after "!"`, refReject + ": bad operator run"},
		{"a!==1", 3, `"!==" is not`, refReject + ": bad operator run"},
		{"a=!1", 2, `"=!" is not`, refReject + ": bad operator run"},
		{"a<=<=1", 3, `"<=<=" is not`, refReject + ": bad operator run"},
		{"=1", 0, "expected a key", refReject + ": empty key"},
		{"a=1&=1", 4, "expected a key", refReject + ": empty key"},
		{"a=", 2, "expected a value", refReject + ": empty value"},
		{"(a=)", 3, "expected a value", refReject + ": empty value"},
		{"a=b=c", 3, "a value may not contain", refReject + ": value with <>=!"},
		{"a<b=1", 3, "a value may not contain", refReject + ": value with <>=!"},
		{"a=b!", 3, "a value may not contain", refReject + ": value with <>=!"},
		{"&a=1", 0, `expected a key or "("`, refReject + ": leading boolean operator"},
		{",a=1", 0, `expected a key or "("`, refReject + ": leading boolean operator"},
		{"a=1&", 4, "unexpected end of constraint", refReject + ": trailing boolean operator"},
		{"a=1|", 4, "unexpected end of constraint", refReject + ": trailing boolean operator"},
		{"a=1&&b=2", 4, "single characters", refReject + ": doubled boolean operator"},
		{"a=1||b=2", 4, "single characters", refReject + ": doubled boolean operator"},
		{"a=1&,b=2", 4, "single characters", refReject + ": run &,"},
		{"a=1,,b=2", 4, "single characters", refReject + ": run ,,"},
		{"a=1&|b=2", 4, "single characters", refReject + ": run &|"},
		{"a=1,b=2|c=3", 7, `expected "&"`, refGrammar + ": , counts as & for mixing"},
		{"a=1|b=2,c=3", 7, `expected "|"`, refGrammar + ": , counts as & for mixing"},
		{"()", 1, "empty group", refReject + ": empty group"},
		{"(a=1&)", 5, `expected a key or "(" after the boolean operator at byte 4`, refReject + ": group ending in an operator"},
		{"(&a=1)", 1, `expected a key or "("`, refReject + ": group starting with an operator"},
		{"a=1)", 3, `unexpected ")"`, refReject + ": unbalanced )"},
		{")", 0, `unexpected ")"`, refReject + ": unbalanced )"},
		{"(a=1", 4, `expected ")" to close the "(" at byte 0`, refReject + ": unbalanced ("},
		{"((a=1)", 6, `expected ")" to close the "(" at byte 0`, refReject + ": unbalanced ("},
		{"(a=1&(b=2)", 10, `to close the "(" at byte 0`, refReject + ": unbalanced ("},
		{"(", 1, "unexpected end of constraint", refReject + ": unbalanced ("},
		{"a=f(x)", 3, "expected a boolean operator", refReject + ": parentheses inside a value"},
		{"(a=1)b=2", 5, "expected a boolean operator", refGrammar + ": leaf only after an operator"},
		{"a=1 (b=2)", 4, "expected a boolean operator", refGrammar + ": ( only after an operator"},
		{"a=" + strings.Repeat("x", MaxLen-1), MaxLen, "constraint longer than 1024 bytes", refReject + ": ESLURM_PATHNAME_TOO_LONG"},
		{"a=1\x00", 3, "NUL", "brief: a NUL cannot occur in a C string"},
		{"\x00", 0, "NUL", "brief: a NUL cannot occur in a C string"},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%.60q) = %s, want an error (%s)", tt.in, ast.Dump(n), tt.ref)
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%.60q): error %T is not *Error", tt.in, err)
			continue
		}
		if e.Offset != tt.offset || e.ByteOffset() != tt.offset || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("Parse(%.60q) = %v; want offset %d and %q (%s)", tt.in, err, tt.offset, tt.msg, tt.ref)
		}
		if want := "invalid constraint at byte "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Parse(%.60q): %q does not start with %q", tt.in, err, want)
		}
	}
}

func TestParsePositions(t *testing.T) {
	n, err := Parse("a=1|(b=2&c=3)")
	if err != nil {
		t.Fatal(err)
	}
	or := n.(*ast.Or)
	and := or.X[1].(*ast.And)
	got := []int{or.Pos(), or.X[0].Pos(), and.Pos(), and.X[0].Pos(), and.X[1].Pos()}
	want := []int{0, 0, 4, 5, 9}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("positions = %v, want %v", got, want)
		}
	}
}

// TestSeedNode runs the seed document's examples against its node through
// the reference evaluator.
func TestSeedNode(t *testing.T) {
	extra, ok := ast.ParseExtra([]byte(`{ "a": 1.23, "b": true, "c": 0, "foo": "bar", "zed": 23 }`))
	if !ok {
		t.Fatal("seed node extra does not parse")
	}
	node := &ast.Facts{Name: "node123", HasExtra: true, Extra: extra}
	tests := []struct {
		in   string
		want bool
		ref  string
	}{
		{"a=1.23", true, "seed document: fulfilled"},
		{"a!=1.24", true, "seed document: fulfilled"},
		{"a!=1.23|foo!=blah", true, "seed document: fulfilled"},
		{"b=200", true, "seed document: fulfilled"},
		{"b=true", true, "seed document: fulfilled"},
		{"foo<baz", true, "seed document: fulfilled"},
		{"(c<=0.0001&a=1.25)|zed=23.0", true, "seed document: fulfilled"},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)", true, "seed document: fulfilled"},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)", true, "seed document: fulfilled"},
		{"a!=1.23", false, "seed document: not fulfilled"},
		{"b=0", false, "seed document: not fulfilled"},
		{"b=false", false, "seed document: not fulfilled"},
		{"foo>baz", false, "seed document: not fulfilled"},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)", false, "seed document: not fulfilled (strict 1e-5)"},
		{"c>=0.0001", false, "seed document: reminder"},
		{"c>=0.00000001", true, "seed document: reminder"},
		{"a=   b", false, "seed document: a is a number and '   b' does not parse"},
		{"b>0", true, refBool},
		{"b>false", true, refBool},
		{"b= 0.0", true, "slurm-extra-semantics.md#open-questions 6 (b= 0.0 matches): ' 0.0' fails float, forced int fails, so true"},
		{"b= 0", false, "slurm-extra-semantics.md: ' 0' is false (forced int)"},
		{"b!= 0", true, "slurm-extra-semantics.md: ' 0' is false (forced int)"},
		{"zed!=x", false, "slurm-extra-semantics.md#evaluation: unparsable number is false for !="},
		{"nokey!=1", false, "slurm-extra-semantics.md#evaluation: missing key is false for !="},
		{"foo=\"bar\"", false, refString},
		{"zed=23.00001", true, refCompare},
		{"a=1.23001", false, refCompare},
		{"zed=0x17", true, refNumber},
		{"zed>nan", true, refCompare},
		{"zed=nan", false, refCompare},
		{"zed<inf", true, refCompare},
		{"foo <baz", false, refGrammar + ": key \"foo \" is missing"},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := ast.Eval(n, node); got != tt.want {
			t.Errorf("Eval(%q) = %v, want %v (%s)", tt.in, got, tt.want, tt.ref)
		}
	}
	noExtra := &ast.Facts{Name: "node124"}
	for _, in := range []string{"a!=1", "nokey!=1", "a=1.23"} {
		n, _ := Parse(in)
		if ast.Eval(n, noExtra) {
			t.Errorf("Eval(%q) on a node without extra data = true, want false (slurm-extra-semantics.md#evaluation)", in)
		}
	}
}

const (
	refBool    = "slurm-extra-semantics.md#value-typing (bool)"
	refString  = "slurm-extra-semantics.md#value-typing (string)"
	refCompare = "slurm-extra-semantics.md#evaluation (numeric)"
	refNumber  = "slurm-extra-semantics.md#value-typing (number)"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"a=1.23", "a=1.23"},
		{"a=1,b=2&c=3", "a=1&b=2&c=3"},
		{"((a=1))", "a=1"},
		{"(a=1&b=2)&c=3", "(a=1&b=2)&c=3"},
		{"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)", "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)"},
		{"( a = b )", " a = b "},
		{"(a=1|(b=2))", "a=1|b=2"},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if got := Format(n); got != tt.want {
			t.Errorf("Format(Parse(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, n := range []ast.Node{
		&ast.Not{X: &ast.Compare{Key: "a", Op: extra.Eq, Value: "1"}},
		&ast.Const{Value: true},
		&ast.Property{Name: "a=b"},
		&ast.Hostlist{Exprs: []string{"n=1"}},
		&ast.Ranks{Ranges: []ast.RankRange{{Lo: 1, Hi: 2}}},
		&ast.And{},
		&ast.Or{X: []ast.Node{&ast.Compare{Key: "a", Op: extra.Eq, Value: "1"}, &ast.Const{}}},
	} {
		if s := Format(n); s == "" {
			t.Errorf("Format(%s) is empty", ast.Dump(n))
		} else if _, err := Parse(s); err == nil {
			t.Errorf("Format(%s) = %q parses; an inexpressible node must not", ast.Dump(n), s)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("a=1.23")
	f.Add("a=5&b=5|c=5")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(s) {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		out := Format(n)
		m, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) ok but its Format %q fails: %v", s, out, err)
		}
		if a, b := ast.Dump(n), ast.Dump(m); a != b {
			t.Fatalf("Parse(%q) = %s, but Format %q parses to %s", s, a, out, b)
		}
		if again := Format(m); again != out {
			t.Fatalf("Format is not stable: %q then %q", out, again)
		}
	})
}
