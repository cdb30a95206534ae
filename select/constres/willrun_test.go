package constres

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/job/jobtest"
)

// willRunAgrees drives a random cluster through starts, ends, suspensions,
// expansions and resizes of jobs with time limits, and after each step asks
// will-run for random jobs on random candidates at random times: the release
// chain path and willRunPlain must give the same allocation or the same
// error. Several questions per state make the chain's kept states serve
// later ones.
func willRunAgrees(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 17))
	cl := twoPartitionCluster(t, r)
	parts := []string{"p", "q"}
	p := New(cl, Config{TrackMemory: r.IntN(4) != 0, DefMemPerCPU: uint64(100 * r.IntN(2)), Units: Units(r.IntN(3)),
		WillRunTestCost: time.Duration(r.IntN(3)) * 700 * time.Millisecond})
	now := int64(1000)
	ask := func(step uint32) {
		for k := 0; k < 6; k++ {
			q := randomRequest(r, 1000+step, cl.N)
			q.Partition = parts[r.IntN(2)]
			q.TimeLimit = time.Duration(1+r.IntN(20)) * time.Minute
			cand := bitset.FromRoaring(cl.Partitions[q.Partition].Nodes, cl.N)
			cand.And(p.usable)
			if r.IntN(3) == 0 {
				cand.Each(func(id uint32) bool {
					if r.IntN(3) == 0 {
						cand.Del(id)
					}
					return true
				})
			}
			if r.IntN(8) == 0 && cand.Count() > 0 {
				ids := cand.IDs(nil)
				q.RequiredSet = roaring.BitmapOf(ids[r.IntN(len(ids))])
			}
			at := now + int64(r.IntN(1500)) - 200
			if r.IntN(3) == 0 {
				q.PlanEnd = at + int64(r.IntN(1500))
			}
			fast, ferr := p.willRun(q, cand.Clone(), at)
			plain, perr := p.willRunPlain(q, cand.Clone(), at)
			if (ferr == nil) != (perr == nil) || (ferr != nil && ferr.Error() != perr.Error()) {
				t.Fatalf("seed %d step %d: will-run errors differ: fast %v, plain %v (%+v)", seed, step, ferr, perr, *q)
			}
			if !reflect.DeepEqual(fast, plain) {
				t.Fatalf("seed %d step %d: will-run answers differ at %d:\nfast  %+v\nplain %+v\n(%+v)", seed, step, at, fast, plain, *q)
			}
			if c := p.rel; c != nil && c.scratch != nil && (!sameState(c.scratch, p.st) || !slices.Equal(c.scratchFree, p.freeCores(p.st))) {
				t.Fatalf("seed %d step %d: the scratch state did not return to the plugin's", seed, step)
			}
		}
	}
	for step := uint32(1); step < 30; step++ {
		now += int64(r.IntN(120))
		live := p.Jobs()
		switch op := r.IntN(10); {
		case op < 6:
			q := randomRequest(r, step, cl.N)
			q.Partition = parts[r.IntN(2)]
			q.TimeLimit = time.Duration(1+r.IntN(30)) * time.Minute
			if a, err := p.Select(q, cl.Partitions[q.Partition].Nodes, job.RunNow, now); err == nil {
				if err := p.Begin(q, a); err != nil {
					t.Fatalf("seed %d step %d: begin after select: %v", seed, step, err)
				}
			}
		case op < 7 && len(live) > 0:
			_ = p.Fini(live[r.IntN(len(live))])
		case op < 8 && len(live) > 0:
			id := live[r.IntN(len(live))]
			if p.Suspend(id) == nil && r.IntN(2) == 0 {
				_ = p.Resume(id)
			}
		case op < 9 && len(live) > 1:
			_ = p.Expand(live[r.IntN(len(live))], live[r.IntN(len(live))])
		case len(live) > 0:
			id := live[r.IntN(len(live))]
			if j := p.st.jobs[id]; j != nil {
				_ = p.Resize(id, j.nodes[r.IntN(len(j.nodes))])
			}
		}
		ask(step)
	}
}

// twoPartitionCluster is randomCluster's nodes in partition p, a random
// part of them also in q, each partition sharing or not.
func twoPartitionCluster(t testing.TB, r *rand.Rand) *job.Cluster {
	n := 1 + r.IntN(24)
	nodes := make([]index.Node, n)
	for i := range nodes {
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), Sockets: 1 + r.IntN(2), CoresPerSocket: 1 + r.IntN(4), ThreadsPerCore: 1 + r.IntN(2),
			MemoryMB: uint64(500 * (1 + r.IntN(4))), Weight: uint32(r.IntN(3)), Partitions: []string{"p"}}
		if r.IntN(2) == 0 {
			nodes[i].Partitions = append(nodes[i].Partitions, "q")
		}
		if r.IntN(3) == 0 {
			nodes[i].Gres = []index.Gres{{Name: "gpu", Type: "a100", Count: uint64(1 + r.IntN(4))}}
		}
		if r.IntN(15) == 0 {
			nodes[i].State = "drain"
		}
	}
	nodes[0].Partitions = []string{"p", "q"}
	cl := clusterOf(t, nodes)
	cl.Partitions["p"].OverSubscribe = 1 + r.IntN(3)
	cl.Partitions["q"].OverSubscribe = 1 + r.IntN(3)
	cl.Partitions["q"].PriorityTier = uint32(r.IntN(2))
	return cl
}

