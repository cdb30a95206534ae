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
		check("and", andWords, func(x, y uint64) uint64 { return x & y }, b)
		check("or", orWords, func(x, y uint64) uint64 { return x | y }, b)
		check("and not", andNotWords, func(x, y uint64) uint64 { return x &^ y }, b)
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

func TestTightWindowHoldsEveryMember(t *testing.T) {
	tests := []struct {
		name string
		w    []uint64
		want window
	}{
		{"no words", nil, window{0, 0}},
		{"all zero", []uint64{0, 0, 0}, window{0, 0}},
		{"one word in the middle", []uint64{0, 4, 0}, window{1, 2}},
		{"both ends", []uint64{1, 0, 1 << 63}, window{0, 3}},
		{"zero tail", []uint64{0, 1, 2, 0, 0}, window{1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tight(tt.w, 0, len(tt.w)); got != tt.want {
				t.Errorf("tight = %v, want %v", got, tt.want)
			}
		})
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
