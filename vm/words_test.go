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
		check("and", andWords, func(x, y uint64) uint64 { return x & y }, b)
		check("or", orWords, func(x, y uint64) uint64 { return x | y }, b)
		check("and not", andNotWords, func(x, y uint64) uint64 { return x &^ y }, b)
		check("not", notWords, func(x, y uint64) uint64 { return y &^ x }, live)
		if isEmpty(a) != (popcount(a) == 0) {
			t.Fatalf("isEmpty n=%d disagrees with popcount", n)
		}
		if !equalWords(a, append([]uint64(nil), a...)) || (n > 0 && equalWords(a, b) != (fmt.Sprint(a) == fmt.Sprint(b))) {
			t.Fatalf("equalWords n=%d wrong", n)
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
