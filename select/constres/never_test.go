package constres

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// classedCluster is up to 40 nodes of one to three layouts (some with
// GPUs, which a class does not tell apart), in random order, so that one class's members are scattered among the others.
func classedCluster(t testing.TB, r *rand.Rand) *job.Cluster {
	n := 1 + r.IntN(40)
	layouts := make([]index.Node, 1+r.IntN(3))
	for i := range layouts {
		layouts[i] = index.Node{Sockets: 1 + r.IntN(2), CoresPerSocket: 1 + r.IntN(4), ThreadsPerCore: 1 + r.IntN(2),
			MemoryMB: uint64(500 * (1 + r.IntN(4))), Weight: uint32(r.IntN(2)), Partitions: []string{"p"}}
		if i > 0 && r.IntN(2) == 0 {
			// The same layout, its GPUs drawn again.
			layouts[i] = layouts[0]
		}
		if r.IntN(3) == 0 {
			layouts[i].Gres = []index.Gres{{Name: "gpu", Type: "a100", Count: uint64(1 + r.IntN(4))}}
		}
	}
	nodes := make([]index.Node, n)
	for i := range nodes {
		nodes[i] = layouts[r.IntN(len(layouts))]
		nodes[i].Name = fmt.Sprintf("n%d", i)
	}
	cl := clusterOf(t, nodes)
	cl.Partitions["p"].OverSubscribe = 1 + r.IntN(3)
	return cl
}

// TestEverFitsMemoAgreesWithPlain asks test 0 for a few random shapes on
// random candidate sets, most of them inside one node class so that the
// memo answers from sets of the same class with other members and other
// counts: every answer must be selectNodes' on the set asked.
func TestEverFitsMemoAgreesWithPlain(t *testing.T) {
	hits, yes, no := 0, 0, 0
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		cl := classedCluster(t, r)
		p := New(cl, Config{TrackMemory: r.IntN(2) == 0, DefMemPerCPU: uint64(100 * r.IntN(2)), Units: Units(r.IntN(3))})
		shapes := make([]*job.Request, 1+r.IntN(4))
		for i := range shapes {
			shapes[i] = countedRequest(r, uint32(i+1), cl.N)
		}
		for k := 0; k < 60; k++ {
			q := new(*shapes[r.IntN(len(shapes))])
			q.PlanEnd = int64(r.IntN(3)) * 1000
			all := bitset.New(cl.N)
			c := p.classOf[r.IntN(cl.N)]
			for id := range cl.N {
				if (p.classOf[id] == c || r.IntN(12) == 0) && r.IntN(3) != 0 {
					all.Add(uint32(id))
				}
			}
			if key, count, ok := p.everKeyOf(q, all); ok {
				if b := p.ever[key]; b.fits > 0 && count >= b.fits || count <= b.fails {
					hits++
				}
			}
			_, want := p.selectNodes(nil, q, all.Clone(), nil)
			if want {
				yes++
			} else {
				no++
			}
			if got := p.everFits(q, all); got != want {
				t.Fatalf("seed %d ask %d: memo says %v, selectNodes %v on %v (%+v)", seed, k, got, want, all.IDs(nil), *q)
			}
		}
	}
	if hits < 1000 || yes < 1000 || no < 1000 {
		t.Errorf("the memo answered %d questions, %d fit and %d did not; the test means many of each", hits, yes, no)
	}
}

// countedRequest is randomRequest with, at times, a wanted node count, no
// maximum, tasks per node or CPUs per node, which change how many nodes
// test 0 takes.
func countedRequest(r *rand.Rand, id uint32, n int) *job.Request {
	q := randomRequest(r, id, n)
	if r.IntN(2) == 0 {
		q.ReqNodes = r.IntN(n + 2)
		if r.IntN(2) == 0 {
			q.MaxNodes = 0
		}
		if q.MaxNodes > 0 && q.ReqNodes > q.MaxNodes {
			q.ReqNodes = q.MaxNodes
		}
	}
	if r.IntN(3) == 0 {
		q.NTasksPerNode = 1 + r.IntN(4)
	}
	if r.IntN(3) == 0 {
		q.MinCPUsPerNode = r.IntN(6)
	}
	return q
}

// TestTestZeroGrowsWithTheCandidates is what the ever-fits memo rests on:
// on nodes of one layout, for requests it remembers (no GPUs, no
// contiguous nodes, no node list), test 0 that fits on m candidates fits
// on more.
func TestTestZeroGrowsWithTheCandidates(t *testing.T) {
	for seed := uint64(0); seed < 1000; seed++ {
		r := rand.New(rand.NewPCG(seed, 77))
		n := 1 + r.IntN(40)
		layout := index.Node{Sockets: 1 + r.IntN(2), CoresPerSocket: 1 + r.IntN(4), ThreadsPerCore: 1 + r.IntN(2),
			MemoryMB: uint64(500 * (1 + r.IntN(4))), Weight: uint32(r.IntN(2)), Partitions: []string{"p"}}
		nodes := make([]index.Node, n)
		for i := range nodes {
			nodes[i] = layout
			nodes[i].Name = fmt.Sprintf("n%d", i)
		}
		cl := clusterOf(t, nodes)
		cl.Partitions["p"].OverSubscribe = 1 + r.IntN(3)
		p := New(cl, Config{TrackMemory: r.IntN(2) == 0, DefMemPerCPU: uint64(100 * r.IntN(2)), Units: Units(r.IntN(3))})
		for k := 0; k < 10; k++ {
			q := countedRequest(r, 1, n)
			if _, _, ok := p.everKeyOf(q, bitset.FromRoaring(cl.Snap.Live(), n)); !ok {
				continue
			}
			// The candidates grow a random node at a time, so that
			// they have holes.
			all := bitset.New(n)
			fitFrom := 0
			for m, id := range r.Perm(n) {
				all.Add(uint32(id))
				_, ok := p.selectNodes(nil, q, all.Clone(), nil)
				switch {
				case ok && fitFrom == 0:
					fitFrom = m + 1
				case !ok && fitFrom > 0:
					t.Fatalf("seed %d: test 0 fits on %d candidates and not on %d (%+v)", seed, fitFrom, m+1, *q)
				}
			}
		}
	}
}
