package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nodesift/sift/extra"
)

// gen draws random node sets and operands full of Slurm's edge cases.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

var (
	genKeys   = []string{"a", "b", "mem", "gpu", "a\\u0000x", "zone"}
	genAlphas = []string{"n", "node", "gpu-", "x1y", "rack"}
	genFeats  = []string{"ib", "gpu", "n3", "node007", "bigmem", "a"}
	numTexts  = []string{
		"0", "-0", "1", "2", "3", "10", "1.00001", "1.000009999", "0.99999", "1.0000100000000001",
		"9007199254740993", "9007199254740992", "9223372036854775807", "9223372036854775808",
		"-9223372036854775809", "1e400", "-1e400", "1e-400", "0.00001", "-0.00001", "5e-6",
		"123456789.00001", "nan", "-inf", "01", "1.", "3.5", "100000000000000000000",
	}
	strTexts = []string{`""`, `"a"`, `"5"`, `"1e3"`, `"true"`, `"\u0000x"`, `"a\u0000b"`, `"ab"`, `"b"`, `"zz"`, `"é"`}
)

func (g *gen) value() string {
	switch g.r.IntN(8) {
	case 0, 1, 2:
		return numTexts[g.r.IntN(len(numTexts))]
	case 3:
		return strconv.FormatFloat(g.r.NormFloat64()*100, 'g', -1, 64)
	case 4, 5:
		return strTexts[g.r.IntN(len(strTexts))]
	case 6:
		return []string{"true", "false"}[g.r.IntN(2)]
	default:
		return []string{"null", "{}", "[1]", `{"x":1}`}[g.r.IntN(4)]
	}
}

func (g *gen) extra() []byte {
	switch g.r.IntN(12) {
	case 0:
		return nil
	case 1:
		return []byte(`{"a":`) // invalid JSON
	case 2:
		return []byte(`[1,2]`)
	}
	var b strings.Builder
	b.WriteByte('{')
	k := g.r.IntN(5)
	for i := 0; i < k; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", genKeys[g.r.IntN(len(genKeys))], g.value())
	}
	b.WriteByte('}')
	return []byte(strings.ReplaceAll(b.String(), `\\u0000`, `\u0000`))
}

func (g *gen) name(used map[string]bool) string {
	for {
		var name string
		a := genAlphas[g.r.IntN(len(genAlphas))]
		switch g.r.IntN(6) {
		case 0:
			name = a
		case 1:
			name = fmt.Sprintf("%s%03d", a, g.r.IntN(200))
		default:
			name = fmt.Sprintf("%s%d", a, g.r.IntN(300+len(used)))
		}
		if !used[name] {
			used[name] = true
			return name
		}
	}
}

func (g *gen) node(used map[string]bool) Node {
	n := Node{Name: g.name(used), Rank: uint32(g.r.IntN(100)), Extra: g.extra()}
	for i := g.r.IntN(3); i > 0; i-- {
		n.Features = append(n.Features, genFeats[g.r.IntN(len(genFeats))])
	}
	return n
}

func (g *gen) nodes(n int) []Node {
	used := map[string]bool{}
	out := make([]Node, n)
	for i := range out {
		out[i] = g.node(used)
	}
	return out
}

// operand draws a request value: a node value, maybe nudged by a few ulps or
// by about the 1e-5 tolerance, or an odd value.
func (g *gen) operand() Operand {
	var f float64
	switch g.r.IntN(6) {
	case 0:
		f = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1 << 53, 1<<63 + 0}[g.r.IntN(7)]
	default:
		t := numTexts[g.r.IntN(len(numTexts))]
		f = jsonNumber([]byte(t))
		switch g.r.IntN(4) {
		case 1:
			for k := g.r.IntN(4); k >= 0; k-- {
				f = math.Nextafter(f, math.Inf(g.r.IntN(2)*2-1))
			}
		case 2:
			f += []float64{1e-5, -1e-5}[g.r.IntN(2)]
			for k := g.r.IntN(3); k > 0; k-- {
				f = math.Nextafter(f, math.Inf(g.r.IntN(2)*2-1))
			}
		}
	}
	raw := strconv.FormatFloat(f, 'g', -1, 64)
	if g.r.IntN(2) == 0 {
		raw = strTexts[g.r.IntN(len(strTexts))]
		raw, _ = strconv.Unquote(raw)
		raw = extra.CString(raw)
	}
	return Operand{Raw: raw, Num: f, NumOK: g.r.IntN(8) != 0, Bool: g.r.IntN(2) == 0}
}

