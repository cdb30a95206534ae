package flux

import (
	"testing"

	"github.com/nodesift/sift/compiler/ast"
)

// FuzzParseRFC31 checks that no input makes the RFC 31 parser panic, that
// every error carries an offset inside the input, and that every accepted
// constraint reads back to the same tree from FormatRFC31.
func FuzzParseRFC31(f *testing.F) {
	f.Add([]byte(`{"and":[{"hostlist":["fluke[10-20]"]},{"properties":["^debug"]}]}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		n, err := ParseRFC31(text)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Offset < 0 || e.Offset > len(text) {
				t.Fatalf("ParseRFC31(%q): bad error %#v", text, err)
			}
			return
		}
		roundTrip(t, n)
	})
}

// FuzzParseRequires checks that no input makes the --requires parser
// panic and that every accepted expression round-trips through FormatRFC31.
func FuzzParseRequires(f *testing.F) {
	f.Add("a b|c")
	f.Fuzz(func(t *testing.T, text string) {
		n, err := ParseRequires(text)
		if err != nil {
			if e, ok := err.(*RequiresError); ok && (e.Offset < 0 || e.Offset > len(text)) {
				t.Fatalf("ParseRequires(%q): offset %d out of range", text, e.Offset)
			}
			return
		}
		roundTrip(t, n)
	})
}

func roundTrip(t *testing.T, n ast.Node) {
	t.Helper()
	js := FormatRFC31(n)
	back, err := ParseRFC31([]byte(js))
	if err != nil {
		t.Fatalf("FormatRFC31 gave %s, which does not parse: %v", js, err)
	}
	if got, want := ast.Dump(back), ast.Dump(n); got != want {
		t.Fatalf("round trip through %s: got %s, want %s", js, got, want)
	}
}
