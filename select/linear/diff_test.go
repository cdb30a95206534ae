package linear

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/job"
)

// randomScenario builds a random cluster with random running jobs and a
// random pending request.
func randomScenario(t testing.TB, r *rand.Rand) (*Plugin, *job.Request, *roaring.Bitmap) {
	n := 1 + r.IntN(200)
	uniform := r.IntN(2) == 0
	nodes := make([]index.Node, n)
	for i := range nodes {
		c := 8
		if !uniform {
			c = 1 + r.IntN(16)
		}
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), CPUs: c, MemoryMB: uint64(1000 + 1000*r.IntN(3)), Weight: uint32(r.IntN(3))}
		if r.IntN(20) == 0 {
			nodes[i].State = "down"
		}
	}
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	cl := job.NewCluster(s)
	p := New(cl, Config{TrackMemory: r.IntN(2) == 0, Preempt: true})
	for id := uint32(1); id < uint32(r.IntN(30)); id++ {
		k := 1 + r.IntN(4)
		req := &job.Request{ID: id, MinNodes: k, MaxNodes: k, ReqNodes: k, MemPerNode: uint64(100 * r.IntN(5)), MemPerNodeSet: r.IntN(2) == 0,
			Preemptable: r.IntN(2) == 0, Priority: uint32(r.IntN(10)), TimeLimit: 0}
		a, err := p.Select(req, cl.Snap.Live(), job.RunNow, int64(id))
		if err != nil {
			continue
		}
		if err := p.Begin(req, a); err != nil {
			t.Fatalf("begin after a successful select: %v", err)
		}
	}
	req := &job.Request{ID: 1000, Priority: uint32(r.IntN(12)), Contiguous: r.IntN(5) == 0}
	switch r.IntN(3) {
	case 0:
		k := 1 + r.IntN(n)
		req.MinNodes, req.MaxNodes, req.ReqNodes = k, k, k
	case 1:
		k := 1 + r.IntN(n)
		req.MinNodes, req.MaxNodes, req.ReqNodes = k, k+r.IntN(4), k+r.IntN(4)
		req.ReqNodes = min(req.ReqNodes, req.MaxNodes)
	default:
		req.NTasks = 1 + r.IntN(8*n)
	}
	if r.IntN(4) == 0 {
		req.RequiredSet = roaring.BitmapOf(uint32(r.IntN(n)))
	}
	if r.IntN(3) == 0 {
		req.MemPerNode, req.MemPerNodeSet = uint64(500*r.IntN(4)), true
	}
	cand := roaring.New()
	for i := 0; i < n; i++ {
		if r.IntN(4) != 0 {
			cand.Add(uint32(i))
		}
	}
	return p, req, cand
}

func TestFastPathsMatchPlainScan(t *testing.T) {
	// fastPick is built from the first run on, as on a large cluster.
	fastPickSets = 0
	defer func() { fastPickSets = 32 }()
	r := rand.New(rand.NewPCG(7, 11))
	for iter := 0; iter < 3000; iter++ {
		p, req, cand := randomScenario(t, r)
		switch r.IntN(4) {
		case 0:
			// A CPU cap per node (availCPUs) below or above the nodes'.
			req.NTasksPerNode = 1 + r.IntN(12)
		case 1:
			req.NTasksPerCore = 1 + r.IntN(2)
		}
		for _, mode := range []job.Mode{job.RunNow, job.TestOnly, job.WillRun} {
			fast, ferr := p.Select(req, cand, mode, 100)
			slowPick, slowScan = true, true
			slow, serr := p.Select(req, cand, mode, 100)
			slowPick, slowScan = false, false
			if (ferr == nil) != (serr == nil) {
				t.Fatalf("iter %d %v: fast err %v, slow err %v", iter, mode, ferr, serr)
			}
			if ferr != nil {
				continue
			}
			if !slices.Equal(fast.Nodes.ToArray(), slow.Nodes.ToArray()) || fast.Start != slow.Start || !slices.Equal(fast.Preempted, slow.Preempted) {
				t.Fatalf("iter %d %v: fast %v@%d %v, slow %v@%d %v", iter, mode, fast.Nodes.ToArray(), fast.Start, fast.Preempted, slow.Nodes.ToArray(), slow.Start, slow.Preempted)
			}
		}
	}
}
