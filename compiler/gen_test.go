package compiler

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

// byteSource draws choices from fuzz input; past its end every choice is 0,
// so any input, even empty, yields a case.
type byteSource struct {
	data []byte
	pos  int
}

func (b *byteSource) byte() byte {
	if b.pos >= len(b.data) {
		return 0
	}
	b.pos++
	return b.data[b.pos-1]
}

// intn returns a choice in [0, n).
func (b *byteSource) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(b.byte())
	if n > 256 {
		v = v<<8 | int(b.byte())
	}
	return v % n
}

func pick[T any](b *byteSource, xs []T) T { return xs[b.intn(len(xs))] }

var genKeys = []string{"a", "b", "c", "foo", "zed"}

// genNumbers are node-side JSON number texts chosen for Slurm's edge cases:
// the strict 1e-5 equality, int64 clamping, precision loss above 2^53,
// overflow to ±Inf; and number-like texts strict JSON rejects (json-c's NaN
// and Infinity literals, leading zeros, bare dots), which leave a node with
// no extra data in the reference (ast.ParseExtra) and must in the index too.
var genNumbers = []string{
	"0", "-0", "1", "5", "23", "1.23", "1.23001", "4.99999", "5.00001",
	"0.00001", "0.0000099999999999", "0.0000100000000001", "1e-5", "-1e-5",
	"9007199254740993", "9223372036854775807", "9223372036854775808",
	"-9223372036854775809", "1e308", "1e999", "-1e999", "0.1", "200",
	"2.5e-324", "-1.5", "1E2", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-Infinity",
	"01", "-01", "1.", ".5", "+1", "1e", "0x10",
}

var genStrings = []string{`"bar"`, `"baz"`, `"5"`, `"1.23"`, `""`, `"true"`, `"10"`, `"9"`, `"Bar"`, `"b a"`}

var genOther = []string{"true", "false", "null", "[]", "{}", "[1]", `{"x":1}`}

// genValueText returns one node-side JSON value.
func genValueText(b *byteSource) string {
	switch b.intn(4) {
	case 0, 1:
		return pick(b, genNumbers)
	case 2:
		return pick(b, genStrings)
	}
	return pick(b, genOther)
}

// genExtra returns a node's extra JSON (or nil): usually an object with
// random keys (some repeated), sometimes invalid or not an object.
func genExtra(b *byteSource) []byte {
	switch b.intn(16) {
	case 0:
		return nil
	case 1:
		return []byte(pick(b, []string{"not json", "{", `{"a":1`, "", "5", `"s"`, "[1,2]", "true", "null", `{"a":1}x`}))
	}
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range b.intn(5) {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%q:%s", pick(b, genKeys), genValueText(b))
	}
	sb.WriteByte('}')
	return []byte(sb.String())
}

func genNodes(b *byteSource) []index.Node {
	n := 1 + b.intn(70)
	nodes := make([]index.Node, n)
	for i := range nodes {
		nd := index.Node{Name: "node" + strconv.Itoa(i), Rank: uint32(i), Extra: genExtra(b)}
		for _, f := range []string{"gpu", "big", "ib"} {
			if b.intn(3) == 0 {
				nd.Features = append(nd.Features, f)
			}
		}
		nodes[i] = nd
	}
	return nodes
}

// requestValues are request texts exercising every conversion rule.
var requestValues = []string{
	"1.23", "1.24", "1.25", "0", "00", "-0", "+0", "0.0", "0e5", "0x0", " 0", "0 ",
	"5", "007", "1.", "1e3", "15e-1", "0x10", "0x1.8p0", "1e", "1e+", "1.5e", ".5", "+.5",
	"5abc", "1_0", "--5", "inf", "-Infinity", "INF", "nan", "NaN", "nan(1)", "1e999", "1e-400",
	"true", "false", "yes", "no", "y", "n", "t", "f", "on", "off", "null", "~x", "xyz", "fals",
	`"false"`, `"bar"`, "bar", "baz", "blah", "10", "9", "200", "23.0", "0.0001", "0.00001",
	"0.00000001", "9007199254740992", "9223372036854775807", "9223372036854775808",
	"18446744073709551616", "0x", "1 ", " 5",
}

