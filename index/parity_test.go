package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nodesift/sift/extra"
)

// trickyExtra are documents on which a lenient JSON reader and json-c (as
// Slurm uses it) disagree: non-RFC numbers and literals, raw control bytes,
// bad escapes, surrogates, NULs, nesting at json-c's depth limit.
var trickyExtra = []string{
	`{"a":1}`, `{"a":nan}`, `{"a":NaN}`, `{"a":-inf}`, `{"a":inf}`, `{"a":Infinity}`,
	`{"a":-Infinity}`, `{"a":01}`, `{"a":-01}`, `{"a":1.}`, `{"a":.5}`, `{"a":+1}`, `{"a":1e}`,
	`{"a":1e+}`, `{"a":1E-3}`, `{"a":-0}`, `{"a":-0.0}`, `{"a":0e0}`, `{"a":1.5e999}`,
	`{"a":-1e999}`, `{"a":1e-400}`, `{"a":9223372036854775807}`, `{"a":9223372036854775808}`,
	`{"a":-9223372036854775809}`, `{"a":99999999999999999999999}`, `{"a":0x10}`, `{"a":1_0}`,
	`{"a":--1}`, `{"a":-}`, `{"a":1.5.5}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":True}`,
	`{"a":"x` + "\x01" + `"}`, `{"a":"x` + "\t" + `"}`, `{"a` + "\n" + `":1}`, `{"a":"\x"}`,
	`{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"\uD800"}`, `{"a":"\uDC00"}`, `{"a":"\uD800\uDC00"}`,
	`{"a":"\uD83D\uDE00x"}`, `{"a":"\uD800\uD800"}`, `{"a":"\uD800\n"}`, `{"a":"\uDBFF\uDFFF"}`,
	`{"\uD800":1}`, `{"a\u0000b":"c\u0000d"}`, `{"\u0000":1}`, `{"a":"\u0000"}`, `{"a":"é\u00e9"}`,
	`{"a":"\/\\\"\b\f\n\r\t"}`, "{\"\":\"\x0f\\b0000\"}", "{\"a\x01\\n\":1}", "{\"a\\n\x01\":1}",
	"{\"a\":\"\x1f\\u0041\x02\"}", "{\"a\":\"\x1f\\u0041\"}", "{\"a\":\"\xff\xfe\"}", "{\"\xc3\":1}", `{"a":1,}`, `{,"a":1}`,
	`{"a" 1}`, `{"a":1 "b":2}`, `{a:1}`, `{'a':1}`, `{"a":1}x`, `{"a":1}}`, `{"a":1} `, " \t\r\n{\"a\":1}",
	"\f{\"a\":1}", `{"a":[1,2,]}`, `{"a":[01]}`, `{"a":{"b":nan}}`, `{"a":[inf]}`, `{"a":{"b" :1 }}`,
	`{"a":1,"a":"x"}`, `{"a":"x","a":null}`, `{"a":true,"a":false}`, `[1,2]`, `"str"`, `1`, `nan`,
	`01`, `null`, ``, ` `, `{`, `}`, `{"a"`, `{"a":`, `{"a":1`, `{"a":"`, `{"a":"\`, `{"a":"\u`,
	`{"a":[}`, `{"a":{]}`, `{"a":[1}`, `{"a":{"b":1]}`, `{"a":{"b"}}`, `{"a":{1:2}}`,
	deepDoc(30, ""), deepDoc(31, ""), deepDoc(32, ""), deepDoc(30, "1"), deepDoc(31, "1"),
	deepDoc(32, "1"), manyKeys(17), manyKeys(200), manyKeys(50000), `[` + deepDoc(31, "") + `]`, strings.Repeat("[", 40) + strings.Repeat("]", 40),
}

// manyKeys is a document with n keys, every third one repeated.
func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%d`, i-i%3*(i%2), i)
	}
	b.WriteString("}")
	return b.String()
}

// deepDoc is {"a": inside n-1 further arrays, holding inner.
func deepDoc(n int, inner string) string {
	return `{"a":` + strings.Repeat("[", n-1) + inner + strings.Repeat("]", n-1) + `}`
}

// sameValue compares numbers by value: the columns keep -0 as 0, which no
// comparison can tell apart.
func sameValue(a, b extra.Value) bool {
	if a.Kind == extra.KindNumber && b.Kind == extra.KindNumber && math.IsNaN(a.Num) && math.IsNaN(b.Num) {
		return true
	}
	return a.Kind == b.Kind && a.Str == b.Str && a.Bool == b.Bool &&
		a.Num == b.Num
}

// checkParity types each document with the index (its reader, and a built
// snapshot) and with ast.ParseExtra, and requires the same answer.
func checkParity(t *testing.T, docs [][]byte) {
	t.Helper()
	nodes := make([]Node, len(docs))
	for i, d := range docs {
		nodes[i] = Node{Name: fmt.Sprintf("n%d", i), Extra: d}
	}
	s, err := Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	var r extraReader
	for i, d := range docs {
		want, wantOK := oracleExtra(d)
		kv, gotOK := parseExtra(&r, d)
		got := map[string]extra.Value{}
		for _, m := range kv {
			if _, dup := got[m.key]; dup {
				t.Fatalf("%q: key %q twice", d, m.key)
			}
			got[m.key] = m.v
		}
		if gotOK != wantOK || s.HasExtra(uint32(i)) != wantOK {
			t.Fatalf("%q: accepted %v (snapshot %v), ast.ParseExtra %v", d, gotOK, s.HasExtra(uint32(i)), wantOK)
		}
		if _, ok := kv.get("\xffabsent"); ok != (want["\xffabsent"].Kind != extra.KindMissing) {
			t.Fatalf("%q: get disagrees on an absent key", d)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: keys %v, ast.ParseExtra %v", d, got, want)
		}
		for k, w := range want {
			if g := got[k]; !sameValue(g, w) {
				t.Fatalf("%q key %q: %+v, ast.ParseExtra %+v", d, k, g, w)
			}
			if g, _ := kv.get(k); !sameValue(g, w) {
				t.Fatalf("%q key %q: get %+v, ast.ParseExtra %+v", d, k, g, w)
			}
			if g := s.ExtraValue(uint32(i), k); !sameValue(g, w) {
				t.Fatalf("%q key %q: snapshot %+v, ast.ParseExtra %+v", d, k, g, w)
			}
		}
	}
}

func TestExtraTypingMatchesParseExtraOnTrickyDocuments(t *testing.T) {
	docs := make([][]byte, len(trickyExtra))
	for i, d := range trickyExtra {
		docs[i] = []byte(d)
	}
	checkParity(t, docs)
}

// randomDoc builds a document from JSON-ish fragments, valid and not.
func randomDoc(rng *rand.Rand) []byte {
	frags := []string{`{`, `}`, `[`, `]`, `:`, `,`, ` `, `"a"`, `"b"`, `"\u0000"`, `"\uD800"`,
		`"\uDC00"`, `"\uD800\uDC00"`, `"x\ty"`, `"\n"`, `1`, `-0`, `01`, `1.`, `1.5`, `1e5`, `nan`,
		`inf`, `-inf`, `true`, `false`, `null`, `"s"`, "\x00", "\x01", `\`, `\n`, `"`, `e`, `-`}
	var b strings.Builder
	b.WriteString(`{"k":`)
	for n := rng.IntN(12); n > 0; n-- {
		b.WriteString(frags[rng.IntN(len(frags))])
	}
	if rng.IntN(2) == 0 {
		b.WriteString(`}`)
	}
	return []byte(b.String())
}

func TestExtraTypingMatchesParseExtraOnRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	docs := make([][]byte, 20000)
	for i := range docs {
		docs[i] = randomDoc(rng)
	}
	checkParity(t, docs)
}

// FuzzIndexVsParseExtra checks that the index types any document exactly as
// ast.ParseExtra does.
func FuzzIndexVsParseExtra(f *testing.F) {
	for _, d := range trickyExtra {
		if len(d) < 4096 { // big seeds slow the mutator down
			f.Add([]byte(d))
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkParity(t, [][]byte{doc, []byte(`{"a":1}`)})
	})
}
