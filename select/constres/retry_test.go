package constres

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// TestRetryRunsMultiNodeJobsOnIdleNodes: a 2-node job that needs whole
// nodes after 32-CPU jobs on the first of five 36-CPU nodes runs on the two
// idle nodes, as Slurm ran it on the lab (cirrus-fragmented.json); the
// same with a node range. A job the first evaluation places keeps its
// nodes (cn[1,4] in the recording).
func TestRetryRunsMultiNodeJobsOnIdleNodes(t *testing.T) {
	cirrus := nodeSpec{cpus: 36, sockets: 2, cores: 18, threads: 2, mem: 257400}
	for _, tc := range []struct {
		name   string
		before int
		job    string
		want   []uint32
	}{
		{"three partly used", 3, "nodes=2,ntasks=72", []uint32{3, 4}},
		{"one partly used", 1, "nodes=2,ntasks=72", []uint32{1, 2}},
		{"a range", 1, "nodes=1-2,ntasks=68", []uint32{1, 2}},
		{"fits beside them: no retry", 3, "nodes=2,ntasks=36", []uint32{0, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := testCluster(t, same(5, cirrus)...)
			p := New(cl, Config{})
			for i := range tc.before {
				r := spec(t, cl, "nodes=1,ntasks=32")
				r.ID = uint32(i + 1)
				a, err := p.Select(r, cl.Snap.Live(), job.RunNow, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Begin(r, a); err != nil {
					t.Fatal(err)
				}
			}
			r := spec(t, cl, tc.job)
			r.ID = 100
			a, err := p.Select(r, cl.Snap.Live(), job.RunNow, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Nodes.ToArray(); !slices.Equal(got, tc.want) {
				t.Fatalf("nodes %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRetrySkipChangesNoAnswer: the coverage check that skips the retry
// loop is a fast path; on random partly used clusters and multi-node jobs
// the retry with it answers exactly as the plain loop does.
func TestRetrySkipChangesNoAnswer(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	looped := 0
	for trial := range 400 {
		n := 3 + rng.IntN(8)
		cl := testCluster(t, same(n, nodeSpec{sockets: 1, cores: 8, threads: 1, mem: 64000})...)
		p := New(cl, Config{})
		for i := range n {
			if rng.IntN(3) == 0 {
				continue
			}
			r := spec(t, cl, fmt.Sprintf("nodes=1,ntasks=%d", 1+rng.IntN(8)))
			r.ID = uint32(i + 1)
			a, err := p.Select(r, bmOf(uint32(i)), job.RunNow, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Begin(r, a); err != nil {
				t.Fatal(err)
			}
		}
		js := fmt.Sprintf("nodes=%d,ntasks=%d", 2+rng.IntN(3), 1+rng.IntN(32))
		r := spec(t, cl, js)
		cand := bitset.FromRoaring(cl.Snap.Live(), cl.N)
		free := p.freeCores(p.st)
		var a, b selection
		if !a.eligibility(p, p.st, r, cand, free) || a.maxN == 1 {
			continue
		}
		if _, ok := a.consec(); ok {
			continue
		}
		pa, okA := a.retry()
		b.eligibility(p, p.st, r, cand, free)
		pb, okB := b.retryLoop()
		looped++
		if okA != okB || (okA && (!slices.Equal(pa.nodes, pb.nodes) || !slices.Equal(pa.cpus, pb.cpus))) {
			t.Fatalf("trial %d (%s on %d nodes): retry %v %+v, plain loop %v %+v", trial, js, n, okA, pa, okB, pb)
		}
	}
	if looped < 50 {
		t.Fatalf("only %d trials reached the retry", looped)
	}
}