// genRequestValue draws a request value: a fixed edge case, a node value, or
// a node number nudged by a few ulps or by about 1e-5.
func genRequestValue(b *byteSource) string {
	switch b.intn(3) {
	case 0:
		return grammarValue(pick(b, requestValues))
	case 1:
		s := genValueText(b)
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
		return grammarValue(s)
	}
	f, err := strconv.ParseFloat(pick(b, genNumbers), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		f = 1.23
	}
	switch b.intn(4) {
	case 0:
		for range b.intn(4) {
			f = math.Nextafter(f, math.Inf(1))
		}
	case 1:
		for range b.intn(4) {
			f = math.Nextafter(f, math.Inf(-1))
		}
	case 2:
		f += 1e-5 * float64(b.intn(3)-1)
	default:
		f += 1e-5 + float64(b.intn(5)-2)*math.SmallestNonzeroFloat64
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// grammarValue replaces a value the Slurm grammar cannot carry.
func grammarValue(s string) string {
	if s == "" || strings.ContainsAny(s, ",&|<>=!()") {
		return "x"
	}
	return s
}

// genHostlists are RFC 29 hostlists over genNodes' names (node0, node1, ...).
var genHostlists = []string{
	"node[1-20]", "node[0-5,30-40]", "node7", "node[01-10]", "n[1-3]", "node[3-3]",
	"node[60-99999]", "node1,node2", "node[1-2][0-9]", "other",
}

// genSlurm returns a random tree over the Slurm grammar: and/or of
// comparison leaves.
func genSlurm(b *byteSource, depth int) ast.Node {
	if depth == 0 || b.intn(3) == 0 {
		return &ast.Compare{Key: pick(b, genKeys), Op: extra.Op(b.intn(6)), Value: genRequestValue(b)}
	}
	n := 2 + b.intn(3)
	xs := make([]ast.Node, n)
	for i := range xs {
		xs[i] = genSlurm(b, depth-1)
	}
	if b.intn(2) == 0 {
		return &ast.And{X: xs}
	}
	return &ast.Or{X: xs}
}

// genFlux returns a random tree using every node kind the code generator
// supports, including not and constants.
func genFlux(b *byteSource, depth int) ast.Node { return genTree(b, depth, true) }

// genRFC31 returns a random tree that RFC 31 can express (no Slurm
// comparisons).
func genRFC31(b *byteSource, depth int) ast.Node { return genTree(b, depth, false) }

func genTree(b *byteSource, depth int, compare bool) ast.Node {
	if depth == 0 || b.intn(3) == 0 {
		leaves := 7
		if !compare {
			leaves = 5
		}
		switch b.intn(leaves) {
		case 4:
			h := &ast.Hostlist{}
			for range 1 + b.intn(2) {
				h.Exprs = append(h.Exprs, pick(b, genHostlists))
			}
			return h
		case 0:
			return &ast.Const{Value: b.intn(2) == 0}
		case 1, 2:
			return &ast.Property{Name: pick(b, []string{"gpu", "big", "ib", "node3", "none"})}
		case 3:
			lo := uint32(b.intn(70))
			return &ast.Ranks{Ranges: []ast.RankRange{{Lo: lo, Hi: lo + uint32(b.intn(20))}}}
		}
		return genSlurm(b, 0)
	}
	switch b.intn(4) {
	case 0:
		return &ast.Not{X: genTree(b, depth-1, compare)}
	}
	xs := make([]ast.Node, b.intn(4))
	for i := range xs {
		xs[i] = genTree(b, depth-1, compare)
	}
	if b.intn(2) == 0 {
		return &ast.And{X: xs}
	}
	return &ast.Or{X: xs}
}
