package compiler

import (
	"testing"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

func leaf(key string, op extra.Op, value string) *ast.Compare {
	return &ast.Compare{Key: key, Op: op, Value: value}
}

func and(xs ...ast.Node) *ast.And { return &ast.And{X: xs} }
func or(xs ...ast.Node) *ast.Or   { return &ast.Or{X: xs} }
func not(x ast.Node) *ast.Not     { return &ast.Not{X: x} }
func prop(name string) *ast.Property {
	return &ast.Property{Name: name}
}

var (
	yes = &ast.Const{Value: true}
	no  = &ast.Const{Value: false}
)

// fakeStats answers the optimizer from fixed tables.
type fakeStats struct {
	len   int
	props map[string]int
	keys  map[string][2]int
}

func (f fakeStats) Len() int                      { return f.len }
func (f fakeStats) PropertyCount(name string) int { return f.props[name] }
func (f fakeStats) KeyStats(key string) index.KeyStats {
	k := f.keys[key]
	return index.KeyStats{Nodes: k[0], Numbers: k[0], Distinct: k[1]}
}

func TestOptimize(t *testing.T) {
	stats := fakeStats{
		len:   1000,
		props: map[string]int{"gpu": 10, "big": 500, "common": 990},
		keys:  map[string][2]int{"a": {1000, 1000}, "b": {1000, 2}},
	}
	tests := []struct {
		name  string
		in    ast.Node
		stats Stats
		want  string
	}{
		{"flattens nested and", and(leaf("a", extra.Eq, "1"), and(leaf("b", extra.Eq, "2"), and(leaf("c", extra.Eq, "3")))), nil,
			`and(["a"="1"] ["b"="2"] ["c"="3"])`},
		{"flattens nested or through a single-operand and", or(prop("x"), and(or(prop("y"), prop("z")))), nil,
			`or(prop:"x" prop:"y" prop:"z")`},
		{"keeps or inside and", and(prop("x"), or(prop("y"), prop("z"))), nil,
			`and(prop:"x" or(prop:"y" prop:"z"))`},
		{"and with false is false", and(prop("x"), no, prop("y")), nil, `false`},
		{"or with true is true", or(prop("x"), yes), nil, `true`},
		{"drops true from and", and(prop("x"), yes, prop("y")), nil, `and(prop:"x" prop:"y")`},
		{"drops false from or", or(no, prop("x")), nil, `prop:"x"`},
		{"empty and is true", and(), nil, `true`},
		{"empty or is false", or(), nil, `false`},
		{"not of a constant folds", not(or(no, no)), nil, `true`},
		{"double negation cancels", not(not(prop("x"))), nil, `prop:"x"`},
		{"single negation stays", not(prop("x")), nil, `not(prop:"x")`},
		{"drops duplicate operands", or(leaf("a", extra.Eq, "1"), leaf("a", extra.Eq, "1"), leaf("a", extra.Eq, "2")), nil,
			`or(["a"="1"] ["a"="2"])`},
		{"drops duplicate subtrees", and(or(prop("x"), prop("y")), or(prop("x"), prop("y"))), nil, `or(prop:"x" prop:"y")`},
		{"different operators are not duplicates", and(leaf("a", extra.Lt, "1"), leaf("a", extra.Le, "1")), nil,
			`and(["a"<"1"] ["a"<="1"])`},
		{"empty hostlist matches nothing", or(&ast.Hostlist{}, prop("x")), nil, `prop:"x"`},
		{"empty ranks match nothing", and(&ast.Ranks{}, prop("x")), nil, `false`},
		{"orders and most selective first", and(prop("common"), prop("big"), prop("gpu")), stats,
			`and(prop:"gpu" prop:"big" prop:"common")`},
		{"orders or least selective first", or(prop("gpu"), prop("common"), prop("big")), stats,
			`or(prop:"common" prop:"big" prop:"gpu")`},
		{"equality on a high-cardinality key is selective", and(leaf("b", extra.Eq, "x"), leaf("a", extra.Eq, "y")), stats,
			`and(["a"="y"] ["b"="x"])`},
		{"without stats source order is kept", and(prop("common"), prop("gpu")), nil, `and(prop:"common" prop:"gpu")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ast.Dump(tt.in)
			if got := ast.Dump(Optimize(tt.in, tt.stats)); got != tt.want {
				t.Errorf("Optimize(%s) = %s, want %s", before, got, tt.want)
			}
			if after := ast.Dump(tt.in); after != before {
				t.Errorf("Optimize modified its input: %s became %s", before, after)
			}
		})
	}
}

func TestDedupeOfManyOperands(t *testing.T) {
	var xs []ast.Node
	for i := range 100 {
		xs = append(xs, prop(string(rune('a'+i%20))))
	}
	got := Optimize(or(xs...), nil).(*ast.Or)
	if len(got.X) != 20 {
		t.Errorf("or of 100 operands over 20 distinct kept %d", len(got.X))
	}
}

func TestOptimizeKeepsAnOptimalTreeAsItIs(t *testing.T) {
	tree := or(and(leaf("a", extra.Eq, "1"), leaf("b", extra.Lt, "2")), not(prop("x")), leaf("c", extra.Ne, "3"))
	if got := Optimize(tree, nil); got != ast.Node(tree) {
		t.Errorf("Optimize rebuilt a tree it did not change: %s", ast.Dump(got))
	}
	if a := testing.AllocsPerRun(20, func() { Optimize(tree, nil) }); a != 0 {
		t.Errorf("Optimize of an optimal tree allocates %v times, want 0", a)
	}
}

func TestDedupeOfManyOperandsKeepsTheInput(t *testing.T) {
	var xs []ast.Node
	for i := range 40 {
		xs = append(xs, prop(string(rune('a'+i%20))))
	}
	before := ast.Dump(or(xs...))
	Optimize(or(xs...), nil)
	if after := ast.Dump(or(xs...)); after != before {
		t.Errorf("Optimize modified its input's operands")
	}
}

// leafStats also estimates single leaves: "x" values below 10 are rare.
type leafStats struct{ fakeStats }

func (leafStats) EstimateLeaf(key string, op extra.Op, v *index.Operand) int {
	if op == extra.Lt && v.NumOK && v.Num <= 10 {
		return 1
	}
	return 900
}

func TestOptimizePrefersLeafEstimates(t *testing.T) {
	stats := leafStats{fakeStats{len: 1000, keys: map[string][2]int{"x": {1000, 1000}}}}
	in := and(leaf("x", extra.Eq, "5"), leaf("x", extra.Lt, "3"))
	if got, want := ast.Dump(Optimize(in, stats)), `and(["x"<"3"] ["x"="5"])`; got != want {
		t.Errorf("Optimize = %s, want %s", got, want)
	}
}
