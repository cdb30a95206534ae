package fuzz

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

// Keys, values and features the generators draw from. They are few, so that
// random constraints hit the generated data often; they include the traps of
// Slurm's rules (keys with spaces, numbers around the 1e-5 equality
// threshold, strings that look like numbers, non-objects and invalid JSON).
var (
	genKeys     = []string{"a", "b", "c", "foo", "zed", " a", "x y", "n"}
	genFeatures = []string{"gpu", "ib", "bigmem", "cascade"}
	genNumbers  = []string{"0", "1", "-1", "23", "1.23", "1.23001", "1.229995", "0.00001", "1e-6", "-0", "1e300", "9223372036854775807", "2.5e1"}
	genStrings  = []string{`"bar"`, `"baz"`, `"10"`, `"9"`, `""`, `"1.23"`, `"true"`, `"B"`}
	genOther    = []string{"true", "false", "null", "{}", "[]", `{"x":1}`}
	genBroken   = []string{"", "{", "not json", `{"a":1,}`, "[1]", "true", `"s"`, `{"a":1} x`}
	genReqVals  = []string{"0", "1", "-1", "23", "23.0", "1.23", "1.23001", "1.22999", "0.00001", "1e-6", "inf", "-inf", "nan",
		"0x10", "1e", "bar", "baz", "10", "9", "true", "false", "yes", "no", "t", "off", "~", "null", " 0", "B", "1.5e1"}
)