// sameState reports whether a and b hold the same usage, rows bit for bit.
func sameState(a, b *state) bool {
	if !sameUsage(a, b) {
		return false
	}
	for name, pa := range a.parts {
		pb := b.parts[name]
		if pb == nil || len(pa.rows) != len(pb.rows) || !slices.Equal(pa.jobs, pb.jobs) {
			return false
		}
		for i := range pa.rows {
			if !slices.Equal(pa.rows[i], pb.rows[i]) {
				return false
			}
		}
	}
	for id := range a.sharePart {
		if !maps.Equal(a.sharePart[id], b.sharePart[id]) && len(a.sharePart[id])+len(b.sharePart[id]) > 0 {
			return false
		}
	}
	return true
}

// TestWillRunChainAgreesWithPlain runs willRunAgrees on 300 seeds, with
// the reached sets a nodeBound jumps by every 16 jobs, and every job and
// every 3, so that small clusters use them too.
func TestWillRunChainAgreesWithPlain(t *testing.T) {
	defer func(step int) { minReachStep = step }(minReachStep)
	for _, step := range []int{minReachStep, 1, 3} {
		minReachStep = step
		for seed := uint64(0); seed < 300; seed++ {
			willRunAgrees(t, seed)
		}
	}
}

// TestWillRunChainStaysBounded asks will-run from many start times, so that
// the chain keeps more release states than it may and must drop some.
func TestWillRunChainStaysBounded(t *testing.T) {
	cl := benchCluster(t, 64)
	p := New(cl, Config{})
	for i := 0; i < 64; i++ {
		q := &job.Request{ID: uint32(i + 1), Partition: "p", MinNodes: 1, MaxNodes: 1, NTasks: 64, TimeLimit: time.Duration(i+1) * time.Hour}
		a, err := p.Select(q, bmOf(uint32(i)), job.RunNow, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Begin(q, a); err != nil {
			t.Fatal(err)
		}
	}
	cand := bitset.FromRoaring(cl.Snap.Live(), cl.N)
	for at := int64(0); at < 64*3600; at += 1800 {
		q := &job.Request{ID: 1000, Partition: "p", MinNodes: 8, NTasks: 8 * 64, TimeLimit: time.Hour}
		fast, ferr := p.willRun(q, cand.Clone(), at)
		plain, perr := p.willRunPlain(q, cand.Clone(), at)
		if ferr != nil || perr != nil || !reflect.DeepEqual(fast, plain) {
			t.Fatalf("at %d: fast %+v %v, plain %+v %v", at, fast, ferr, plain, perr)
		}
	}
	if n := len(p.rel.states); n > maxChainStates {
		t.Fatalf("the chain keeps %d states, more than %d", n, maxChainStates)
	}
}

func FuzzWillRunChain(f *testing.F) {
	f.Add(uint64(3))
	f.Fuzz(func(t *testing.T, seed uint64) { willRunAgrees(t, seed) })
}

// TestWillRunCapIsCounted is _future_run_test's 2 s cap without a wall
// clock: each failed test after a batch of ending jobs counts
// WillRunTestCost, and once 2 s are counted will-run gives up.
func TestWillRunCapIsCounted(t *testing.T) {
	for _, tc := range []struct {
		cost  time.Duration
		start int64 // 0: gives up
	}{{0, 1200}, {900 * time.Millisecond, 1200}, {time.Second, 0}} {
		cl := testCluster(t, same(3, small)...)
		p := New(cl, Config{WillRunTestCost: tc.cost})
		beginExclusive(t, p, cl, "20", "10", "5")
		// The jobs end in three batches; the third frees enough nodes.
		a, err := p.Select(spec(t, cl, "id=9,nodes=3,exclusive"), cl.Snap.Live(), job.WillRun, 0)
		switch {
		case tc.start == 0 && err == nil:
			t.Errorf("cost %v: will-run answered %d, want it to give up after 2 s", tc.cost, a.Start)
		case tc.start != 0 && (err != nil || a.Start != tc.start):
			t.Errorf("cost %v: will-run %v, %v; want a start at %d", tc.cost, a, err, tc.start)
		}
	}
}

// memoAgrees drives a random cluster as willRunAgrees does and asks
// WillRunDense, which remembers answers, for a few request shapes on a few
// candidate sets at random times (some past running jobs' ends), so that
// most questions repeat: its start, nodes and failure must be Select's.
func memoAgrees(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 43))
	cl := twoPartitionCluster(t, r)
	parts := []string{"p", "q"}
	p := New(cl, Config{TrackMemory: r.IntN(4) != 0, DefMemPerCPU: uint64(100 * r.IntN(2)), Units: Units(r.IntN(3)),
		WillRunTestCost: time.Duration(r.IntN(3)) * 700 * time.Millisecond})
	var shapes []*job.Request
	for k := 0; k < 4; k++ {
		q := randomRequest(r, 1000, cl.N)
		q.Partition = parts[r.IntN(2)]
		q.RequiredSet = nil
		shapes = append(shapes, q)
	}
	cands := jobtest.Candidates(r, cl.Snap.Live(), 3)
	change := func(step uint32, now int64) {
		jobtest.Churn(t, p, r, now, func() (*job.Request, *roaring.Bitmap) {
			q := randomRequest(r, step, cl.N)
			q.Partition = parts[r.IntN(2)]
			q.TimeLimit = time.Duration(1+r.IntN(30)) * time.Minute
			return q, cl.Partitions[q.Partition].Nodes
		})
	}
	want := func(q *job.Request, cand *roaring.Bitmap, at int64) (*job.Allocation, error) {
		return p.Select(q, cand.Clone(), job.Plan, at)
	}
	jobtest.DenseAgrees(t, seed, r, p, cl.N, 24, change, shapes, cands, 2800, want)
}

