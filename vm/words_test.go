package vm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func randWords(r *rand.Rand, n int) []uint64 {
	w := make([]uint64, n)
	for i := range w {
		w[i] = r.Uint64()
	}
	return w
}

func TestWordOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 157, 1563} {
		a, b, live := randWords(r, n), randWords(r, n), randWords(r, n)
		for i := range a {
			a[i] &= live[i]
			b[i] &= live[i]
		}
		check := func(name string, f func(dst, src []uint64), op func(x, y uint64) uint64, src []uint64) {
			dst := append([]uint64(nil), a...)
			f(dst, src)
			for i := range dst {
				if want := op(a[i], src[i]); dst[i] != want {
					t.Fatalf("%s n=%d word %d = %x, want %x", name, n, i, dst[i], want)
				}
			}
		}
		c := randWords(r, n)
		check("and", func(dst, src []uint64) { andWords(dst, src) }, func(x, y uint64) uint64 { return x & y }, b)
		check("or", orWords, func(x, y uint64) uint64 { return x | y }, b)
		check("and not", func(dst, src []uint64) { andNotWords(dst, src) }, func(x, y uint64) uint64 { return x &^ y }, b)
		bc := make([]uint64, n)
		for i := range bc {
			bc[i] = b[i] & c[i]
		}
		check("and2", func(dst, src []uint64) { and2Words(dst, src, c) }, func(x, y uint64) uint64 { return x & y }, bc)
		for i := range bc {
			bc[i] = b[i] | c[i]
		}
		check("or2", func(dst, src []uint64) { or2Words(dst, src, c) }, func(x, y uint64) uint64 { return x | y }, bc)
		check("not", notWords, func(x, y uint64) uint64 { return y &^ x }, live)
		if isEmpty(a) != (popcount(a) == 0) {
			t.Fatalf("isEmpty n=%d disagrees with popcount", n)
		}
		if !equalWords(a, append([]uint64(nil), a...)) || (n > 0 && equalWords(a, b) != (fmt.Sprint(a) == fmt.Sprint(b))) {
			t.Fatalf("equalWords n=%d wrong", n)
		}
	}
}

func TestAndsReportWhetherAnythingIsLeft(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 3))
	for _, n := range []int{0, 1, 3, 4, 5, 9, 157} {
		for _, hit := range []int{-1, 0, n / 2, n - 1} {
			a, b, c := make([]uint64, n), make([]uint64, n), make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64() | 1
			}
			// b and c share bit 0 of word hit only; b holds all of a there.
			if hit >= 0 && hit < n {
				b[hit], c[hit] = 1, 1
			}
			want := hit >= 0 && hit < n
			ops := []struct {
				name string
				run  func(dst []uint64) bool
			}{
				{"and", func(dst []uint64) bool { return andWords(dst, b) }},
				{"and2", func(dst []uint64) bool { return and2Words(dst, b, c) }},
				{"and not", func(dst []uint64) bool {
					nb := make([]uint64, n)
					for i := range nb {
						nb[i] = ^b[i]
					}
					return andNotWords(dst, nb)
				}},
			}
			for _, op := range ops {
				dst := append([]uint64(nil), a...)
				if got := op.run(dst); got != want || got == isEmpty(dst) {
					t.Errorf("%s n=%d hit=%d: reports %v, want %v (isEmpty %v)", op.name, n, hit, got, want, isEmpty(dst))
				}
			}
		}
	}
}

func BenchmarkAndWords(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			x, y := randWords(r, (n+63)/64), randWords(r, (n+63)/64)
			b.ReportAllocs()
			for b.Loop() {
				andWords(x, y)
			}
		})
	}
}
