package ast

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/nodesift/sift/extra"
	"github.com/valyala/fastjson"
)

const (
	refBool    = "slurm-extra-semantics.md#value-typing (request side, bool)"
	refCompare = "slurm-extra-semantics.md#evaluation (numeric comparison)"
	refNode    = "slurm-extra-semantics.md#value-typing (node side)"
	refString  = "slurm-extra-semantics.md#value-typing (request side, string)"
	refMissing = "slurm-extra-semantics.md#evaluation (missing key, invalid comparison)"
)

func TestSlurmBool(t *testing.T) {
	tests := []struct {
		in   string
		want bool
		ref  string
	}{
		// Step 1: null-ish.
		{"", false, refBool + " step 1"},
		{"~", false, refBool + " step 1"},
		{"~anything", false, refBool + " step 1"},
		{"null", false, refBool + " step 1"},
		{"NuLL", false, refBool + " step 1"},
		// Step 2: integers, non-forced.
		{"0", false, refBool + " step 2"},
		{"00", false, refBool + " step 2"},
		{"-0", false, refBool + " step 2"},
		{"+0", false, refBool + " step 2"},
		{"0x0", false, refBool + " step 2"},
		{"0X000", false, refBool + " step 2"},
		{"1", true, refBool + " step 2"},
		{"200", true, refBool + " step 2"},
		{"-1", true, refBool + " step 2"},
		{"0x1", true, refBool + " step 2"},
		{"99999999999999999999999", true, refBool + " step 2 out of range, then float"},
		{"0xffffffffffffffffffffff", true, refBool + " step 2 out of range, then float"},
		// Step 3: floats.
		{"0.0", false, refBool + " step 3"},
		{"0e5", false, refBool + " step 3"},
		{"-0.", false, refBool + " step 3"},
		{"0x0p3", false, refBool + " step 3"},
		{"1e-400", false, refBool + " step 3: underflow is zero"},
		{"0.5", true, refBool + " step 3"},
		{"nan", true, refBool + " step 3: NaN != 0"},
		{"inf", true, refBool + " step 3"},
		{"1e", true, refBool + " step 3"},
		// Step 4: integers, forced, leading white space allowed.
		{" 0", false, refBool + " step 4"},
		{"\t\n-0", false, refBool + " step 4"},
		{" 1", true, refBool + " step 4"},
		{"0 ", true, refBool + " step 4: trailing junk fails, so step 6"},
		// Step 5: words.
		{"n", false, refBool + " step 5"},
		{"No", false, refBool + " step 5"},
		{"f", false, refBool + " step 5"},
		{"FALSE", false, refBool + " step 5"},
		{"false", false, refBool + " step 5"},
		{"off", false, refBool + " step 5"},
		{"OFF", false, refBool + " step 5"},
		{"y", true, refBool + " step 5"},
		{"yes", true, refBool + " step 5"},
		{"t", true, refBool + " step 5"},
		{"True", true, refBool + " step 5"},
		{"on", true, refBool + " step 5"},
		// Step 6: anything else.
		{"xyz", true, refBool + " step 6"},
		{"fals", true, refBool + " step 6"},
		{`"false"`, true, refBool + " step 6: quotes are literal"},
		{"0x", true, refBool + " step 6"},
		{" false", true, refBool + " step 6"},
		{"nul", true, refBool + " step 6"},
		{"fal\u017fe", true, refBool + " step 6: tolower folds ASCII only"},
		{"FALSE\u212a", true, refBool + " step 6"},
	}
	for _, tt := range tests {
		if got := SlurmBool(tt.in); got != tt.want {
			t.Errorf("SlurmBool(%q) = %v, want %v (%s)", tt.in, got, tt.want, tt.ref)
		}
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

var forcedZeroModel = regexp.MustCompile(`^[ \t\n\v\f\r]*[+-]?0+$|^0[xX]0+$`)

// FuzzSlurmBool checks SlurmBool against the reference's summary: the only
// false values are null-ish, numeric zero and five words.
func FuzzSlurmBool(f *testing.F) {
	for _, s := range []string{"", "~", "null", "0", " 0", "0x0", "0.0", "no", "off", "xyz", "0x", "0 ", "nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		num, isNum := SlurmNumber(s)
		word := asciiLower(s)
		want := !(s == "" || s[0] == '~' || word == "null" ||
			isNum && num == 0 || forcedZeroModel.MatchString(s) ||
			word == "n" || word == "no" || word == "f" || word == "false" || word == "off")
		if got := SlurmBool(s); got != want {
			t.Fatalf("SlurmBool(%q) = %v, model %v", s, got, want)
		}
	})
}

func TestParseExtra(t *testing.T) {
	tests := []struct {
		raw  string
		ok   bool
		want map[string]extra.Value
		ref  string
	}{
		{`{ "a": 1.23, "b": true, "c": 0, "foo": "bar", "zed": 23 }`, true, map[string]extra.Value{
			"a": {Kind: extra.KindNumber, Num: 1.23}, "b": {Kind: extra.KindBool, Bool: true}, "c": {Kind: extra.KindNumber},
			"foo": {Kind: extra.KindString, Str: "bar"}, "zed": {Kind: extra.KindNumber, Num: 23},
		}, refNode},
		{`{"a":1,"a":"x"}`, true, map[string]extra.Value{"a": {Kind: extra.KindString, Str: "x"}}, refNode + ": last duplicate wins"},
		{`{"n":null,"o":{"x":1},"l":[1],"f":false}`, true, map[string]extra.Value{
			"n": {Kind: extra.KindUnusable}, "o": {Kind: extra.KindUnusable}, "l": {Kind: extra.KindUnusable}, "f": {Kind: extra.KindBool},
		}, refNode},
		{`{"s":"5"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "5"}}, refNode + ": no re-detection"},
		{`{"k\u0000x":"ab\u0000cd"}`, true, map[string]extra.Value{"k": {Kind: extra.KindString, Str: "ab"}}, refNode + ": C strings end at NUL"},
		{`{"s":"\ud800"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "\ufffd"}}, refSurrogate + ": lone high"},
		{`{"s":"\udc00x"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "\ufffdx"}}, refSurrogate + ": lone low"},
		{`{"s":"\ud800\u0041"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "\ufffdA"}}, refSurrogate + ": high then non-surrogate"},
		{`{"s":"\ud800\ud800"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "\ufffd\ufffd"}}, refSurrogate + ": two highs"},
		{`{"s":"\ud800\n"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "\ufffd\n"}}, refSurrogate + ": high then other escape"},
		{`{"s":"\ud83d\ude00"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "\U0001F600"}}, refSurrogate + ": pair"},
		{"{\"s\":\"\xff\xfe\"}", true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "\xff\xfe"}}, refSurrogate + ": raw bytes kept"},
		{`{"s":"a\/b\\c\"d\te"}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: "a/b\\c\"d\te"}}, refNode},
		{`{"big":99999999999999999999}`, true, map[string]extra.Value{"big": {Kind: extra.KindNumber, Num: math.MaxInt64}}, refNode + ": clamped at INT64_MAX"},
		{`{"neg":-99999999999999999999}`, true, map[string]extra.Value{"neg": {Kind: extra.KindNumber, Num: math.MinInt64}}, refNode + ": clamped at INT64_MIN"},
		{`{"p":9007199254740993}`, true, map[string]extra.Value{"p": {Kind: extra.KindNumber, Num: 9007199254740992}}, refNode + ": 2^53+1 rounds"},
		{`{"r":1e999,"m":-1e999,"z":1e-400}`, true, map[string]extra.Value{
			"r": {Kind: extra.KindNumber, Num: math.Inf(1)}, "m": {Kind: extra.KindNumber, Num: math.Inf(-1)}, "z": {Kind: extra.KindNumber},
		}, refNode + ": strtod overflow"},
		{`{"i":-0,"e":1E2}`, true, map[string]extra.Value{"i": {Kind: extra.KindNumber}, "e": {Kind: extra.KindNumber, Num: 100}}, refNode},
		{`[1,2]`, true, map[string]extra.Value{}, "slurm-extra-semantics.md#evaluation: non-object top level misses every key"},
		{`"x"`, true, map[string]extra.Value{}, "slurm-extra-semantics.md#evaluation"},
		{`5`, true, map[string]extra.Value{}, "COMPATIBILITY.md: json-c fails on a bare number; both match nothing"},
		{``, false, nil, "slurm-extra-semantics.md#rejections (node side)"},
		{`  `, false, nil, "slurm-extra-semantics.md#rejections (node side)"},
		{`{"a":1,}`, false, nil, "COMPATIBILITY.md: strict JSON, no trailing commas"},
		{`{'a':1}`, false, nil, "COMPATIBILITY.md: strict JSON, no single quotes"},
		{`{"a":NaN}`, false, nil, "COMPATIBILITY.md: strict JSON, no NaN"},
		{`{"a":Infinity}`, false, nil, "COMPATIBILITY.md: strict JSON, no Infinity"},
		{`{"a":TRUE}`, false, nil, "COMPATIBILITY.md: strict JSON, case-sensitive literals"},
		{`{"a":1} x`, false, nil, "COMPATIBILITY.md: strict JSON, no trailing garbage"},
		{`{"a":1 /* c */}`, false, nil, "COMPATIBILITY.md: strict JSON, no comments"},
		{`{"a":01}`, false, nil, "COMPATIBILITY.md: strict JSON"},
		{"{\"a\":\"x\ty\"}", false, nil, "COMPATIBILITY.md: strict JSON, no raw control characters"},
		{strings.Repeat("[", 400) + strings.Repeat("]", 400), false, nil, refDepth},
		{`{"a":1,"x":` + nested(30, "1") + `}`, true, map[string]extra.Value{"a": {Kind: extra.KindNumber, Num: 1}, "x": {Kind: extra.KindUnusable}}, refDepth + ": a value inside 31 containers"},
		{`{"a":1,"x":` + nested(31, "1") + `}`, false, nil, refDepth + ": a value inside 32 containers"},
		{`{"x":` + nested(31, "") + `}`, true, map[string]extra.Value{"x": {Kind: extra.KindUnusable}}, refDepth + ": an empty container inside 31"},
		{`{"x":` + nested(32, "") + `}`, false, nil, refDepth + ": an empty container inside 32"},
		{`{"s":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"[["}`, true, map[string]extra.Value{"s": {Kind: extra.KindString, Str: `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["[[`}}, refDepth + ": brackets in strings do not nest"},
	}
	for _, tt := range tests {
		got, ok := ParseExtra([]byte(tt.raw))
		if ok != tt.ok || !sameValues(got, tt.want) {
			t.Errorf("ParseExtra(%.40q) = %v, %v; want %v, %v (%s)", tt.raw, got, ok, tt.want, tt.ok, tt.ref)
		}
	}
}

