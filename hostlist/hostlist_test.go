package hostlist

import (
	"errors"
	"strings"
	"testing"
)

// parseRow is one parse case: want is the compressed form and hosts the
// expansion joined by spaces ("" for none), or err the error class.
type parseRow struct {
	in    string
	want  string // "-": not checked
	hosts string
	count int
	err   error
}

func checkParse(t *testing.T, d Dialect, rows []parseRow) {
	t.Helper()
	for _, tt := range rows {
		l, err := Parse(d, tt.in)
		if tt.err != nil {
			var e *Error
			if !errors.Is(err, tt.err) || !errors.As(err, &e) {
				t.Errorf("%v Parse(%q) error = %v, want %v", d, tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v Parse(%q): %v", d, tt.in, err)
			continue
		}
		if got := l.String(); tt.want != "-" && got != tt.want {
			t.Errorf("%v Parse(%q).String() = %q, want %q", d, tt.in, got, tt.want)
		}
		if tt.count != 0 && l.Count() != tt.count {
			t.Errorf("%v Parse(%q).Count() = %d, want %d", d, tt.in, l.Count(), tt.count)
		}
		if tt.hosts != "" || tt.count == 0 {
			hs, err := l.Expand(1000)
			if err != nil {
				t.Errorf("%v Parse(%q).Expand: %v", d, tt.in, err)
				continue
			}
			if got := strings.Join(hs, " "); got != tt.hosts {
				t.Errorf("%v Parse(%q).Expand() = %q, want %q", d, tt.in, got, tt.hosts)
			}
		}
	}
}

func TestParseFluxFollowsLibhostlist(t *testing.T) {
	checkParse(t, Flux, []parseRow{
		// RFC 29 test vectors.
		{in: "foo[1-3]", want: "foo[1-3]", hosts: "foo1 foo2 foo3"},
		{in: "foo[1,2,3]", want: "foo[1-3]", hosts: "foo1 foo2 foo3"},
		{in: "foo[3,2,1]", want: "foo[3,2,1]", hosts: "foo3 foo2 foo1"},
		{in: "foo[2,2,2]", want: "foo[2,2,2]", hosts: "foo2 foo2 foo2"},
		{in: "foo1,foo2,foo3", want: "foo[1-3]", hosts: "foo1 foo2 foo3"},
		{in: "foo[1-2]-eth0", want: "foo1-eth0,foo2-eth0", hosts: "foo1-eth0 foo2-eth0"},
		{in: "[1-3]", want: "[1-3]", hosts: "1 2 3"},
		{in: "foo", want: "foo", hosts: "foo"},
		{in: "foo1-bar,foo2-bar", want: "foo1-bar,foo2-bar", hosts: "foo1-bar foo2-bar"},
		// Each element keeps its own width (RFC says the first one's applies).
		{in: "foo[005,4,11-13]", want: "foo[005,4,11-13]", hosts: "foo005 foo4 foo11 foo12 foo13"},
		// Separators.
		{in: "foo1 foo2", want: "foo[1-2]", hosts: "foo1 foo2"},
		{in: "foo1\tfoo2", want: "foo[1-2]", hosts: "foo1 foo2"},
		{in: ",1,2,", want: "[1-2]", hosts: "1 2"},
		{in: "foo1,,foo2", want: "foo[1-2]", hosts: "foo1 foo2"},
		{in: "  foo1 , foo2  ", want: "foo[1-2]", hosts: "foo1 foo2"},
		{in: "", want: "", hosts: ""},
		{in: " , ", want: "", hosts: ""},
		{in: "foo[1, 2]", want: "foo[1,02]", hosts: "foo1 foo02"},
		// Plain tokens.
		{in: "foo007", want: "foo007", hosts: "foo007"},
		{in: "007", want: "007", hosts: "007"},
		{in: "foo99999999999999999999", want: "", hosts: ""},
		{in: "a,foo99999999999999999999,b", want: "a,b", hosts: "a b"},
		{in: "foo]", err: ErrInvalid},
		{in: "foo[", err: ErrInvalid},
		// Brackets.
		{in: "[]", err: ErrInvalid},
		{in: "foo[]", err: ErrInvalid},
		{in: "foo[1,,2]", err: ErrInvalid},
		{in: "foo[1,]", err: ErrInvalid},
		{in: "foo[1-0]", err: ErrInvalid},
		{in: "foo[2--5]", err: ErrInvalid},
		{in: "foo[x-y]", err: ErrInvalid},
		{in: "foo[-5]", err: ErrInvalid},
		{in: "foo[5 ]", err: ErrInvalid},
		{in: "foo[[1,3]", err: ErrInvalid},
		{in: "foo[1-2-3]", err: ErrInvalid},
		{in: "foo[1a]", err: ErrInvalid},
		{in: "foo[0x10]", err: ErrInvalid},
		{in: "foo[5-]", want: "foo5", hosts: "foo5"},
		{in: "foo[1,3-]", want: "foo[1,3]", hosts: "foo1 foo3"},
		{in: "foo[ 5]", want: "foo05", hosts: "foo05"},
		{in: "foo[+5]", want: "foo05", hosts: "foo05"},
		{in: "foo[1a-3]", want: "foo[01-03]", hosts: "foo01 foo02 foo03"},
		{in: "foo[1-1]", want: "foo1", hosts: "foo1"},
		{in: "[00-2]", want: "[00-02]", hosts: "00 01 02"},
		{in: "[0-10]", want: "[0-10]", hosts: "0 1 2 3 4 5 6 7 8 9 10"},
		{in: "foo[01-100]", want: "foo[01-100]", count: 100},
		{in: "foo[0-1048575]", want: "foo[0-1048575]", count: 1 << 20},
		{in: "foo[0-1048576]", err: ErrRange},
		{in: "foo[0-18446744073709551615]", err: ErrRange},
		{in: "foo[99999999999999999999]", want: "foo18446744073709551615", hosts: "foo18446744073709551615"},
		// Suffixes make opaque hosts; only the first bracket expands.
		{in: "node[01-03]-[1-2]", want: "node01-[1-2],node02-[1-2],node03-[1-2]", hosts: "node01-[1-2] node02-[1-2] node03-[1-2]"},
		{in: "foo[1]]", want: "foo1]", hosts: "foo1]"},
		{in: "foo[0-4]-eth2", want: "foo0-eth2,foo1-eth2,foo2-eth2,foo3-eth2,foo4-eth2", count: 5},
		{in: "foo[1-2]3", want: "foo13,foo23", hosts: "foo13 foo23"},
		// Merging and width compatibility.
		{in: "foo1,foo2", want: "foo[1-2]", hosts: "foo1 foo2"},
		{in: "foo2,foo1", want: "foo[2,1]", hosts: "foo2 foo1"},
		{in: "foo1,foo1,foo1", want: "foo[1,1,1]", hosts: "foo1 foo1 foo1"},
		{in: "foo9,foo10", want: "foo[9-10]", hosts: "foo9 foo10"},
		{in: "foo09,foo10", want: "foo[09-10]", hosts: "foo09 foo10"},
		{in: "foo9,foo010", want: "foo[9,010]", hosts: "foo9 foo010"},
		{in: "foo01,foo1", want: "foo[01,1]", hosts: "foo01 foo1"},
		{in: "foo[1-3],bar,foo[4-5]", want: "foo[1-3],bar,foo[4-5]", count: 6},
		{in: "a,a", want: "a,a", hosts: "a a"},
		{in: "foo1,foo", want: "foo1,foo", hosts: "foo1 foo"},
	})
}

func TestParseSlurmFollowsHostlistC(t *testing.T) {
	checkParse(t, Slurm, []parseRow{
		{in: "node[1-3]", want: "node[1-3]", hosts: "node1 node2 node3"},
		{in: "node007", want: "node007", hosts: "node007"},
		{in: "a b\tc\nd,e", want: "a,b,c,d,e", hosts: "a b c d e"},
		{in: "a\rb", want: "a\rb", hosts: "a\rb"},
		{in: "", want: "", hosts: ""},
		{in: " ,\n", want: "", hosts: ""},
		{in: "node[1,2]", want: "node[1-2]", hosts: "node1 node2"},
		// Suffix and cross product; the last '[' splits.
		{in: "a[1-2]b", want: "a1b,a2b", hosts: "a1b a2b"},
		{in: "r[1-2]n[1-2]", want: "r1n[1-2],r2n[1-2]", hosts: "r1n1 r1n2 r2n1 r2n2"},
		{in: "r[1-2]n[1-2]x", want: "r1n1x,r1n2x,r2n1x,r2n2x", count: 4},
		{in: "a[1-2]b[3]c[4-5]", want: "a1b3c[4-5],a2b3c[4-5]", hosts: "a1b3c4 a1b3c5 a2b3c4 a2b3c5"},
		{in: "a[b[1-2]", want: "a[b[1-2]", hosts: "a[b1 a[b2"},
		{in: "a[0-1]b[0-65535]c[1]", want: "-", count: 131072},
		// Widths.
		{in: "[001-010]", want: "[001-010]", count: 10},
		{in: "[1-010]", want: "[1-10]", count: 10},
		{in: "[01-100]", want: "[01-100]", count: 100},
		{in: "a[+1]", want: "a01", hosts: "a01"},
		{in: "a[1, 2]", want: "a[1,02]", hosts: "a1 a02"},
		{in: "a[5-]", want: "a5", hosts: "a5"},
		{in: "a[1a-3]", want: "a[01-03]", hosts: "a01 a02 a03"},
		// Invalid lists.
		{in: "a[]", err: ErrInvalid},
		{in: "a[1,]", err: ErrInvalid},
		{in: "a[,1]", err: ErrInvalid},
		{in: "a[1,,2]", err: ErrInvalid},
		{in: "a[1x2]", err: ErrInvalid},
		{in: "a[1--2]", err: ErrInvalid},
		{in: "a[-1]", err: ErrInvalid},
		{in: "a[1-2-3]", err: ErrInvalid},
		{in: "a[1a]", err: ErrInvalid},
		{in: "a[2-1]", err: ErrInvalid},
		{in: "a[1", err: ErrInvalid},
		{in: "a[x]b[1]", err: ErrInvalid},
		{in: "a[0-65535]", want: "a[0-65535]", count: 65536},
		{in: "a[0-65536]", err: ErrRange},
		{in: "a[0-65536]b[1]", err: ErrInvalid},
		{in: "a[0-40000,0-40000]b[1]", err: ErrInvalid},
		// A plain token with ']' is a host.
		{in: "a]b", want: "a]b", hosts: "a]b"},
		{in: "foo99999999999999999999", want: "foo18446744073709551615", hosts: "foo18446744073709551615"},
		// Merging.
		{in: "n9,n10", want: "n[9-10]", hosts: "n9 n10"},
		{in: "n1,n02", want: "n[1,02]", hosts: "n1 n02"},
		{in: "n[1,02]", want: "n[1,02]", hosts: "n1 n02"},
		{in: "n1,n1", want: "n[1,1]", hosts: "n1 n1"},
		{in: "n2,n1", want: "n[2,1]", hosts: "n2 n1"},
		{in: "n5,m1,n6", want: "n5,m1,n6", hosts: "n5 m1 n6"},
	})
}

func TestSlurmDropsPrefixErrorsBelowTheFirstLevel(t *testing.T) {
	// _push_range_list ignores a failing recursive call.
	l, err := Parse(Slurm, "a[x]b[1]c[1-2],d")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != "d" {
		t.Fatalf("got %q, want %q", got, "d")
	}
}

func TestFluxTruncatesLongPlainTokens(t *testing.T) {
	long := strings.Repeat("a", 1500)
	l, err := Parse(Flux, long)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != long[:1023] {
		t.Fatalf("got %d bytes, want 1023", len(got))
	}
}

func TestFluxLimitsElementsPerBracket(t *testing.T) {
	elems := make([]string, FluxMaxElements+1)
	for i := range elems {
		elems[i] = "1"
	}
	if _, err := Parse(Flux, "a["+strings.Join(elems[:FluxMaxElements], ",")+"]"); err != nil {
		t.Fatalf("%d elements: %v", FluxMaxElements, err)
	}
	if _, err := Parse(Flux, "a["+strings.Join(elems, ",")+"]"); !errors.Is(err, ErrRange) {
		t.Fatalf("%d elements: err = %v, want ErrRange", FluxMaxElements+1, err)
	}
}

func TestParseErrorsCarryOffsets(t *testing.T) {
	tests := []struct {
		d      Dialect
		in     string
		offset int
	}{
		{Flux, "a,foo]", 5},
		{Flux, "a,foo[1,x]", 8},
		{Flux, "a,foo[1", 5},
		{Slurm, "a,b[1,x]", 6},
		{Slurm, "a,b[1-0]", 4},
	}
	for _, tt := range tests {
		_, err := Parse(tt.d, tt.in)
		var e *Error
		if !errors.As(err, &e) || e.ByteOffset() != tt.offset {
			t.Errorf("%v Parse(%q) = %v, want offset %d", tt.d, tt.in, err, tt.offset)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		d          Dialect
		list, host string
		want       int
	}{
		{Flux, "foo[0-10]", "foo01", -1},
		{Flux, "foo[0-10]", "foo1", 1},
		{Flux, "foo[00-10]", "foo5", -1},
		{Flux, "foo[00-10]", "foo05", 5},
		{Flux, "node[08-10]", "node9", -1},
		{Flux, "node[08-10]", "node09", 1},
		{Flux, "f00[7-8]", "f007", 0},
		{Flux, "f00[7-8]", "f008", 1},
		{Flux, "f00[7-8]", "f7", -1},
		{Flux, "f00[7-8]", "f07", -1},
		{Flux, "f00[7-8]", "f00", -1},
		{Flux, "foo[9-10]", "foo10", 1},
		{Flux, "foo[01-100]", "foo100", 99},
		{Flux, "foo[01-100]", "foo0100", -1},
		{Flux, "foo,foo", "foo", 0},
		{Flux, "a,b,c", "c", 2},
		{Flux, "a,b,c", "C", -1},
		{Flux, "a[1-3],b", "b", 3},
		{Flux, "foo[1-2]-eth0", "foo2-eth0", 1},
		{Flux, "foo[1]]", "foo1]", -1},
		{Flux, "foo[0-1048575]", "foo1048575", 1048575},
		{Flux, "foo[99999999999999999999]", "foo18446744073709551615", 0},
		{Flux, "x1[000000000-000000002]", "x1000000001", 1},
		{Flux, "x1[0000000000-0000000002]", "x10000000001", -1},
		{Flux, "", "a", -1},
		{Slurm, "node[00-10]", "node05", 5},
		{Slurm, "node[00-10]", "node5", -1},
		{Slurm, "node[1-10]", "node10", 9},
		{Slurm, "f00[7-8]", "f007", 0},
		{Slurm, "f00[7-8]", "f07", -1},
		{Slurm, "nid0000[2-7]", "nid00002", 0},
		{Slurm, "a,b", "b", 1},
		{Slurm, "a1b3", "a1b3", 0},
		{Slurm, "x,a[1-2]b3", "a2b3", 5},
		{Slurm, "node[00-10]", "nodeX5", 0},
		{Slurm, "n1[0-5]", "n1", 0},
		{Slurm, "x1[0000000000-0000000002]", "x10000000001", 1},
	}
	for _, tt := range tests {
		l, err := Parse(tt.d, tt.list)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.list, err)
		}
		if got := l.Find(tt.host); got != tt.want {
			t.Errorf("%v %q Find(%q) = %d, want %d", tt.d, tt.list, tt.host, got, tt.want)
		}
	}
}

func TestSortAndUniq(t *testing.T) {
	tests := []struct {
		d                Dialect
		in, sorted, uniq string
	}{
		{Slurm, "n3,n1,n2", "n[1-3]", "n[1-3]"},
		{Slurm, "n1,n1", "n[1,1]", "n1"},
		{Slurm, "n1,n1,n2", "n[1,1-2]", "n[1-2]"},
		{Slurm, "n[5-7],n[6-8]", "n[5-6,6-7,7-8]", "n[5-8]"},
		{Slurm, "n10,n9,a1", "a1,n[9-10]", "a1,n[9-10]"},
		{Slurm, "n1,n", "n,n1", "n,n1"},
		{Slurm, "b,a,b", "a,b,b", "a,b"},
		{Slurm, "rack10-n1,rack9-n1", "rack9-n1,rack10-n1", "rack9-n1,rack10-n1"},
		{Slurm, "n02,n1", "n[1,02]", "n[1,02]"},
		{Slurm, "n[1-3],n[2-5]", "n[1-2,2-3,3-5]", "n[1-5]"},
		{Flux, "rack10-n1,rack9-n1", "rack10-n1,rack9-n1", "rack10-n1,rack9-n1"},
		{Flux, "n3,n1,n2", "n[1-3]", "n[1-3]"},
		{Flux, "n1,n1", "n[1,1]", "n1"},
		{Flux, "n[5-7],n[6-8]", "n[5-6,6-7,7-8]", "n[5-8]"},
		{Flux, "b,a,b", "a,b,b", "a,b"},
		{Flux, "n1,n", "n,n1", "n,n1"},
		{Flux, "", "", ""},
	}
	for _, tt := range tests {
		l, err := Parse(tt.d, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Sort(); err != nil {
			t.Fatal(err)
		}
		if got := l.String(); got != tt.sorted {
			t.Errorf("%v sort %q = %q, want %q", tt.d, tt.in, got, tt.sorted)
		}
		l, _ = Parse(tt.d, tt.in)
		l.Uniq()
		if got := l.String(); got != tt.uniq {
			t.Errorf("%v uniq %q = %q, want %q", tt.d, tt.in, got, tt.uniq)
		}
	}
}

func TestCompress(t *testing.T) {
	tests := []struct {
		d     Dialect
		names []string
		want  string
	}{
		{Flux, []string{"foo1", "foo2", "foo3"}, "foo[1-3]"},
		{Flux, []string{"foo2", "foo1"}, "foo[2,1]"},
		{Flux, []string{"foo0-eth2", "foo1-eth2"}, "foo0-eth2,foo1-eth2"},
		{Flux, []string{"foo9", "foo10", "bar"}, "foo[9-10],bar"},
		{Flux, []string{"foo99999999999999999999"}, "foo99999999999999999999"},
		{Slurm, []string{"n1", "n1"}, "n[1,1]"},
		{Slurm, nil, ""},
	}
	for _, tt := range tests {
		if got := Compress(tt.d, tt.names); got != tt.want {
			t.Errorf("%v Compress(%q) = %q, want %q", tt.d, tt.names, got, tt.want)
		}
	}
}

func TestExpandRefusesPastTheLimit(t *testing.T) {
	l, err := Parse(Flux, "foo[0-1048575]")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Expand(1000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if l.Count() != 1<<20 {
		t.Fatalf("Count = %d", l.Count())
	}
}

func TestQueriesAreIndependentOfRangeLength(t *testing.T) {
	for _, in := range []string{"node[1-100000]", "node[0-1048575]", "node[000001-999999]"} {
		l, err := Parse(Flux, in)
		if err != nil {
			t.Fatal(err)
		}
		if qs := l.Queries(); len(qs) > 20 {
			t.Errorf("%q: %d queries", in, len(qs))
		}
	}
	l, _ := Parse(Flux, "node[1-100000]")
	want := []Query{
		{Alpha: "node", Digits: 1, Lo: 1, Hi: 9},
		{Alpha: "node", Digits: 2, Lo: 10, Hi: 99},
		{Alpha: "node", Digits: 3, Lo: 100, Hi: 999},
		{Alpha: "node", Digits: 4, Lo: 1000, Hi: 9999},
		{Alpha: "node", Digits: 5, Lo: 10000, Hi: 99999},
		{Alpha: "node", Digits: 6, Lo: 100000, Hi: 100000},
	}
	got := l.Queries()
	if len(got) != len(want) {
		t.Fatalf("Queries = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("query %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestSlurmNestedPrefixesAreBounded(t *testing.T) {
	_, err := Parse(Slurm, "x[q]a[0-65535]b[0-65535]c[1]")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestAppendMergesAcrossLists(t *testing.T) {
	tests := []struct {
		d       Dialect
		a, b    string
		want    string
		present string
	}{
		{Flux, "foo[1-3]", "foo[4-5]", "foo[1-5]", "foo5"},
		{Flux, "foo9", "foo10", "foo[9-10]", "foo10"},
		{Flux, "f00[7-8]", "bar", "f00[7-8],bar", "f008"},
		{Slurm, "n1", "n1", "n[1,1]", "n1"},
	}
	for _, tt := range tests {
		a, _ := Parse(tt.d, tt.a)
		b, _ := Parse(tt.d, tt.b)
		if err := a.Append(b); err != nil {
			t.Fatal(err)
		}
		if got := a.String(); got != tt.want {
			t.Errorf("%q + %q = %q, want %q", tt.a, tt.b, got, tt.want)
		}
		if a.Find(tt.present) < 0 {
			t.Errorf("%q + %q: %q not found", tt.a, tt.b, tt.present)
		}
	}
}
