package bitops

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

func randWords(r *rand.Rand, n int) []uint64 {
	w := make([]uint64, n)
	for i := range w {
		switch r.IntN(4) {
		case 0: // runs of empty and full words, as dense node sets have
		case 1:
			w[i] = ^uint64(0)
		default:
			w[i] = r.Uint64()
		}
	}
	return w
}

// kernels are the exported kernels, each with the plain per-word rule it
// must follow.
var kernels = []struct {
	name string
	run  func(d []uint64, ops [3][]uint64)
	word func(d uint64, ops [3]uint64) uint64
}{
	{"And", func(d []uint64, o [3][]uint64) { And(d, o[0]) }, func(d uint64, o [3]uint64) uint64 { return d & o[0] }},
	{"And2", func(d []uint64, o [3][]uint64) { And2(d, o[0], o[1]) }, func(d uint64, o [3]uint64) uint64 { return d & o[0] & o[1] }},
	{"AndAny", func(d []uint64, o [3][]uint64) { AndAny(d, o[0], o[1]) }, func(_ uint64, o [3]uint64) uint64 { return o[0] & o[1] }},
	{"Or", func(d []uint64, o [3][]uint64) { Or(d, o[0]) }, func(d uint64, o [3]uint64) uint64 { return d | o[0] }},
	{"Or2", func(d []uint64, o [3][]uint64) { Or2(d, o[0], o[1]) }, func(d uint64, o [3]uint64) uint64 { return d | o[0] | o[1] }},
	{"AndNot", func(d []uint64, o [3][]uint64) { AndNot(d, o[0]) }, func(d uint64, o [3]uint64) uint64 { return d &^ o[0] }},
	{"Not", func(d []uint64, o [3][]uint64) { Not(d, o[0]) }, func(d uint64, o [3]uint64) uint64 { return o[0] &^ d }},
	{"Diff", func(d []uint64, o [3][]uint64) { Diff(d, o[0], o[1]) }, func(_ uint64, o [3]uint64) uint64 { return o[0] &^ o[1] }},
	{"OrDiff", func(d []uint64, o [3][]uint64) { OrDiff(d, o[0], o[1]) }, func(d uint64, o [3]uint64) uint64 { return d | o[0]&^o[1] }},
	{"UnionDiff", func(d []uint64, o [3][]uint64) { UnionDiff(d, o[0], o[1], o[2]) }, func(_ uint64, o [3]uint64) uint64 { return o[0] | o[1]&^o[2] }},
}

// TestKernelsMatchThePlainRule runs every kernel, with the vector loops and
// without, over lengths around the 16-word block and the 8-word Go step and
// at unaligned starts, against the per-word rule; the words around the
// slice must stay untouched.
func TestKernelsMatchThePlainRule(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 21))
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, vec := range []bool{false, saved} {
		useAVX2 = vec
		for _, k := range kernels {
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 100, 1563, 15625} {
				for _, off := range []int{0, 1, 3} {
					t.Run(fmt.Sprintf("%s/avx2=%t/n=%d/off=%d", k.name, vec, n, off), func(t *testing.T) {
						full := randWords(r, n+off+2)
						orig := append([]uint64(nil), full...)
						var ops [3][]uint64
						for j := range ops {
							ops[j] = randWords(r, n+off)[off:]
						}
						d := full[off : off+n]
						k.run(d, ops)
						for i := range d {
							want := k.word(orig[off+i], [3]uint64{ops[0][i], ops[1][i], ops[2][i]})
							if d[i] != want {
								t.Fatalf("word %d = %#x, want %#x", i, d[i], want)
							}
						}
						for i := range full {
							if (i < off || i >= off+n) && full[i] != orig[i] {
								t.Fatalf("word %d outside the slice changed", i)
							}
						}
					})
				}
			}
		}
		for _, n := range []int{0, 1, 15, 16, 17, 64, 1563, 15625} {
			w := randWords(r, n+1)[1:]
			want := 0
			for _, x := range w {
				want += bits.OnesCount64(x)
			}
			if got := Count(w); got != want {
				t.Errorf("Count avx2=%t n=%d = %d, want %d", vec, n, got, want)
			}
		}
	}
}