const refSurrogate = "json-c json_tokener_state_escape_unicode, probed with libjson-c 0.16"

const refDepth = "json-c JSON_TOKENER_DEFAULT_DEPTH (32), probed with libjson-c 0.16"

func nested(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

func sameValues(a, b map[string]extra.Value) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Kind != w.Kind || v.Str != w.Str || v.Bool != w.Bool || !sameFloat(v.Num, w.Num) {
			return false
		}
	}
	return true
}

func TestValueMatch(t *testing.T) {
	num := func(f float64) extra.Value { return extra.Value{Kind: extra.KindNumber, Num: f} }
	str := func(s string) extra.Value { return extra.Value{Kind: extra.KindString, Str: s} }
	boolean := func(b bool) extra.Value { return extra.Value{Kind: extra.KindBool, Bool: b} }
	all := []extra.Op{extra.Eq, extra.Ne, extra.Lt, extra.Le, extra.Gt, extra.Ge}
	tests := []struct {
		v    extra.Value
		req  string
		want string // the operators that hold, in the order = != < <= > >=
		ref  string
	}{
		{num(5), "5.00001", "= <= >=", refCompare},
		{num(5), "4.99999", "= <= >=", refCompare},
		{num(1.23), "1.23001", "!= < <=", refCompare},
		{num(5), "nan", "!= > >=", refCompare + ": NaN is GT"},
		{num(math.NaN()), "5", "!= > >=", refCompare},
		{num(math.Inf(1)), "inf", "!= > >=", refCompare + ": Inf-Inf is NaN"},
		{num(math.Inf(1)), "1e999", "!= > >=", refCompare},
		{num(5), "inf", "!= < <=", refCompare},
		{num(math.Inf(-1)), "-Infinity", "!= > >=", refCompare},
		{num(9007199254740992), "9007199254740993", "= <= >=", refCompare + ": 2^53+1"},
		{num(math.MaxInt64), "9223372036854775807", "= <= >=", refCompare + ": clamped int"},
		{num(16), "0x10", "= <= >=", refNumber},
		{num(1), "1e", "= <= >=", refNumber},
		{num(5), "5abc", "", refMissing + ": unparsable number"},
		{num(5), " 5", "", refMissing + ": unparsable number"},
		{num(5), "true", "", refMissing},
		{boolean(true), "200", "= <= >=", refBool},
		{boolean(true), "0", "!= > >=", refBool + ": b>0 matches true"},
		{boolean(true), "false", "!= > >=", refBool},
		{boolean(false), "true", "!= < <=", refBool},
		{boolean(false), "xyz", "!= < <=", refBool},
		{boolean(false), " 0", "= <= >=", refBool},
		{str("bar"), "baz", "!= < <=", refString},
		{str("bar"), "bar", "= <= >=", refString},
		{str("bar"), `"bar"`, "!= > >=", refString + ": quotes are literal"},
		{str("10"), "9", "!= < <=", refString + ": byte-wise"},
		{str("B"), "a", "!= < <=", refString + ": case-sensitive"},
		{str("\xff"), "a", "!= > >=", refString + ": unsigned bytes"},
		{str(""), "a", "!= < <=", refString},
		{extra.Value{}, "1", "", refMissing + ": missing key, != included"},
		{extra.Value{Kind: extra.KindUnusable}, "1", "", refMissing + ": null, object, list"},
	}
	for _, tt := range tests {
		var got []string
		for _, op := range all {
			if Match(tt.v, op, tt.req) {
				got = append(got, op.String())
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%+v vs %q: holds for %q, want %q (%s)", tt.v, tt.req, g, tt.want, tt.ref)
		}
	}
}

// FuzzParseExtra checks that ParseExtra never panics, accepts only what
// fastjson validates, and types every key of an accepted object.
func FuzzParseExtra(f *testing.F) {
	for _, s := range []string{`{"a":1.23,"b":true,"c":0,"foo":"bar","zed":23}`, `{"a":1,"a":"x"}`, `[1]`, `5`, ``,
		`{"s":"\ud800"}`, `{"k\u0000":null}`, `{"x":[[[{}]]]}`, `{"a":1e999}`, `{"a":-99999999999999999999}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, ok := ParseExtra(raw)
		if !ok {
			return
		}
		if fastjson.ValidateBytes(raw) != nil {
			t.Fatalf("ParseExtra(%q) accepted invalid JSON", raw)
		}
		for k, v := range m {
			if v.Kind == extra.KindMissing || strings.IndexByte(k, 0) >= 0 || strings.IndexByte(v.Str, 0) >= 0 {
				t.Fatalf("ParseExtra(%q): bad entry %q: %+v", raw, k, v)
			}
		}
	})
}