func TestWillRunMemoAgreesWithSelect(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		memoAgrees(t, seed)
	}
}

// TestWillRunStopsAtPlanEnd is backfill's will_run_data.end: running jobs
// ending after PlanEnd are not released, so a job that needs them is busy.
func TestWillRunStopsAtPlanEnd(t *testing.T) {
	for _, tc := range []struct {
		end, start int64 // start 0: busy
	}{{0, 1200}, {1300, 1200}, {1200, 1200}, {700, 0}} {
		cl := testCluster(t, same(3, small)...)
		p := New(cl, Config{})
		beginExclusive(t, p, cl, "20", "10", "5")
		r := spec(t, cl, "id=9,nodes=3,exclusive")
		r.PlanEnd = tc.end
		a, err := p.Select(r, cl.Snap.Live(), job.Plan, 0)
		switch {
		case tc.start == 0 && !errors.Is(err, job.ErrBusy):
			t.Errorf("PlanEnd %d: %v, %v; want busy", tc.end, a, err)
		case tc.start != 0 && (err != nil || a.Start != tc.start):
			t.Errorf("PlanEnd %d: %v, %v; want a start at %d", tc.end, a, err, tc.start)
		}
	}
}

// TestWillRunReleasesSuspendedCandidateOnce: a candidate taken out for a
// suspending preemptor keeps its memory and is not released again at its
// end (_build_cr_job_list lists only the jobs it does not take out); a
// second release had left its nodes with a negative job count, closed to
// an exclusive job (p1-07-06's 4-node exclusive job planned at 18000 s
// instead of Slurm's 7200 s).
func TestWillRunReleasesSuspendedCandidateOnce(t *testing.T) {
	cl := testCluster(t, small, small)
	p := New(cl, Config{})
	run(t, p, "id=1,ntasks=4,nodelist=n0,time=10", nil)
	run(t, p, "id=2,ntasks=4,nodelist=n1,time=100", nil)
	r := spec(t, cl, "id=3,nodes=2,exclusive,time=10")
	r.PreemptCandidates, r.PreemptSuspend = []uint32{1}, true
	a, err := p.Select(r, cl.Snap.Live(), job.Plan, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Start != 6000 || a.Nodes.GetCardinality() != 2 {
		t.Errorf("start %d on %v, want 6000 on both nodes", a.Start, a.Nodes.ToArray())
	}
}

// TestWillRunDropsEndedJobsBeforePreemptionTest is _future_run_test at a
// later start: the jobs ending by then leave its list before its first
// test, the one with every preemptable job gone, so the job goes on the
// lowest node they free rather than on a preemptable job's (p1-08-03 of
// lab/slurm/sched/preempt/random-events: job 26 planned on n[3-6] at
// +1543 s, where sift chose n[3-4,8-9] over nodes freed by then).
func TestWillRunDropsEndedJobsBeforePreemptionTest(t *testing.T) {
	cl := testCluster(t, small, small, small)
	p := New(cl, Config{})
	run(t, p, "id=1,ntasks=4,nodelist=n0,time=10", nil)
	run(t, p, "id=2,ntasks=4,nodelist=n1,time=100", nil)
	run(t, p, "id=3,ntasks=4,nodelist=n2,time=100", nil)
	r := spec(t, cl, "id=4,nodes=1,ntasks=1,time=10")
	r.PreemptCandidates = []uint32{2}
	a, err := p.Select(r, cl.Snap.Live(), job.Plan, 1200)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Nodes.ToArray(), []uint32{0}) || len(a.Preempted) != 0 {
		t.Errorf("on %v preempting %v, want n0 (job 1 ended by then), no victim", a.Nodes.ToArray(), a.Preempted)
	}
}
