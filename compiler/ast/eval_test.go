package ast

import (
	"testing"

	"github.com/nodesift/sift/extra"
)

func TestEval(t *testing.T) {
	kv, _ := ParseExtra([]byte(`{"a":1,"s":"x"}`))
	node := &Facts{Name: "n7", Rank: 7, HasExtra: true, Extra: kv, Properties: []string{"gpu", "ib"}}
	bare := &Facts{Name: "n8", Rank: 8, Properties: []string{"gpu"}}
	cmp := func(k string, op extra.Op, v string) *Compare { return &Compare{Key: k, Op: op, Value: v} }
	tests := []struct {
		name string
		n    Node
		f    *Facts
		want bool
	}{
		{"compare true", cmp("a", extra.Eq, "1"), node, true},
		{"compare false", cmp("a", extra.Ne, "1"), node, false},
		{"missing key is false for !=", cmp("b", extra.Ne, "1"), node, false},
		{"no extra data is false for !=", cmp("a", extra.Ne, "2"), bare, false},
		{"and all", &And{X: []Node{cmp("a", extra.Eq, "1"), cmp("s", extra.Eq, "x")}}, node, true},
		{"and one false", &And{X: []Node{cmp("a", extra.Eq, "1"), cmp("s", extra.Eq, "y")}}, node, false},
		{"empty and is true", &And{}, node, true},
		{"or one true", &Or{X: []Node{cmp("a", extra.Eq, "2"), cmp("s", extra.Eq, "x")}}, node, true},
		{"empty or is false", &Or{}, node, false},
		{"not", &Not{X: cmp("a", extra.Eq, "2")}, node, true},
		{"const", &Const{Value: true}, bare, true},
		{"property", &Property{Name: "ib"}, node, true},
		{"property absent", &Property{Name: "ib"}, bare, false},
		{"property is hostname", &Property{Name: "n8"}, bare, true},
		{"ranks in range", &Ranks{Ranges: []RankRange{{0, 3}, {6, 7}}}, node, true},
		{"ranks out of range", &Ranks{Ranges: []RankRange{{0, 3}, {9, 9}}}, bare, false},
		{"empty ranks", &Ranks{}, node, false},
	}
	for _, tt := range tests {
		if got := Eval(tt.n, tt.f); got != tt.want {
			t.Errorf("%s: Eval(%s) = %v, want %v", tt.name, Dump(tt.n), got, tt.want)
		}
	}
}