// GenNodes returns n random nodes named n0, n1, ... with random features
// and random raw extra JSON: usually an object over a small key set with
// numbers, strings, booleans, null, objects and arrays; sometimes no extra
// data, a non-object or text that is not JSON.
func GenNodes(r *rand.Rand, n int) []index.Node {
	nodes := make([]index.Node, n)
	for i := range nodes {
		nd := &nodes[i]
		nd.Name = "n" + strconv.Itoa(i)
		nd.Rank = uint32(i)
		for _, f := range genFeatures {
			if r.IntN(3) == 0 {
				nd.Features = append(nd.Features, f)
			}
		}
		switch r.IntN(12) {
		case 0:
			continue
		case 1:
			nd.Extra = []byte(genBroken[r.IntN(len(genBroken))])
			continue
		}
		var b strings.Builder
		b.WriteByte('{')
		for j, k := range genKeys {
			if r.IntN(3) == 0 {
				continue
			}
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			if j == 0 && r.IntN(8) == 0 {
				b.WriteString(`"a":0,`) // a duplicate key: the last one wins
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			switch r.IntN(8) {
			case 0, 1, 2, 3:
				b.WriteString(genNumbers[r.IntN(len(genNumbers))])
			case 4, 5:
				b.WriteString(genStrings[r.IntN(len(genStrings))])
			default:
				b.WriteString(genOther[r.IntN(len(genOther))])
			}
		}
		b.WriteByte('}')
		nd.Extra = []byte(b.String())
	}
	return nodes
}

// GenSlurmExpr returns a random Slurm extra-constraint tree (And, Or and
// Compare only, as Slurm's grammar allows) of up to three levels, whose keys
// and values are mostly taken from nodes' extra data so that leaves match
// some nodes, with boundary and type-coercion values mixed in. Its
// slurm.Format text parses back to the same tree.
func GenSlurmExpr(r *rand.Rand, nodes []index.Node) ast.Node {
	keys, vals := observed(nodes)
	return genSlurm(r, keys, vals, 0)
}

// observed collects the keys and the number and string values of nodes'
// extra data, as request text.
func observed(nodes []index.Node) (keys, vals []string) {
	keys = slices.Clone(genKeys)
	vals = slices.Clone(genReqVals)
	for i := range nodes {
		kv, ok := ast.ParseExtra(nodes[i].Extra)
		if !ok {
			continue
		}
		// Map order is random: walk keys sorted so a seed always gives
		// the same constraint.
		for _, k := range slices.Sorted(maps.Keys(kv)) {
			v := kv[k]
			if validToken(k) && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
			var s string
			switch v.Kind {
			case extra.KindNumber:
				s = strconv.FormatFloat(v.Num, 'g', -1, 64)
			case extra.KindString:
				s = v.Str
			}
			if validToken(s) && !slices.Contains(vals, s) {
				vals = append(vals, s)
			}
		}
	}
	return keys, vals
}

// validToken reports whether s can be a Slurm key or value: non-empty and
// free of the operator and grouping characters.
func validToken(s string) bool {
	return s != "" && !strings.ContainsAny(s, ",&|<>=!()")
}

func genSlurm(r *rand.Rand, keys, vals []string, depth int) ast.Node {
	if depth >= 3 || r.IntN(3) == 0 {
		return &ast.Compare{Start: -1, Key: keys[r.IntN(len(keys))], Op: extra.Op(r.IntN(6)), Value: vals[r.IntN(len(vals))]}
	}
	xs := make([]ast.Node, 2+r.IntN(3))
	for i := range xs {
		xs[i] = genSlurm(r, keys, vals, depth+1)
	}
	if r.IntN(2) == 0 {
		return &ast.And{Start: -1, X: xs}
	}
	return &ast.Or{Start: -1, X: xs}
}

// Hostlists and rank ranges GenFluxExpr draws from: GenNodes names nodes
// n0, n1, ..., so these cover members, zero-padding that does not match,
// other prefixes and mixed lists.
var (
	genHostlists = []string{"n[0-3]", "n5", "n[1,3,5-7]", "n[00-03]", "m[0-2]", "n[8-11],m1", "n[10-20]", "n"}
	genRanks     = []ast.RankRange{{Lo: 0, Hi: 0}, {Lo: 0, Hi: 3}, {Lo: 2, Hi: 5}, {Lo: 7, Hi: 11}, {Lo: 11, Hi: 40}, {Lo: 100, Hi: 200}}
)

// GenFluxExpr returns a random Flux constraint tree (properties, negated
// properties, hostlists, ranks, and/or/not, constants) of up to three
// levels, over the features and host names of nodes from GenNodes. Its
// flux.FormatRFC31 text parses back with flux.ParseRFC31.
func GenFluxExpr(r *rand.Rand, nodes []index.Node) ast.Node {
	names := slices.Clone(genFeatures)
	names = append(names, "batch")
	if len(nodes) > 0 {
		names = append(names, nodes[r.IntN(len(nodes))].Name)
	}
	return genFlux(r, names, 0)
}

func genFlux(r *rand.Rand, names []string, depth int) ast.Node {
	if depth >= 3 || r.IntN(3) == 0 {
		switch r.IntN(8) {
		case 0, 1, 2:
			return &ast.Property{Start: -1, Name: names[r.IntN(len(names))]}
		case 3:
			return &ast.Not{Start: -1, X: &ast.Property{Start: -1, Name: names[r.IntN(len(names))]}}
		case 4, 5:
			hl := &ast.Hostlist{Start: -1}
			for range 1 + r.IntN(2) {
				hl.Exprs = append(hl.Exprs, genHostlists[r.IntN(len(genHostlists))])
			}
			return hl
		case 6:
			rk := &ast.Ranks{Start: -1}
			for range 1 + r.IntN(2) {
				rk.Ranges = append(rk.Ranges, genRanks[r.IntN(len(genRanks))])
			}
			return rk
		default:
			return &ast.Const{Start: -1, Value: r.IntN(2) == 0}
		}
	}
	switch r.IntN(5) {
	case 0:
		return &ast.Not{Start: -1, X: genFlux(r, names, depth+1)}
	case 1, 2:
		xs := make([]ast.Node, 2+r.IntN(2))
		for i := range xs {
			xs[i] = genFlux(r, names, depth+1)
		}
		return &ast.And{Start: -1, X: xs}
	default:
		xs := make([]ast.Node, 2+r.IntN(2))
		for i := range xs {
			xs[i] = genFlux(r, names, depth+1)
		}
		return &ast.Or{Start: -1, X: xs}
	}
}