func (g *gen) hostQueries() []HostQuery {
	qs := make([]HostQuery, 1+g.r.IntN(3))
	for i := range qs {
		if g.r.IntN(4) == 0 {
			qs[i] = HostQuery{Exact: true, Name: fmt.Sprintf("%s%d", genAlphas[g.r.IntN(len(genAlphas))], g.r.IntN(300))}
			continue
		}
		lo := uint64(g.r.IntN(320))
		hi := lo + uint64(g.r.IntN(200))
		if g.r.IntN(10) == 0 {
			hi = math.MaxUint64
		}
		qs[i] = HostQuery{Alpha: genAlphas[g.r.IntN(len(genAlphas))], Digits: g.r.IntN(4), Lo: lo, Hi: hi}
	}
	return qs
}

func (g *gen) rankRanges() []RankRange {
	rs := make([]RankRange, g.r.IntN(4))
	for i := range rs {
		lo := uint32(g.r.IntN(110))
		rs[i] = RankRange{lo, lo + uint32(g.r.IntN(40)) - 5}
		if g.r.IntN(10) == 0 {
			rs[i].Hi = math.MaxUint32
		}
	}
	return rs
}

func ptrs(nodes []Node) []*Node {
	out := make([]*Node, len(nodes))
	for i := range nodes {
		out[i] = &nodes[i]
	}
	return out
}

// sameRange checks ExtraRangeLeafIn, over every word and over a random
// window of stale words, against the and of its two comparisons'
// reference leaves, and NodeExtraRangeLeaf against the per-node rule.
func sameRange(t *testing.T, r *rand.Rand, s *Snapshot, ref *naive, key string, rg *Range) {
	t.Helper()
	want := ref.extraLeaf(key, rg.Lower, &rg.Lo)
	for i, w := range ref.extraLeaf(key, rg.Upper, &rg.Hi) {
		want[i] &= w
	}
	n := s.Words()
	lo := r.IntN(n + 1)
	hi := lo + r.IntN(n-lo+1)
	for _, w := range [][2]int{{0, n}, {lo, hi}} {
		dst := make([]uint64, n)
		for i := range dst {
			dst[i] = r.Uint64()
		}
		stale := slices.Clone(dst)
		s.ExtraRangeLeafIn(key, rg, dst, w[0], w[1])
		for i := range dst {
			x := stale[i]
			if i >= w[0] && i < w[1] {
				x = want[i]
			}
			if dst[i] != x {
				t.Fatalf("ExtraRangeLeafIn(%q %+v) over words [%d, %d): word %d = %064b, want %064b", key, *rg, w[0], w[1], i, dst[i], x)
			}
		}
	}
	id := uint32(r.IntN(int(s.IDBound()) + 1))
	in := int(id) < len(ref.nodes) && ref.nodes[id] != nil && rg.Lo.Match(ref.extra[id][key], rg.Lower) && rg.Hi.Match(ref.extra[id][key], rg.Upper)
	if got := s.NodeExtraRangeLeaf(id, key, rg); got != in {
		t.Fatalf("NodeExtraRangeLeaf(%d, %q %+v) = %v, want %v", id, key, *rg, got, in)
	}
}