// TestAndAnyFindsTheOneMember: with the vector loop and without, AndAny
// of operands that share no node reports none, and with one shared node
// at any word (in a block or in the tail) reports it; so does AndNotAny
// with that node in or out of its third operand.
func TestAndAnyFindsTheOneMember(t *testing.T) {
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, vec := range []bool{false, saved} {
		useAVX2 = vec
		for _, n := range []int{0, 1, 15, 16, 17, 33, 87, 157} {
			a, b, d := make([]uint64, n), make([]uint64, n), make([]uint64, n)
			for i := range a {
				a[i], b[i] = 0x5555555555555555, 0xaaaaaaaaaaaaaaaa
			}
			if AndAny(d, a, b) {
				t.Fatalf("avx2=%t n=%d: a member of disjoint sets", vec, n)
			}
			// AndNotAny(a, a, b): a &^ b is a; with c = a, none.
			if AndNotAny(a, a, a) || n > 0 && !AndNotAny(a, a, b) {
				t.Fatalf("avx2=%t n=%d: AndNotAny of a set and itself", vec, n)
			}
			for i := range a {
				b[i] |= 1 << (2 * (i % 32))
				if !AndAny(d, a, b) {
					t.Fatalf("avx2=%t n=%d: the member at word %d not found", vec, n, i)
				}
				// The one member of a & b is a's only member outside c.
				c := append([]uint64(nil), a...)
				c[i] &^= 1 << (2 * (i % 32))
				if !AndNotAny(a, b, c) {
					t.Fatalf("avx2=%t n=%d: AndNotAny missed the member at word %d", vec, n, i)
				}
				c[i] = a[i]
				if AndNotAny(a, b, c) {
					t.Fatalf("avx2=%t n=%d: AndNotAny found a member in c", vec, n)
				}
				b[i] = 0xaaaaaaaaaaaaaaaa
			}
		}
	}
}

func TestWindowHoldsEveryNonZeroWord(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 17, 100, 1563} {
		for range 200 {
			w := make([]uint64, n)
			// Zero runs of every length at both ends, members anywhere.
			for k := r.IntN(4); k > 0 && n > 0; k-- {
				w[r.IntN(n)] = 1 << r.IntN(64)
			}
			wantLo, wantHi := 0, 0
			for i, x := range w {
				if x != 0 {
					if wantHi == 0 {
						wantLo = i
					}
					wantHi = i + 1
				}
			}
			if lo, hi := Window(w); lo != wantLo || hi != wantHi {
				t.Fatalf("Window of %d words with members at %v = [%d, %d), want [%d, %d)", n, nonZero(w), lo, hi, wantLo, wantHi)
			}
		}
	}
}

func nonZero(w []uint64) []int {
	var at []int
	for i, x := range w {
		if x != 0 {
			at = append(at, i)
		}
	}
	return at
}

func TestEqualFindsADifferenceAtEveryWordAndBit(t *testing.T) {
	for n := 1; n <= 40; n++ {
		a := make([]uint64, n)
		for i := range a {
			a[i] = uint64(i+1) * 0x9e3779b97f4a7c15
		}
		for i := range n {
			for _, bit := range []uint{0, 31, 63} {
				b := append([]uint64(nil), a...)
				b[i] ^= 1 << bit
				if Equal(a, b) || Equal(b, a) {
					t.Fatalf("n=%d: Equal misses a difference at word %d bit %d", n, i, bit)
				}
			}
		}
		if !Equal(a, append([]uint64(nil), a...)) {
			t.Fatalf("n=%d: Equal differs on a copy", n)
		}
	}
}

func TestEqualComparesTheFirstSliceLength(t *testing.T) {
	tests := []struct {
		name string
		a, b []uint64
		want bool
	}{
		{"both empty", nil, nil, true},
		{"same", []uint64{1, 2}, []uint64{1, 2}, true},
		{"longer second", []uint64{1, 2}, []uint64{1, 2, 3}, true},
		{"differs", []uint64{1, 2}, []uint64{1, 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Equal(tt.a, tt.b); got != tt.want {
				t.Errorf("Equal = %t, want %t", got, tt.want)
			}
		})
	}
}

func BenchmarkKernels(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1563 // 100k nodes
	d := randWords(r, n)
	var ops [3][]uint64
	for j := range ops {
		ops[j] = randWords(r, n)
	}
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, vec := range []bool{false, saved} {
		useAVX2 = vec
		for _, k := range kernels {
			b.Run(fmt.Sprintf("%s/avx2=%t/nodes=100000", k.name, vec), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					k.run(d, ops)
				}
			})
		}
		b.Run(fmt.Sprintf("Count/avx2=%t/nodes=100000", vec), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Count(d)
			}
		})
	}
}

func BenchmarkEqual(b *testing.B) {
	for _, n := range []int{4, 87, 157} {
		x, y := make([]uint64, n), make([]uint64, n)
		for i := range x {
			x[i], y[i] = uint64(i)*0x9e3779b97f4a7c15, uint64(i)*0x9e3779b97f4a7c15
		}
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !Equal(x, y) {
					b.Fatal("unequal")
				}
			}
		})
	}
}
