package linear

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/job"
)

// testCluster builds nodes n0..n(k-1) with the given CPUs (and weights, if
// any), 1000 MB each.
func testCluster(t testing.TB, cpus []int, weights []uint32) *job.Cluster {
	t.Helper()
	nodes := make([]index.Node, len(cpus))
	for i, c := range cpus {
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), CPUs: c, MemoryMB: 1000, Partitions: []string{"p"}}
		if weights != nil {
			nodes[i].Weight = weights[i]
		}
	}
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	return job.NewCluster(s)
}

func ids(b *roaring.Bitmap) []uint32 {
	if b == nil {
		return nil
	}
	return b.ToArray()
}

func bm(xs ...uint32) *roaring.Bitmap { return bmOf(xs...) }

func bmOf(xs ...uint32) *roaring.Bitmap { return roaring.BitmapOf(xs...) }

func rng(lo, hi uint32) []uint32 {
	var out []uint32
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

func spec(t testing.TB, cl *job.Cluster, s string) *job.Request {
	t.Helper()
	r, err := job.ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Resolve(cl); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunNowBestFit(t *testing.T) {
	// Candidates form runs 0-2, 4-5 and 7-11 (reference §1.4 step 5-6).
	cand := bm(append(append(rng(0, 2), rng(4, 5)...), rng(7, 11)...)...)
	for _, tc := range []struct {
		name, spec string
		cpus       []int
		weights    []uint32
		cand       *roaring.Bitmap
		want       []uint32
	}{
		{"§1.4 tightest sufficient run wins", "nodes=2", nil, nil, cand, []uint32{4, 5}},
		{"§1.4 one node comes from the smallest run", "nodes=1", nil, nil, cand, []uint32{4}},
		{"§1.4 largest insufficient run first, then the tightest sufficient", "nodes=7", nil, nil, cand, []uint32{4, 5, 7, 8, 9, 10, 11}},
		{"§1.4 lowest index inside the run", "nodes=3", nil, nil, cand, []uint32{0, 1, 2}},
		{"§1.4 required node: walk up, then down", "nodes=4,nodelist=n9", nil, nil, cand, []uint32{8, 9, 10, 11}},
		{"§1.4 required node near the end walks down", "nodes=4,nodelist=n11", nil, nil, cand, []uint32{8, 9, 10, 11}},
		{"§1.4 run holding a required node beats a tighter one", "nodes=2,nodelist=n0", nil, nil, cand, []uint32{0, 1}},
		{"§1.4 required-only run leaves no set", "nodes=3,nodelist=n4,n5", nil, nil, cand, []uint32{0, 4, 5}},
		{"§1.4 CPU count drives the node count", "ntasks=10", nil, nil, cand, []uint32{0, 1, 2, 4, 5, 7, 8, 9, 10, 11}},
		{"§1.4 node range: min-sufficient tight run, then one more", "nodes=2-3", nil, nil, cand, []uint32{0, 4, 5}},
		{"§1.4 contiguous takes the tightest hole", "nodes=3,contiguous", nil, nil, cand, []uint32{0, 1, 2}},
		{"§1.4 heterogeneous shortcut takes the most CPUs, highest index on ties", "ntasks=30",
			[]int{4, 16, 16, 4, 4}, nil, bm(0, 1, 2, 3, 4), []uint32{1, 2}},
		{"§1.4 homogeneous CPU demand uses runs", "ntasks=8",
			[]int{4, 4, 4, 4, 4}, nil, bm(0, 1, 3, 4), []uint32{0, 1}},
		{"§1.7 each node configuration is a node set, tried alone first", "nodes=2",
			[]int{4, 16, 16, 4, 4}, nil, bm(0, 1, 2, 3, 4), []uint32{3, 4}},
		{"§1.4 heterogeneous but enough CPUs per node keeps runs", "nodes=3",
			[]int{4, 16, 16, 4, 4}, nil, bm(0, 1, 2, 3, 4), []uint32{0, 3, 4}},
		{"§1.7 lighter weight tier first", "nodes=2", nil, []uint32{5, 5, 5, 1, 1, 1, 5, 5, 5, 5, 5, 5}, nil, []uint32{3, 4}},
		{"§1.7 too few light nodes: all tiers together", "nodes=4", nil, []uint32{5, 5, 5, 1, 1, 1, 5, 5, 5, 5, 5, 5}, nil, []uint32{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpus := tc.cpus
			if cpus == nil {
				cpus = slices.Repeat([]int{1}, 12)
			}
			cl := testCluster(t, cpus, tc.weights)
			c := tc.cand
			if c == nil {
				c = cl.Snap.Live()
			}
			p := New(cl, Config{})
			a, err := p.Select(spec(t, cl, tc.spec), c, job.RunNow, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(a.Nodes); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRunNowFailures(t *testing.T) {
	cand := bm(0, 1, 2, 4, 5)
	for _, tc := range []struct {
		name, spec string
		never      bool
	}{
		{"§1.4 contiguous with no hole large enough is never runnable", "nodes=4,contiguous", true},
		{"§1.4 contiguous required nodes in two runs fail", "nodes=3,contiguous,nodelist=n0,n4", true},
		{"§1.2 more nodes than candidates", "nodes=6", true},
		{"§1.3 more CPUs per task than any node has", "cpus-per-task=2", true},
		{"§1.3 GPUs the nodes do not have", "gpus-per-node=1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := testCluster(t, []int{1, 1, 1, 1, 1, 1}, nil)
			_, err := New(cl, Config{}).Select(spec(t, cl, tc.spec), cand, job.RunNow, 0)
			if err == nil || errors.Is(err, job.ErrNever) != tc.never {
				t.Fatalf("got %v, want never=%v", err, tc.never)
			}
		})
	}
}

func begin(t *testing.T, p *Plugin, s string, nodes ...uint32) {
	t.Helper()
	r := spec(t, p.cl, s)
	if err := p.Begin(r, &job.Allocation{Nodes: bm(nodes...)}); err != nil {
		t.Fatal(err)
	}
}

func TestBusyNodesAndMemory(t *testing.T) {
	cl := testCluster(t, []int{4, 4, 4, 4}, nil)
	p := New(cl, Config{TrackMemory: true})
	begin(t, p, "id=1,nodes=2,time=10", 0, 1)
	a, err := p.Select(spec(t, cl, "id=2,nodes=2"), cl.Snap.Live(), job.RunNow, 0)
	if err != nil || !slices.Equal(ids(a.Nodes), []uint32{2, 3}) {
		t.Fatalf("§1.3 busy nodes are skipped: got %v, %v", a, err)
	}
	if _, err := p.Select(spec(t, cl, "id=3,nodes=3"), cl.Snap.Live(), job.RunNow, 0); !errors.Is(err, job.ErrBusy) {
		t.Fatalf("§1.7 fits the partition but not now: got %v, want busy", err)
	}
	if err := p.Begin(spec(t, cl, "id=4,nodes=1"), &job.Allocation{Nodes: bm(1)}); err == nil {
		t.Fatal("begin allocated node 1 twice")
	}
}

func TestSharedNodesRespectMemory(t *testing.T) {
	cl := testCluster(t, []int{4, 4}, nil)
	cl.Partitions["p"].OverSubscribe = 2
	p := New(cl, Config{TrackMemory: true})
	begin(t, p, "id=1,nodes=1,oversubscribe,partition=p,mem=600", 0)
	a, err := p.Select(spec(t, cl, "id=2,nodes=2,oversubscribe,partition=p,mem=300"), cl.Snap.Live(), job.RunNow, 0)
	if err != nil || !slices.Equal(ids(a.Nodes), []uint32{0, 1}) {
		t.Fatalf("§1.5 shares node 0 when memory fits: %v %v", a, err)
	}
	if _, err := p.Select(spec(t, cl, "id=3,nodes=2,oversubscribe,partition=p,mem=500"), cl.Snap.Live(), job.RunNow, 0); err == nil {
		t.Fatal("§1.3 memory over-subscribed")
	}
}

func TestWillRunEarliestEnd(t *testing.T) {
	cl := testCluster(t, []int{2, 2, 2, 2}, nil)
	p := New(cl, Config{})
	begin(t, p, "id=1,nodes=2,time=100", 0, 1) // ends at 6000
	begin(t, p, "id=2,nodes=2,time=50", 2, 3)  // ends at 3000
	a, err := p.Select(spec(t, cl, "id=3,nodes=2"), cl.Snap.Live(), job.WillRun, 10)
	if err != nil {
		t.Fatal(err)
	}
	if a.Start != 3000 || !slices.Equal(ids(a.Nodes), []uint32{2, 3}) {
		t.Errorf("§1.5 will-run: start %d nodes %v, want 3000 [2 3]", a.Start, ids(a.Nodes))
	}
	a, err = p.Select(spec(t, cl, "id=4,nodes=3"), cl.Snap.Live(), job.WillRun, 10)
	if err != nil || a.Start != 6000 {
		t.Errorf("§1.5 will-run needing both jobs: %v %v", a, err)
	}
	a, err = p.Select(spec(t, cl, "id=5,nodes=2"), cl.Snap.Live(), job.WillRun, 5000)
	if err != nil || a.Start != 5001 {
		t.Errorf("§1.5 overdue job: start now+1, got %v %v", a, err)
	}
}

func TestPreemptionLowestPriorityFirst(t *testing.T) {
	cl := testCluster(t, []int{2, 2, 2}, nil)
	p := New(cl, Config{Preempt: true})
	begin(t, p, "id=1,nodes=1,preemptable,priority=5", 0)
	begin(t, p, "id=2,nodes=1,preemptable,priority=1", 1)
	begin(t, p, "id=3,nodes=1,priority=0", 2)
	r := spec(t, cl, "id=9,nodes=1,priority=10")
	a, err := p.Select(r, cl.Snap.Live(), job.RunNow, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Preempted, []uint32{2}) || !slices.Equal(ids(a.Nodes), []uint32{1}) {
		t.Errorf("§1.5 preempts the lowest priority job: %v on %v", a.Preempted, ids(a.Nodes))
	}
	if err := p.Begin(r, a); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.Jobs(), 2) {
		t.Error("victim still holds its node")
	}
	r2 := spec(t, cl, "id=10,nodes=2,priority=10")
	a, err = p.Select(r2, cl.Snap.Live(), job.RunNow, 0)
	if err == nil {
		t.Errorf("only one preemptable node left but got %v", ids(a.Nodes))
	}
}

func TestLifecycleRestoresState(t *testing.T) {
	cl := testCluster(t, []int{2, 2, 2, 2}, nil)
	p := New(cl, Config{TrackMemory: true})
	before := p.st.dup()
	begin(t, p, "id=1,nodes=2,mem=100", 0, 1)
	begin(t, p, "id=2,nodes=1,mem=100", 2)
	if err := p.Suspend(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Resume(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Expand(2, 1); err != nil {
		t.Fatal(err)
	}
	if got := p.st.jobs[1].nodes; !slices.Equal(got, []uint32{0, 1, 2}) {
		t.Fatalf("expand: %v", got)
	}
	if err := p.Resize(1, 1); err != nil {
		t.Fatal(err)
	}
	if p.st.run[1] != 0 || p.st.mem[1] != 0 {
		t.Fatal("resize kept node 1")
	}
	if err := p.Fini(1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before.mem, p.st.mem) || !slices.Equal(before.run, p.st.run) || !slices.Equal(before.tot, p.st.tot) || !slices.Equal(before.excl, p.st.excl) {
		t.Fatal("fini did not restore the state")
	}
	if err := p.Fini(1); !errors.Is(err, job.ErrNoJob) {
		t.Fatalf("double fini: %v", err)
	}
}

func TestReserveChoosesFreeNodes(t *testing.T) {
	cl := testCluster(t, []int{1, 1, 1, 1, 1}, nil)
	p := New(cl, Config{TrackMemory: true})
	begin(t, p, "id=1,nodes=1", 1)
	got, err := p.Reserve(2, cl.Snap.Live())
	if err != nil || !slices.Equal(ids(got), []uint32{2, 3}) {
		t.Fatalf("got %v %v, want the tightest free run [2 3]", ids(got), err)
	}
}

func TestTestOnlyIgnoresLoad(t *testing.T) {
	cl := testCluster(t, []int{1, 1}, nil)
	p := New(cl, Config{TrackMemory: true})
	begin(t, p, "id=1,nodes=2", 0, 1)
	if _, err := p.Select(spec(t, cl, "id=2,nodes=2,mem=5000"), cl.Snap.Live(), job.TestOnly, 0); err != nil {
		t.Fatalf("§1.5 test-only ignores load and memory: %v", err)
	}
}

func TestForcedSharingIgnoresTheJobFlag(t *testing.T) {
	cl := testCluster(t, []int{1}, nil)
	cl.Partitions["p"].OverSubscribe, cl.Partitions["p"].Force = 2, true
	p := New(cl, Config{})
	begin(t, p, "id=1,nodes=1,partition=p", 0)
	if _, err := p.Select(spec(t, cl, "id=2,nodes=1,partition=p"), cl.Snap.Live(), job.RunNow, 0); err != nil {
		t.Fatalf("§1.2 OverSubscribe=FORCE:2 shares without --oversubscribe: %v", err)
	}
	if _, err := p.Select(spec(t, cl, "id=3,nodes=1,partition=p,exclusive"), cl.Snap.Live(), job.RunNow, 0); err == nil {
		t.Fatal("§1.2 an exclusive job never shares")
	}
}

// TestMemoryOnlyCountsWithCRMemory follows _job_count_bitmap: without
// CR_Memory a job's memory request neither excludes nodes nor is recorded.
func TestMemoryOnlyCountsWithCRMemory(t *testing.T) {
	for _, track := range []bool{false, true} {
		cl := testCluster(t, []int{4, 4}, nil)
		for id := range cl.MemoryMB {
			cl.MemoryMB[id] = 1000
		}
		p := New(cl, Config{TrackMemory: track})
		a, err := p.Select(spec(t, cl, "nodes=1,mem-per-cpu=500"), cl.Snap.Live(), job.RunNow, 0)
		switch {
		case track && err == nil:
			t.Errorf("CR_Memory: 4 CPUs x 500 MB cannot fit in 1000 MB, got %v", ids(a.Nodes))
		case !track && err != nil:
			t.Errorf("no CR_Memory: %v", err)
		case !track && a.PerNode[0].MemoryMB != 0:
			t.Errorf("no CR_Memory: recorded %d MB", a.PerNode[0].MemoryMB)
		}
	}
}

// TestSuspendedJobsNodeIsIdle: a node whose only job is suspended is idle
// to node_scheduler.c (idle_node_bitmap), so a job that does not share
// counts it and runs there.
func TestSuspendedJobsNodeIsIdle(t *testing.T) {
	cl := testCluster(t, []int{2, 2}, nil)
	p := New(cl, Config{})
	begin(t, p, "id=1,nodes=2,exclusive", 0, 1)
	if err := p.Suspend(1); err != nil {
		t.Fatal(err)
	}
	a, err := p.Select(spec(t, cl, "id=2,nodes=1"), cl.Snap.Live(), job.RunNow, 0)
	if err != nil {
		t.Fatalf("a suspended job's node refused: %v", err)
	}
	if got := ids(a.Nodes); !slices.Equal(got, []uint32{0}) {
		t.Errorf("nodes %v, want [0]", got)
	}
}
