package bitset

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
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

// TestAddRangeMatchesAdd: AddRange puts in the ids Add would, one by one.
func TestAddRangeMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 2000; iter++ {
		n := 1 + r.IntN(400)
		s := New(n)
		for i := 0; i < n; i++ {
			if r.IntN(4) == 0 {
				s.Add(uint32(i))
			}
		}
		want := s.Clone()
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo+1)
		for i := lo; i < hi; i++ {
			want.Add(uint32(i))
		}
		s.AddRange(lo, hi)
		if !s.Equal(want) {
			t.Fatalf("[%d,%d): %v, want %v", lo, hi, s, want)
		}
	}
}

// TestAndCountMatchesHas: AndCount over s's span counts the ids in both
// sets.
func TestAndCountMatchesHas(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 500; iter++ {
		n := 1 + r.IntN(400)
		s, o := New(n), New(n)
		want := 0
		for i := 0; i < n; i++ {
			a, b := r.IntN(3) == 0, r.IntN(2) == 0
			if a {
				s.Add(uint32(i))
			}
			if b {
				o.Add(uint32(i))
			}
			if a && b {
				want++
			}
		}
		lo, hi := s.Span()
		if got := s.AndCount(o, lo, hi); got != want {
			t.Fatalf("n %d: %d, want %d", n, got, want)
		}
	}
}

// TestFillSpanAndAny: Fill gives FromRoaring's members in place (ids past
// the set dropped), Span covers exactly the words with members, and AndAny
// is And that reports whether a member is left.
func TestFillSpanAndAny(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 300; iter++ {
		n := 1 + r.IntN(700)
		b := roaring.New()
		for k := r.IntN(40); k > 0; k-- {
			b.Add(uint32(r.IntN(n + 100)))
		}
		s := New(n)
		s.Add(uint32(r.IntN(n)))
		s.Fill(b)
		want := FromRoaring(b, len(s)*64)
		if !s.Equal(want) {
			t.Fatalf("iter %d: Fill %v, FromRoaring %v", iter, s, want)
		}
		lo, hi := s.Span()
		for w := range s {
			if (w < lo || w >= hi) && s[w] != 0 {
				t.Fatalf("iter %d: word %d has members outside span [%d, %d)", iter, w, lo, hi)
			}
		}
		if hi > lo && (s[lo] == 0 || s[hi-1] == 0) {
			t.Fatalf("iter %d: span [%d, %d) is not tight", iter, lo, hi)
		}
		o := New(n)
		for id := 0; id < n; id++ {
			if r.IntN(2) == 0 {
				o.Add(uint32(id))
			}
		}
		plain := s.Clone()
		plain.And(o)
		if any := s.AndAny(o); !s.Equal(plain) || any != (plain.Count() > 0) {
			t.Fatalf("iter %d: AndAny %v (%v), And %v", iter, s, any, plain)
		}
	}
}
