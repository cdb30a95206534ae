package flux

import (
	"errors"
	"testing"

	"github.com/nodesift/sift/compiler/ast"
)

func TestParseRFC31(t *testing.T) {
	tests := []struct {
		name string // the rule, and where it is written
		in   string
		want string // ast.Dump of the tree
	}{
		{"RFC31 example: property ssd", `{ "properties": [ "ssd" ] }`, `prop:"ssd"`},
		{"RFC31 example: not slowgpu by ^", `{ "properties": [ "^slowgpu" ] }`, `not(prop:"slowgpu")`},
		{"RFC31 example: not slowgpu by not", `{ "not": [ { "properties": [ "slowgpu" ] } ] }`, `not(prop:"slowgpu")`},
		{"RFC31 example: ssd or huge", `{ "or": [ { "properties": [ "ssd" ] }, { "properties": [ "huge" ] } ] }`, `or(prop:"ssd" prop:"huge")`},
		{"RFC31 example: hostlist", `{ "hostlist": [ "host[0-1]" ] }`, `hosts:"host[0-1]"`},
		{"RFC31 example: exclude hosts", `{ "not": [ { "hostlist": [ "host[0-1]" ] } ] }`, `not(hosts:"host[0-1]")`},
		{"RFC31 example: hosts and ssd", `{ "and": [ { "hostlist": [ "host[0-1]" ] }, { "properties": [ "ssd" ] } ] }`, `and(hosts:"host[0-1]" prop:"ssd")`},
		{"RFC31 example: rank 0", `{ "ranks": [ "0" ] }`, `ranks:0`},
		{"RFC31 example: not foo and bar", `{ "not": [{ "properties": [ "foo", "bar" ]}] }`, `not(and(prop:"foo" prop:"bar"))`},
		{"RFC31: {} always matches", `{}`, `true`},
		{"RFC31: empty or always matches", `{"or":[]}`, `true`},
		{"RFC31: empty and always matches", `{"and":[]}`, `true`},
		{"RFC31: empty not matches nothing", `{"not":[]}`, `false`},
		{"ref §5: empty properties is true", `{"properties":[]}`, `true`},
		{"ref §5: properties is the AND of its names", `{"properties":["a","^b","c"]}`, `and(prop:"a" not(prop:"b") prop:"c")`},
		{"ref §5: ^^bar negates the property ^bar", `{"properties":["^^bar"]}`, `not(prop:"^bar")`},
		{"ref §5: ^ inside a name is not negation", `{"properties":["f^oo","bar^"]}`, `and(prop:"f^oo" prop:"bar^")`},
		{"ref §5: ^ alone negates the empty name", `{"properties":["^"]}`, `not(prop:"")`},
		{"ref §5: empty name", `{"properties":[""]}`, `prop:""`},
		{"ref §5: + and @ are ordinary", `{"properties":["+batch","amd@gpu"]}`, `and(prop:"+batch" prop:"amd@gpu")`},
		{"ref §5: whitespace kept", `{"properties":["bar "]}`, `prop:"bar "`},
		{"ref §5: not is not of the AND", `{"not":[{"properties":["a"]},{"properties":["b"]}]}`, `not(and(prop:"a" prop:"b"))`},
		{"ref §5: hostlist strings are unioned", `{"hostlist":["a[1-2]","b3"]}`, `hosts:"a[1-2] b3"`},
		{"ref §5: hostlist non-strings ignored", `{"hostlist":["a1",42,null,{"x":1}]}`, `hosts:"a1"`},
		{"ref §5: hostlist non-array is empty", `{"hostlist":"node0"}`, `hosts:""`},
		{"ref §5: hostlist empty matches nothing", `{"hostlist":[]}`, `hosts:""`},
		{"ref §5: ranks are unioned", `{"ranks":["5-7","0,2","3"]}`, `ranks:0,2-3,5-7`},
		{"ref §5: ranks overlapping idsets union", `{"ranks":["0-4","2-9"]}`, `ranks:0-9`},
		{"ref §5: ranks non-array is empty", `{"ranks":"0"}`, `ranks:`},
		{"ref §5: ranks empty matches nothing", `{"ranks":[]}`, `ranks:`},
		{"ref §3: idset brackets and empty elements", `{"ranks":["[1,,3]","[]",""]}`, `ranks:1,3`},
		{"ref §3: largest id", `{"ranks":["2147483647"]}`, `ranks:2147483647`},
		{"ref §5: nested empty object", `{"and":[{},{"or":[]}]}`, `and(true true)`},
		{"jansson: last duplicate key wins", `{"and":[],"and":[{"properties":["x"]}]}`, `and(prop:"x")`},
		{"ref §4: hostlist quirks accepted", `{"hostlist":["foo[5-]","foo[ 5]","node[01-03]-[1-2]","foo[1]]"," a , b "]}`, `hosts:"foo[5-] foo[ 5] node[01-03]-[1-2] foo[1]]  a , b "`},
		{"JSON escapes are decoded", `{"properties":["\u00e9t\u00e9","a\/b"]}`, `and(prop:"été" prop:"a/b")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseRFC31([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseRFC31(%s): %v", tt.in, err)
			}
			if got := ast.Dump(n); got != tt.want {
				t.Errorf("ParseRFC31(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseRFC31Errors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		msg    string
		offset int
	}{
		{"ref §5: array is not an object", `[]`, "constraint must be JSON object", 0},
		{"ref §5: string is not an object", ` "x"`, "constraint must be JSON object", 1},
		{"ref §5: null is not an object", `null`, "constraint must be JSON object", 0},
		{"ref §5: two keys", `{"properties":[],"ranks":[]}`, "constraint must only contain 1 element", 0},
		{"ref §5: unknown operator", `{"foo":[]}`, "unknown constraint operator: foo", 0},
		{"ref §5: operators are case-sensitive", `{"AND":[]}`, "unknown constraint operator: AND", 0},
		{"ref §5: host alias is unknown in JSON", `{"host":["a"]}`, "unknown constraint operator: host", 0},
		{"ref §5: empty key is unknown", `{"":[]}`, "unknown constraint operator: ", 0},
		{"ref §5: and needs an array", `{"and":{}}`, "and operator value must be an array", 7},
		{"ref §5: or needs an array", `{"or":"x"}`, "or operator value must be an array", 6},
		{"ref §5: not needs an array", `{"not":null}`, "not operator value must be an array", 7},
		{"ref §5: properties needs an array", `{"properties":"x"}`, "properties value must be an array", 14},
		{"ref §5: non-string property", `{"properties":["a",1]}`, "non-string property specified", 19},
		{"ref §5: invalid property char &", `{"properties":["a&b"]}`, `invalid character '&' in property "a&b"`, 15},
		{"ref §5: first invalid char reported", `{"properties":["x|y(z"]}`, `invalid character '|' in property "x|y(z"`, 15},
		{"ref §5: ! rejected in queries", `{"properties":["^a!b"]}`, `invalid character '!' in property "^a!b"`, 15},
		{"ref §5: quote rejected", `{"properties":["a\"b"]}`, `invalid character '"' in property "a"b"`, 15},
		{"ref §5: invalid hostlist", `{"hostlist":["a1", "f["]}`, `invalid hostlist 'f[' in ["a1", "f["]`, 19},
		{"ref §4: empty bracket", `{"hostlist":["foo[]"]}`, `invalid hostlist 'foo[]' in ["foo[]"]`, 13},
		{"ref §4: descending range", `{"hostlist":["foo[1-0]"]}`, `invalid hostlist 'foo[1-0]' in ["foo[1-0]"]`, 13},
		{"ref §4: stray ]", `{"hostlist":["foo]"]}`, `invalid hostlist 'foo]' in ["foo]"]`, 13},
		{"ref §4: range over 2^20", `{"hostlist":["foo[0-1048576]"]}`, `invalid hostlist 'foo[0-1048576]' in ["foo[0-1048576]"]`, 13},
		{"ref §4: nested bracket", `{"hostlist":["foo[[1,3]"]}`, `invalid hostlist 'foo[[1,3]' in ["foo[[1,3]"]`, 13},
		{"ref §4: trailing space in bracket", `{"hostlist":["foo[5 ]"]}`, `invalid hostlist 'foo[5 ]' in ["foo[5 ]"]`, 13},
		{"ref §5: invalid idset", `{"ranks":["x"]}`, `invalid idset 'x' in ["x"]`, 10},
		{"ref §5: non-string idset", `{"ranks":[42]}`, `invalid idset '(null)' in [42]`, 10},
		{"ref §5: jansson escapes in upper case", `{"ranks":["\u001f",1]}`, "invalid idset '\x1f' in [\"\\u001F\", 1]", 10},
		{"ref §5: jansson quotes nested values", `{"ranks":[{"a":[1,2],"b":{}}]}`, `invalid idset '(null)' in [{"a": [1, 2], "b": {}}]`, 10},
		{"ref §5: jansson prints reals", `{"ranks":[1e5]}`, `invalid idset '(null)' in [100000.0]`, 10},
		{"ref §3: a-a is not a range", `{"ranks":["3-3"]}`, `invalid idset '3-3' in ["3-3"]`, 10},
		{"ref §3: out of order", `{"ranks":["0", "3,2"]}`, `invalid idset '3,2' in ["0", "3,2"]`, 15},
		{"ref §3: leading zero", `{"ranks":["01"]}`, `invalid idset '01' in ["01"]`, 10},
		{"ref §3: universe limit", `{"ranks":["2147483648"]}`, `invalid idset '2147483648' in ["2147483648"]`, 10},
		{"ref §3: no 32-bit wrap", `{"ranks":["4294967296"]}`, `invalid idset '4294967296' in ["4294967296"]`, 10},
		{"ref §3: nested brackets", `{"ranks":["[[0]]"]}`, `invalid idset '[[0]]' in ["[[0]]"]`, 10},
		{"nested errors keep their message", `{"and":[{"foo":[]}]}`, "unknown constraint operator: foo", 8},
		{"nested errors keep their message (or)", `{"or":[{"properties":["a&b"]}]}`, `invalid character '&' in property "a&b"`, 22},
		{"nested errors keep their message (not)", `{"not":[{"ranks":["x"]}]}`, `invalid idset 'x' in ["x"]`, 18},
		{"nested non-object", `{"and":[1]}`, "constraint must be JSON object", 8},
		{"invalid JSON", `{"and":[}`, "invalid JSON at byte 8: value expected", 8},
		{"JSON NUL refused like jansson", `{"properties":["a\u0000"]}`, `invalid JSON at byte 17: \u0000 is not allowed`, 17},
		{"JSON trailing text", `{} x`, "invalid JSON at byte 3: end of input expected", 3},
		{"invalid UTF-8", "{\"properties\":[\"\xff\"]}", "invalid JSON at byte 16: invalid UTF-8", 16},
		{"empty input", ``, "invalid JSON at byte 0: value expected", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseRFC31([]byte(tt.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("ParseRFC31(%s) = %v, %v; want error %q", tt.in, n, err, tt.msg)
			}
			if e.Error() != tt.msg || e.ByteOffset() != tt.offset {
				t.Errorf("ParseRFC31(%s) error = %q at %d, want %q at %d", tt.in, e.Error(), e.ByteOffset(), tt.msg, tt.offset)
			}
		})
	}
}
