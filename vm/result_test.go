package vm

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestResultIsRoaringsOwnForm(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	m := NewMachine()
	for iter := range 300 {
		words := make([]uint64, r.IntN(5000))
		// Densities from empty through array-sized to bitmap-sized chunks,
		// around the 4,096-member boundary too, and clustered sets.
		density := []float64{0, 0.001, 0.0625, 0.0626, 0.3, 1}[r.IntN(6)]
		lo, hi := 0, len(words)*64
		if r.IntN(3) == 0 && hi > 0 {
			lo = r.IntN(hi)
			hi = lo + r.IntN(hi-lo+1)
		}
		for id := lo; id < hi; id++ {
			if r.Float64() < density {
				words[id>>6] |= 1 << (id & 63)
			}
		}
		if iter == 0 && len(words) >= 1024 {
			// Exactly 4,096 and 4,097 members in the first two chunks.
			clear(words)
			for id := range 4096 {
				words[id/64] |= 1 << (id % 64)
			}
		}
		keep := append([]uint64(nil), words...)
		want := roaring.FromDense(words, true)
		got := m.result(words)
		if err := got.Validate(); err != nil {
			t.Fatalf("iter %d: invalid bitmap: %v", iter, err)
		}
		wb, _ := want.ToBytes()
		gb, _ := got.ToBytes()
		if !got.Equals(want) || !bytes.Equal(wb, gb) {
			t.Fatalf("iter %d (%d words, density %v): %d members, want %d (or another container form)", iter, len(words), density, got.GetCardinality(), want.GetCardinality())
		}
		// The result is the caller's to change, and changing it leaves the
		// words alone.
		got.Flip(0, uint64(len(words))*64+5)
		got.Add(7)
		if !bytes.Equal(u64bytes(words), u64bytes(keep)) {
			t.Fatalf("iter %d: changing the result changed the words", iter)
		}
	}
}

func u64bytes(w []uint64) []byte {
	b := make([]byte, 0, 8*len(w))
	for _, x := range w {
		for i := range 8 {
			b = append(b, byte(x>>(8*i)))
		}
	}
	return b
}

// BenchmarkResult turns the dense words of a run's answer into the
// returned bitmap: sift's writer against roaring.FromDense, at the
// densities of the 10-leaf benchmark (7,401 of 100k: array containers) and
// of Slurm request 4 of the peer suite (22,918: bitmap containers).
func BenchmarkResult(b *testing.B) {
	for _, members := range []int{7401, 22918} {
		words := make([]uint64, (100000+63)/64)
		r := rand.New(rand.NewPCG(1, uint64(members)))
		for n := 0; n < members; {
			id := r.IntN(100000)
			if words[id>>6]&(1<<(id&63)) == 0 {
				words[id>>6] |= 1 << (id & 63)
				n++
			}
		}
		m := NewMachine()
		b.Run("members="+strconv.Itoa(members)+"/engine=sift", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.result(words)
			}
		})
		b.Run("members="+strconv.Itoa(members)+"/engine=roaring.FromDense", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				roaring.FromDense(words, true)
			}
		})
	}
}
