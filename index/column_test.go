package index

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nodesift/sift/extra"
)

// edgeFloats are node values and request values around Slurm's 1e-5
// tolerance, IEEE specials and integers beyond 2^53.
func edgeFloats() []float64 {
	base := []float64{0, math.Copysign(0, -1), 1, -1, 1e-5, -1e-5, 2e-5, 1 + 1e-5, 1 - 1e-5, 1e9 + 1e-5,
		1 << 53, 1<<53 + 2, 1 << 63, -(1 << 63), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), 123456.78901, 3.5}
	var out []float64
	for _, f := range base {
		out = append(out, f)
		up, down := f, f
		for k := 0; k < 3; k++ {
			up, down = math.Nextafter(up, math.Inf(1)), math.Nextafter(down, math.Inf(-1))
			out = append(out, up, down)
		}
	}
	return out
}

// The leaf algorithm rests on this: over ascending node values,
// extra.NumberOrder against a fixed request is LT* EQ* GT*.
func TestNumberOrderIsMonotoneOverSortedNodeValues(t *testing.T) {
	vals := edgeFloats()
	sorted := slices.DeleteFunc(slices.Clone(vals), func(f float64) bool { return f != f })
	slices.Sort(sorted)
	for _, b := range vals {
		prev := extra.Less
		for _, a := range sorted {
			c := extra.NumberOrder(a, b)
			if c < prev {
				t.Fatalf("NumberOrder not monotone for request %v at node %v: %d after %d", b, a, c, prev)
			}
			prev = c
		}
	}
	for _, b := range vals {
		if extra.NumberOrder(math.NaN(), b) != extra.Greater || extra.NumberOrder(b, math.NaN()) != extra.Greater {
			t.Fatalf("NaN must compare greater on either side (b=%v)", b)
		}
	}
}

func TestNumberColumnMatchesValueMatchOnEdgeValues(t *testing.T) {
	vals := edgeFloats()
	// Enough nodes for checkpoints: several copies of each value.
	var nodeVals []extra.Value
	for k := 0; k < 12; k++ {
		for _, f := range vals {
			nodeVals = append(nodeVals, extra.Value{Kind: extra.KindNumber, Num: f})
		}
		nodeVals = append(nodeVals, extra.Value{Kind: extra.KindString, Str: "1"}, extra.Value{Kind: extra.KindBool, Bool: k%2 == 0},
			extra.Value{Kind: extra.KindUnusable}, extra.Value{})
	}
	words := (len(nodeVals) + 63) / 64
	cb := newColBuilder(uint32(len(nodeVals)))
	for id, v := range nodeVals {
		cb.addValue(uint32(id), v)
	}
	c := cb.finish(uint32(len(nodeVals)), words)
	if len(c.num.ck) == 0 {
		t.Fatal("column too small to test checkpoints")
	}
	dst := make([]uint64, words)
	for _, b := range vals {
		for op := extra.Eq; op <= extra.Ge; op++ {
			o := Operand{Raw: "1", Num: b, NumOK: true, Bool: true}
			for i := range dst {
				dst[i] = ^uint64(0)
			}
			k := sink{dst: dst, hi: len(dst)}
			c.writeLeaf(op, &o, &k)
			k.prepare()
			n := 0
			for id, v := range nodeVals {
				want := o.Match(v, op)
				if want {
					n++
				}
				if got := dst[id>>6]&(1<<(id&63)) != 0; got != want {
					t.Fatalf("node %+v %v request %v: got %v, want %v", v, op, b, got, want)
				}
			}
			if e := c.estimate(op, &o); e != n {
				t.Fatalf("estimate %v %v = %d, want %d", op, b, e, n)
			}
		}
	}
}

func TestDuplicateKeysKeepTheLastValue(t *testing.T) {
	s, _ := Build([]Node{
		{Name: "a", Extra: []byte(`{"k":1,"k":"x"}`)},
		{Name: "b", Extra: []byte(`{"k":"x","k":true,"k":2}`)},
		{Name: "c", Extra: []byte(`{"k\u0000z":1,"k":null}`)},
	})
	want := []extra.Value{{Kind: extra.KindString, Str: "x"}, {Kind: extra.KindNumber, Num: 2}, {Kind: extra.KindUnusable}}
	for id, w := range want {
		if got := s.ExtraValue(uint32(id), "k"); got != w {
			t.Errorf("node %d: got %+v, want %+v", id, got, w)
		}
	}
	if st := s.KeyStats("k"); st.Nodes != 3 || st.Numbers != 1 || st.Strings != 1 || st.Unusable != 1 {
		t.Errorf("KeyStats = %+v", st)
	}
}

