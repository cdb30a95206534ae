package bits

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRunsMatchesBitByBitScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 500; iter++ {
		n := 1 + r.IntN(300)
		s := New(n)
		density := r.Float64()
		for i := 0; i < n; i++ {
			if r.Float64() < density {
				s.Add(uint32(i))
			}
		}
		var want, got [][2]int
		start := -1
		for i := 0; i <= len(s)*64; i++ {
			in := i < len(s)*64 && s.Has(uint32(i))
			if in && start < 0 {
				start = i
			}
			if !in && start >= 0 {
				want = append(want, [2]int{start, i - 1})
				start = -1
			}
		}
		s.Runs(func(a, b int) bool { got = append(got, [2]int{a, b}); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("runs %v, want %v", got, want)
		}
	}
}

func TestCountRangeMatchesHas(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := New(400)
	for i := 0; i < 400; i++ {
		if r.IntN(2) == 0 {
			s.Add(uint32(i))
		}
	}
	for iter := 0; iter < 2000; iter++ {
		lo := r.IntN(400)
		hi := lo + r.IntN(400-lo+1)
		want := 0
		for i := lo; i < hi; i++ {
			if s.Has(uint32(i)) {
				want++
			}
		}
		if got := s.CountRange(lo, hi); got != want {
			t.Fatalf("[%d,%d): %d, want %d", lo, hi, got, want)
		}
	}
}
