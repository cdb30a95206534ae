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
// memo answers from a set of the same class and count with other members:
// every answer must be selectNodes' on the set asked.
func TestEverFitsMemoAgreesWithPlain(t *testing.T) {
	hits, yes, no := 0, 0, 0
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		cl := classedCluster(t, r)
		p := New(cl, Config{TrackMemory: r.IntN(2) == 0, DefMemPerCPU: uint64(100 * r.IntN(2)), Units: Units(r.IntN(3))})
		shapes := make([]*job.Request, 1+r.IntN(4))
		for i := range shapes {
			shapes[i] = randomRequest(r, uint32(i+1), cl.N)
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
			if key, ok := p.everKeyOf(q, all); ok {
				if _, hit := p.ever[key]; hit {
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
