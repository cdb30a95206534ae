package ast

import "testing"

func TestEvalHostlist(t *testing.T) {
	tests := []struct {
		name  string // rule, from reference §4 (lookup) and §5
		exprs []string
		host  string
		want  bool
	}{
		{"§5: empty list matches nothing", nil, "foo1", false},
		{"§4: range member", []string{"foo[1-3]"}, "foo2", true},
		{"§4: union of strings", []string{"bar1", "foo[1-3]"}, "foo3", true},
		{"§4: outside the range", []string{"foo[1-3]"}, "foo4", false},
		{"§4: width must agree (foo01 not in foo[0-10])", []string{"foo[0-10]"}, "foo01", false},
		{"§4: foo5 not in foo[00-10]", []string{"foo[00-10]"}, "foo5", false},
		{"§4: foo05 in foo[00-10]", []string{"foo[00-10]"}, "foo05", true},
		{"§4: node9 not in node[08-10]", []string{"node[08-10]"}, "node9", false},
		{"§4: digit-ending prefix retry finds f007", []string{"f00[7-8]"}, "f007", true},
		{"§4: f7 not in f00[7-8]", []string{"f00[7-8]"}, "f7", false},
		{"§4: single host exact, case-sensitive", []string{"Login"}, "login", false},
		{"§4: suffix makes opaque hosts", []string{"foo[0-4]-eth2"}, "foo3-eth2", true},
		{"§4: hostlist_find refuses names with brackets", []string{"node[01-03]-[1-2]"}, "node02-[1-2]", false},
		{"§4: each string decoded on its own", []string{"foo[1]]", "foo2"}, "foo2", true},
		{"§4: whitespace separates", []string{" a1 , b2 "}, "b2", true},
		{"invalid strings are skipped", []string{"f[", "g1"}, "g1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &Hostlist{Exprs: tt.exprs}
			f := &Facts{Name: tt.host}
			if got := Eval(n, f); got != tt.want {
				t.Errorf("Eval(hosts %q, %q) = %v, want %v", tt.exprs, tt.host, got, tt.want)
			}
			// A second evaluation uses the memo and must agree.
			if got := Eval(n, f); got != tt.want {
				t.Errorf("memoized Eval(hosts %q, %q) = %v, want %v", tt.exprs, tt.host, got, tt.want)
			}
		})
	}
}