// sameInWindow checks ExtraLeafIn over a random window of words against
// the reference leaf want: the words inside hold the leaf's, every word
// outside keeps what it held (random stale words).
func sameInWindow(t *testing.T, r *rand.Rand, s *Snapshot, key string, op extra.Op, o *Operand, want []uint64) {
	t.Helper()
	n := s.Words()
	lo := r.IntN(n + 1)
	hi := lo + r.IntN(n-lo+1)
	dst := make([]uint64, n)
	for i := range dst {
		dst[i] = r.Uint64()
	}
	stale := slices.Clone(dst)
	s.ExtraLeafIn(key, op, o, dst, lo, hi)
	for i := range dst {
		w := stale[i]
		if i >= lo && i < hi {
			w = want[i]
		}
		if dst[i] != w {
			t.Fatalf("ExtraLeafIn(%q %v %+v) over words [%d, %d): word %d = %064b, want %064b", key, op, *o, lo, hi, i, dst[i], w)
		}
	}
}

func sameWords(t *testing.T, what string, got, want []uint64) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: word %d: got %064b, want %064b", what, i, got[i], want[i])
		}
	}
	for i := len(want); i < len(got); i++ {
		if got[i] != 0 {
			t.Fatalf("%s: word %d past the ids is %x", what, i, got[i])
		}
	}
}

// checkAgainstNaive compares every query of s with the reference over the
// same nodes.
func checkAgainstNaive(t *testing.T, g *gen, s *Snapshot, ref *naive, rounds int) {
	t.Helper()
	if s.Words() != ref.words() {
		t.Fatalf("Words() = %d, want %d", s.Words(), ref.words())
	}
	dst := make([]uint64, s.Words()+2)
	for i := range dst {
		dst[i] = ^uint64(0) // leaves must overwrite
	}
	ops := []extra.Op{extra.Eq, extra.Ne, extra.Lt, extra.Le, extra.Gt, extra.Ge}
	keys := append([]string{"nokey", "a\x00x"}, genKeys...)
	for k := 0; k < rounds; k++ {
		key := keys[g.r.IntN(len(keys))]
		op := ops[g.r.IntN(len(ops))]
		o := g.operand()
		s.ExtraLeaf(key, op, &o, dst)
		what := fmt.Sprintf("ExtraLeaf(%q %v %+v)", key, op, o)
		leaf := ref.extraLeaf(key, op, &o)
		sameWords(t, what, dst, leaf)
		sameInWindow(t, g.r, s, key, op, &o, leaf)
		rg := Range{Lower: []extra.Op{extra.Gt, extra.Ge}[g.r.IntN(2)], Upper: []extra.Op{extra.Lt, extra.Le}[g.r.IntN(2)], Lo: o, Hi: g.operand()}
		sameRange(t, g.r, s, ref, key, &rg)
		id := uint32(g.r.IntN(int(s.IDBound()) + 1))
		want := int(id) < len(ref.nodes) && ref.nodes[id] != nil && o.Match(ref.extra[id][key], op)
		if got := s.NodeExtraLeaf(id, key, op, &o); got != want {
			t.Fatalf("NodeExtraLeaf(%d) %s = %v, want %v", id, what, got, want)
		}
		if got, want := s.KeyStats(key), ref.keyStats(key); got.Nodes != want.Nodes || got.Numbers != want.Numbers ||
			got.Strings != want.Strings || got.Bools != want.Bools || got.Unusable != want.Unusable {
			t.Fatalf("KeyStats(%q) = %+v, want %+v", key, got, want)
		}

		f := append(genFeats, "missing")[g.r.IntN(len(genFeats)+1)]
		if g.r.IntN(3) == 0 && len(ref.nodes) > 0 {
			if n := ref.nodes[g.r.IntN(len(ref.nodes))]; n != nil {
				f = n.Name
			}
		}
		s.PropertyLeaf(f, dst)
		sameWords(t, "PropertyLeaf("+f+")", dst, ref.propertyLeaf(f))
		if got, want := s.PropertyCount(f), ref.propertyCount(f); got != want {
			t.Fatalf("PropertyCount(%q) = %d, want %d", f, got, want)
		}

		rs := g.rankRanges()
		s.RankLeaf(rs, dst)
		sameWords(t, fmt.Sprintf("RankLeaf(%v)", rs), dst, ref.rankLeaf(rs))

		qs := g.hostQueries()
		s.HostLeaf(qs, dst)
		sameWords(t, fmt.Sprintf("HostLeaf(%+v)", qs), dst, ref.hostLeaf(qs))
	}
	for id, n := range ref.nodes {
		got, ok := s.Node(uint32(id))
		if (n != nil) != ok || (ok && got.Name != n.Name) {
			t.Fatalf("Node(%d) = %v, %v; want %v", id, got, ok, n)
		}
		if n == nil {
			continue
		}
		if gid, ok := s.ID(n.Name); !ok || gid != uint32(id) {
			t.Fatalf("ID(%q) = %d, %v; want %d", n.Name, gid, ok, id)
		}
		if s.HasExtra(uint32(id)) != ref.has[id] {
			t.Fatalf("HasExtra(%d) = %v", id, !ref.has[id])
		}
		for _, key := range keys {
			got, want := s.ExtraValue(uint32(id), key), ref.extra[id][key]
			if got.Kind != want.Kind || got.Str != want.Str || got.Bool != want.Bool ||
				!(got.Num == want.Num || (got.Num != got.Num && want.Num != want.Num)) {
				t.Fatalf("ExtraValue(%d, %q) = %+v, want %+v", id, key, got, want)
			}
		}
	}
	if live := int(s.Live().GetCardinality()); live != s.Len() {
		t.Fatalf("Len() = %d, Live() has %d", s.Len(), live)
	}
}

