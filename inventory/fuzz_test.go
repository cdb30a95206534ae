package inventory

import (
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// FuzzParseNodeFile checks that no input panics and that what is accepted
// is well-formed: unique, non-empty names and ranks.
func FuzzParseNodeFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		nodes, warnings, err := ParseNodeFile("f", data)
		if err != nil {
			if nodes != nil || warnings != nil {
				t.Fatal("nodes or warnings returned with an error")
			}
			return
		}
		names := map[string]bool{}
		ranks := map[uint32]bool{}
		for _, n := range nodes {
			if n.Name == "" || names[n.Name] || ranks[n.Rank] {
				t.Fatalf("accepted a bad node %+v", n)
			}
			names[n.Name], ranks[n.Rank] = true, true
		}
	})
}

// FuzzScanJSON is the differential test of the span scanner against
// fastjson's validator: both must accept the same documents, except that
// fastjson lets some raw control characters through in strings, which RFC
// 8259 and the scanner reject.
func FuzzScanJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s := scanner{b: data}
		i := s.ws(0)
		end, serr := s.value(i, 0)
		ok := serr == nil && s.ws(end) == len(data)
		ferr := fastjson.ValidateBytes(data)
		if !ok && ferr == nil && strings.HasPrefix(serr.Msg, "control character") {
			return
		}
		if ok != (ferr == nil) {
			t.Fatalf("scanner ok=%v (%v), fastjson %v, on %q", ok, serr, ferr, data)
		}
	})
}

// FuzzParseSpec checks that no --nodes value panics and that every accepted
// one prints back to a spec that parses to the same value.
func FuzzParseSpec(f *testing.F) {
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSpec(spec)
		if err != nil {
			return
		}
		if s.Synthetic && (s.N < 1 || s.N > MaxSyntheticNodes) {
			t.Fatalf("accepted %q as %+v", spec, s)
		}
		back, err := ParseSpec(s.String())
		if err != nil || back != s {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", spec, s, s.String(), back, err)
		}
	})
}
