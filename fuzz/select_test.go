package fuzz

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
	"github.com/nodesift/sift/vm"
)

// bruteForceFits reports whether any subset of the nodes in free (a bit per
// node id, n nodes) has between lo and hi members and, when contiguous,
// consecutive ids: it tries every subset.
func bruteForceFits(free uint32, n, lo, hi int, contiguous bool) bool {
	for s := uint32(0); s < 1<<n; s++ {
		if s&^free != 0 {
			continue
		}
		c := bits.OnesCount32(s)
		if c < lo || c > hi {
			continue
		}
		if contiguous && s != 0 && s>>bits.TrailingZeros32(s) != 1<<c-1 {
			continue
		}
		return true
	}
	return false
}

func mask(b *roaring.Bitmap) uint32 {
	var m uint32
	b.Iterate(func(id uint32) bool { m |= 1 << id; return true })
	return m
}

// FuzzSelectLinearVsBruteForce places a job on a cluster of at most 12
// nodes (random states, some nodes running jobs, candidates from a random
// constraint run on the VM) with select/linear, and checks the plugin
// against a brute-force search over every node subset: it must find an
// allocation exactly when one exists, and the allocation must be one.
func FuzzSelectLinearVsBruteForce(f *testing.F) {
	f.Add(uint64(1), uint8(8), uint8(2), uint8(0), false)
	f.Add(uint64(2), uint8(12), uint8(4), uint8(2), true)
	f.Add(uint64(3), uint8(5), uint8(5), uint8(0), true)
	f.Fuzz(func(t *testing.T, seed uint64, size, minNodes, extra uint8, contiguous bool) {
		r := rand.New(rand.NewPCG(seed, 11))
		n := 1 + int(size)%12
		nodes := GenNodes(r, n)
		for i := range nodes {
			nodes[i].CPUs = 4
			nodes[i].State = []string{"", "", "", "idle", "down", "drain"}[r.IntN(6)]
		}
		snap, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		cand := snap.Live()
		if r.IntN(3) > 0 {
			prog, err := compiler.CompileAST(GenSlurmExpr(r, nodes), nil)
			if err != nil {
				t.Fatal(err)
			}
			cand = vm.Run(prog, snap)
		}
		cl := job.NewCluster(snap)
		p := linear.New(cl, linear.Config{})
		busy := uint32(0)
		cl.Usable.Iterate(func(id uint32) bool {
			if r.IntN(4) == 0 {
				req := &job.Request{ID: id + 1, MinNodes: 1, MaxNodes: 1}
				a, err := p.Select(req, roaring.BitmapOf(id), job.RunNow, 0)
				if err != nil {
					t.Fatalf("one-node job on idle usable node %d: %v", id, err)
				}
				if err := p.Begin(req, a); err != nil {
					t.Fatal(err)
				}
				busy |= 1 << id
			}
			return true
		})
		lo := 1 + int(minNodes)%n
		hi := lo + int(extra)%3
		req := &job.Request{ID: 1 << 20, MinNodes: lo, MaxNodes: hi, ReqNodes: hi, Contiguous: contiguous}
		free := mask(cand) & mask(cl.Usable) &^ busy
		want := bruteForceFits(free, n, lo, hi, contiguous)
		a, err := p.Select(req, cand.Clone(), job.RunNow, 0)
		var unsat *job.Unsatisfied
		if err != nil && !errors.As(err, &unsat) {
			t.Fatalf("Select: %v", err)
		}
		if got := err == nil; got != want {
			t.Fatalf("nodes %d, free %012b, job %d-%d contiguous=%v: linear found an allocation: %v (err %v), brute force: %v",
				n, free, lo, hi, contiguous, got, err, want)
		}
		if err != nil {
			return
		}
		got := mask(a.Nodes)
		c := bits.OnesCount32(got)
		if got&^free != 0 || c < lo || c > hi || contiguous && got>>bits.TrailingZeros32(got) != 1<<c-1 {
			t.Fatalf("free %012b, job %d-%d contiguous=%v: linear allocated %012b", free, lo, hi, contiguous, got)
		}
	})
}

func TestBruteForceFits(t *testing.T) {
	for _, tc := range []struct {
		free       uint32
		n, lo, hi  int
		contiguous bool
		want       bool
	}{
		{0b1011, 4, 3, 3, false, true},
		{0b1011, 4, 3, 3, true, false},
		{0b0111, 4, 3, 3, true, true},
		{0b0000, 4, 1, 1, false, false},
		{0b1111, 4, 5, 6, false, false},
	} {
		if got := bruteForceFits(tc.free, tc.n, tc.lo, tc.hi, tc.contiguous); got != tc.want {
			t.Errorf("bruteForceFits(%04b, %d, %d, %d, %v) = %v", tc.free, tc.n, tc.lo, tc.hi, tc.contiguous, got)
		}
	}
}