func TestFastNumberAgreesWithJSONNumber(t *testing.T) {
	for _, s := range append(numTexts, "", "-", "+5", "-9223372036854775808", "18446744073709551616", "12a", "1E5", "-0.0") {
		got, want := fastNumber([]byte(s)), jsonNumber([]byte(s))
		if got != want && !(got != got && want != want) {
			t.Errorf("fastNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestHostRangeOverAMillionNodesCostsItsOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1M nodes")
	}
	nodes := synthNodes(1_000_000, 1)
	s, err := Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]uint64, s.Words())
	s.HostLeaf([]HostQuery{{Alpha: "node", Digits: 7, Lo: 1, Hi: 1_000_000}}, dst)
	n := 0
	for _, w := range dst {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	if n != 1_000_000 {
		t.Fatalf("node[0000001-1000000] matched %d nodes, want 1000000", n)
	}
}

func TestSimpleDecimalAgreesWithParseFloat(t *testing.T) {
	g := newGen(3)
	for i := 0; i < 200000; i++ {
		ip := g.r.Uint64N(1 << uint(g.r.IntN(50)+1))
		fp := 1000000 + g.r.Uint64N(1000000)
		s := strconv.FormatUint(ip, 10) + "." + strconv.FormatUint(fp, 10)[1:2+g.r.IntN(6)]
		if g.r.IntN(2) == 0 {
			s = "-" + s
		}
		want, _ := strconv.ParseFloat(s, 64)
		if got := fastNumber([]byte(s)); got != want {
			t.Fatalf("fastNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// numberValue converts while it scans; it must accept exactly what number
// accepts and give fastNumber's value, sign of zero included.
func TestNumberValueAgreesWithNumberAndFastNumber(t *testing.T) {
	texts := append(slices.Clone(numTexts), "0", "-0", "-0.0", "00", "01", "-", "1.", ".5", "1e", "1e+", "1.5e3",
		"123456789012345", "1234567890123456", "12345678901234.5", "123456789012345.6", "0.000000000000001",
		"999999999999999999", "9999999999999999999", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "1E5", "2.50", "-3.75", "1x")
	r := rand.New(rand.NewPCG(7, 7))
	for range 5000 {
		var b []byte
		if r.IntN(3) == 0 {
			b = append(b, '-')
		}
		for range 1 + r.IntN(22) {
			c := byte('0' + r.IntN(10))
			if r.IntN(8) == 0 {
				c = ".eE+-"[r.IntN(5)]
			}
			b = append(b, c)
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		a := extraReader{s: []byte(s)}
		wantOK := a.number() && a.i == len(s)
		b := extraReader{s: []byte(s)}
		got, ok := b.numberValue()
		ok = ok && b.i == len(s)
		if ok != wantOK || b.i != a.i && wantOK {
			t.Errorf("numberValue(%q) ok=%v at %d, number ok=%v at %d", s, ok, b.i, wantOK, a.i)
			continue
		}
		if want := fastNumber([]byte(s)); ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("numberValue(%q) = %v, fastNumber = %v", s, got, want)
		}
	}
}

// jsonNumber is the plain reference for fastNumber: it converts a JSON
// number's text as json-c and Slurm do: integers (no fraction or exponent)
// are read as int64, clamped at its bounds, then converted to float64; reals
// are read with strtod (overflow gives ±Inf).
func jsonNumber(text []byte) float64 {
	s := string(text)
	if !strings.ContainsAny(s, ".eE") {
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			if strings.HasPrefix(s, "-") {
				return float64(math.MinInt64)
			}
			return float64(math.MaxInt64)
		}
		return float64(i)
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// spillAt makes builders spill past n distinct numbers for the rest of
// the test, so that small columns take the spilled path.
func spillAt(t *testing.T, n int) {
	saved := maxInterned
	maxInterned = n
	t.Cleanup(func() { maxInterned = saved })
}

// A builder in dense mode must finish to exactly the column the ref lists
// give, whatever the mix of types, duplicate keys, NaNs and spills.
func TestDenseBuilderMatchesRefBuilder(t *testing.T) {
	spillAt(t, 4096)
	spilledDense := 0
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		bound := uint32(denseAfter*2 + r.IntN(8000))
		distinct := []int{3, 60, maxInterned + 500}[seed%3]
		if distinct > maxInterned {
			bound += 3 * uint32(maxInterned) // enough numbers to spill
		}
		density := []int{100, 90, 60, 45}[seed%4]
		value := func() extra.Value {
			switch k := r.IntN(100); {
			case k < 55:
				return extra.Value{Kind: extra.KindNumber, Num: float64(r.IntN(distinct)) / 4}
			case k < 58:
				return extra.Value{Kind: extra.KindNumber, Num: math.NaN()}
			case k < 80:
				return extra.Value{Kind: extra.KindString, Str: strconv.Itoa(r.IntN(distinct))}
			case k < 95:
				return extra.Value{Kind: extra.KindBool, Bool: r.IntN(2) == 0}
			}
			return extra.Value{Kind: extra.KindUnusable}
		}
		dense, refs := newColBuilder(bound), newColBuilder(bound)
		refs.count = math.MinInt / 2 // never switches
		for id := range bound {
			if r.IntN(100) >= density {
				continue
			}
			for range 1 + r.IntN(2)*r.IntN(3) { // duplicate keys now and then
				v := value()
				dense.addValue(id, v)
				refs.addValue(id, v)
			}
		}
		if dense.dense == nil && density >= 50 {
			t.Fatalf("seed %d: builder did not switch to dense", seed)
		}
		if dense.dense != nil && dense.spilled {
			spilledDense++
		}
		words := (int(bound) + 63) / 64
		got, want := dense.finish(bound, words), refs.finish(bound, words)
		if !reflect.DeepEqual(got, want) {
			for id := range bound {
				if g, w := got.value(id), want.value(id); g != w && !(g.Num != g.Num && w.Num != w.Num) {
					t.Fatalf("seed %d: node %d: dense %+v, refs %+v", seed, id, g, w)
				}
			}
			t.Fatalf("seed %d: columns differ", seed)
		}
	}
	if spilledDense == 0 {
		t.Fatal("no dense builder spilled its numbers")
	}
}

// A column most ids lack is placed straight into its pairs: it must be
// exactly the column that placing a dense list and compacting it gives.
func TestSparseColumnMatchesCompactedDense(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		if seed%4 == 0 {
			spillAt(t, 8)
		} else {
			spillAt(t, 4096)
		}
		r := rand.New(rand.NewPCG(seed, 11))
		bound := uint32(1 + r.IntN(9000))
		density := []int{1, 10, 30, 49}[seed%4]
		var vals []extra.Value
		var ids []uint32
		for id := range bound {
			if r.IntN(100) >= density {
				continue
			}
			for range 1 + r.IntN(2)*r.IntN(3) { // duplicate keys now and then
				var v extra.Value
				switch k := r.IntN(100); {
				case k < 55:
					v = extra.Value{Kind: extra.KindNumber, Num: float64(r.IntN(40)) / 4}
				case k < 58:
					v = extra.Value{Kind: extra.KindNumber, Num: math.NaN()}
				case k < 80:
					v = extra.Value{Kind: extra.KindString, Str: strconv.Itoa(r.IntN(40))}
				case k < 95:
					v = extra.Value{Kind: extra.KindBool, Bool: r.IntN(2) == 0}
				default:
					v = extra.Value{Kind: extra.KindUnusable}
				}
				vals, ids = append(vals, v), append(ids, id)
			}
		}
		words := (int(bound) + 63) / 64
		finish := func(direct bool) *column {
			placeSparse = direct
			defer func() { placeSparse = true }()
			b := newColBuilder(bound)
			b.count = math.MinInt / 2 // never dense mode
			for i, v := range vals {
				b.addValue(ids[i], v)
			}
			return b.finish(bound, words)
		}
		got, want := finish(true), finish(false)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (bound %d, %d values): direct pairs %+v, compacted %+v", seed, bound, len(vals), got, want)
		}
	}
}