func TestLeavesMatchNaiveOnRandomNodeSets(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		g := newGen(seed)
		// Sizes around the point where columns get checkpoints.
		n := []int{0, 1, 7, 64, 300, 1000, 3000}[seed%7]
		nodes := g.nodes(n)
		if seed%4 == 1 {
			for i := range nodes {
				nodes[i].Name = fmt.Sprintf("node%d", i+5) // sequential hostname columns
			}
		}
		if seed%4 == 3 {
			for i := range nodes {
				// A run that breaks half way: the column is kept node by node.
				v := i + 5
				if i >= len(nodes)/2 {
					v = 3*len(nodes) - i
				}
				nodes[i].Name = fmt.Sprintf("node%d", v)
			}
		}
		if seed%3 == 0 {
			for i := range nodes {
				nodes[i].Rank = uint32(i) // the usual case: ranks are ids
			}
		}
		s, err := Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstNaive(t, g, s, newNaive(ptrs(nodes)), 200)
	}
}

func TestBuildRejectsDuplicateNames(t *testing.T) {
	for _, names := range [][]string{{"a", "a"}, {"n1", "n2", "n2"}, {"n1", "n2", "n1"}, {"n7", "n5", "n6", "n7"}} {
		nodes := make([]Node, len(names))
		for i, name := range names {
			nodes[i].Name = name
		}
		if _, err := Build(nodes); err == nil {
			t.Errorf("Build accepted the duplicate name in %q", names)
		}
	}
}

// Columns with more distinct numbers than a builder interns spill to plain
// entries part way through the build, duplicate keys included; the same
// columns under the default bound stay interned.
func TestLeavesMatchNaiveWhenNumbersSpill(t *testing.T) {
	for _, spill := range []bool{true, false} {
		t.Run(fmt.Sprintf("spill=%t", spill), func(t *testing.T) {
			if spill {
				spillAt(t, 4096)
			}
			g := newGen(99)
			nodes := g.nodes(3 * 4096)
			for i := range nodes {
				mem := strconv.FormatFloat(g.r.NormFloat64()*1e6, 'g', -1, 64)
				switch i % 5 {
				case 0:
					nodes[i].Extra = []byte(`{"mem":` + mem + `,"a":` + g.value() + `,"mem":` + g.value() + `}`)
				case 1:
					nodes[i].Extra = []byte(`{"mem":` + g.value() + `,"mem":` + mem + `}`)
				default:
					nodes[i].Extra = []byte(`{"a":` + g.value() + `,"mem":` + mem + `}`)
				}
			}
			s, err := Build(nodes)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstNaive(t, g, s, newNaive(ptrs(nodes)), 200)
		})
	}
}
