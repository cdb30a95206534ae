package sched

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/job"
)

// TestQueueOrderFollowsSortJobQueue2 is §3.1: higher partition
// PriorityTier, then higher priority, earlier submit, lower job id; one
// record per job and partition.
func TestQueueOrderFollowsSortJobQueue2(t *testing.T) {
	nodes := append(nodesN("n", 1, 2, "batch"), nodesN("h", 1, 2, "hipart")...)
	f := newFixture(t, nodes, Builtin{}, DefaultConfig(), nil, false)
	f.submit(1, 100, "nodes=2", func(j *Job) { j.Submit = 50 })
	f.submit(2, 200, "nodes=2", func(j *Job) { j.Submit = 60 })
	f.submit(3, 100, "nodes=2", func(j *Job) { j.Submit = 40 })
	f.submit(4, 100, "nodes=2", func(j *Job) { j.Submit = 40 })
	f.submit(5, 1, "nodes=2,partition=batch+hipart", func(j *Job) { j.Submit = 99 })
	var got []string
	for _, r := range f.q.buildQueue(1000, false, false) {
		got = append(got, r.part+":"+itoa(r.e.j.ID))
	}
	want := "hipart:5 batch:2 batch:3 batch:4 batch:1 batch:5"
	if s := join(got); s != want {
		t.Errorf("queue %s, want %s", s, want)
	}
}

// TestMainPassBlocksOnlyTheFailingPartition is §3.2: the first job that
// cannot start for resources blocks its partition (later jobs there wait
// with reason Priority) while another partition goes on.
func TestMainPassBlocksOnlyTheFailingPartition(t *testing.T) {
	nodes := append(nodesN("a", 1, 2, "batch"), nodesN("b", 1, 2, "other")...)
	f := newFixture(t, nodes, Builtin{}, DefaultConfig(), nil, false)
	f.running(1, "batch", "a1", 0, 5000)
	big := f.submit(2, 300, "nodes=2,time=10")
	small := f.submit(3, 200, "nodes=1,time=10")
	elsewhere := f.submit(4, 100, "nodes=1,time=10,partition=other")
	f.pass(1000)
	for _, c := range []struct {
		j    *Job
		want string
	}{
		{big, "PENDING Resources"},
		{small, "PENDING Priority"},
		{elsewhere, "RUNNING b1"},
	} {
		if got := f.outcome(c.j); got != c.want {
			t.Errorf("job %d: %s, want %s", c.j.ID, got, c.want)
		}
	}
}

// TestMainPassNodeListBlocksOnlyThoseNodes is §3.2: a job with a node list
// that cannot start withholds only its nodes.
func TestMainPassNodeListBlocksOnlyThoseNodes(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 4, "batch"), Builtin{}, DefaultConfig(), nil, false)
	f.running(1, "batch", "n1", 0, 5000)
	listed := f.submit(2, 300, "nodes=2,nodelist=n[1-2],time=10")
	other := f.submit(3, 200, "nodes=1,time=10")
	f.pass(1000)
	if got := f.outcome(listed); got != "PENDING Resources" {
		t.Errorf("listed job: %s", got)
	}
	if got := f.outcome(other); got != "RUNNING n3" {
		t.Errorf("lower job: %s, want RUNNING n3 (n2 withheld for the listed job)", got)
	}
}

// TestMainPassReasons checks Slurm's reason strings for jobs the main pass
// leaves pending (§3.2, job_independent, job_limits_check, select_nodes).
// The strings are Slurm's job_state_reason.c; the situations are not yet
// recorded from a running slurmctld (the lab will).
func TestMainPassReasons(t *testing.T) {
	nodes := nodesN("n", 1, 3, "batch")
	nodes[1].state = "down"
	nodes = append(nodes, nodesN("d", 1, 1, "dpart")...)
	parts := map[string]Partition{"dpart": {State: PartDown}, "batch": {MaxTime: 60 * time.Minute}}
	f := newFixture(t, nodes, Builtin{}, DefaultConfig(), parts, false)
	held := f.submit(1, 0, "nodes=1,time=10")
	userHeld := f.submit(2, 0, "nodes=1,time=10", func(j *Job) { j.HeldByUser = true })
	begin := f.submit(3, 100, "nodes=1,time=10", func(j *Job) { j.Begin = 5000 })
	down := f.submit(4, 100, "nodes=1,time=10,partition=dpart")
	long := f.submit(5, 100, "nodes=1,time=120")
	reqDown := f.submit(6, 100, "nodes=1,nodelist=n2,time=10")
	dep := f.submit(7, 100, "nodes=1,time=10", func(j *Job) { j.Deps = []Dependency{{Kind: AfterOK, Job: 3}} })
	f.pass(1000)
	for _, c := range []struct {
		j    *Job
		want string
	}{
		{held, "PENDING JobHeldAdmin"},
		{userHeld, "PENDING JobHeldUser"},
		{begin, "PENDING BeginTime"},
		{down, "PENDING PartitionDown"},
		{long, "PENDING PartitionTimeLimit"},
		{reqDown, "PENDING ReqNodeNotAvail, UnavailableNodes:n2"},
		{dep, "PENDING Dependency"},
	} {
		if got := f.outcome(c.j); got != c.want {
			t.Errorf("job %d: %s, want %s", c.j.ID, got, c.want)
		}
	}
}

// TestMainPassKnobs checks sched_max_job_start, partition_job_depth and
// default_queue_depth (§3.2).
func TestMainPassKnobs(t *testing.T) {
	for _, c := range []struct {
		name    string
		cfg     func(*Config)
		full    bool
		started int
		exit    string
	}{
		{"sched_max_job_start", func(c *Config) { c.SchedMaxJobStart = 2 }, true, 2, "sched_max_job_start"},
		{"partition_job_depth", func(c *Config) { c.PartitionJobDepth = 3 }, true, 3, "end of queue"},
		{"default_queue_depth tests depth+1 jobs", func(c *Config) { c.DefaultQueueDepth = 1 }, false, 2, "default_queue_depth"},
		{"full pass ignores default_queue_depth", func(c *Config) { c.DefaultQueueDepth = 1 }, true, 6, "end of queue"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.cfg(&cfg)
			f := newFixture(t, nodesN("n", 1, 6, "batch"), Builtin{}, cfg, nil, false)
			for i := uint32(1); i <= 6; i++ {
				f.submit(i, 100, "nodes=1,time=10")
			}
			p := &Pass{}
			f.q.MainPass(1000, c.full, p)
			if len(p.Started) != c.started || p.MainExit != c.exit {
				t.Errorf("started %v exit %q, want %d jobs and %q", p.Started, p.MainExit, c.started, c.exit)
			}
			if c.name == "partition_job_depth" {
				if j, _ := f.q.Job(6); j.ReasonText() != "Priority" {
					t.Errorf("job beyond the partition depth: %s, want Priority", j.ReasonText())
				}
			}
		})
	}
}

// TestMinPrioReserveDoesNotBlock is §3.2's exception: a job below
// bf_min_prio_reserve does not block its partition.
func TestMinPrioReserveDoesNotBlock(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BFMinPrioReserve = 50
	f := newFixture(t, nodesN("n", 1, 2, "batch"), Builtin{}, cfg, nil, false)
	f.running(1, "batch", "n1", 0, 5000)
	f.submit(2, 10, "nodes=2,time=10")
	low := f.submit(3, 5, "nodes=1,time=10")
	f.pass(1000)
	if got := f.outcome(low); got != "RUNNING n2" {
		t.Errorf("lower job: %s", got)
	}
}

func itoa(v uint32) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// TestNodeNotAvailWithoutNodeList is _pick_best_nodes' ESLURM_NODE_NOT_AVAIL:
// a job that only a down node could hold, with no candidate busy, pends
// with ReqNodeNotAvail naming the partition's down nodes; a job whose
// extra constraint no node meets pends with Constraints (FAIL_CONSTRAINTS,
// not held). Read from node_scheduler.c, not yet recorded from slurmctld.
func TestNodeNotAvailWithoutNodeList(t *testing.T) {
	nodes := nodesN("n", 1, 3, "batch")
	nodes[0].cpus, nodes[0].state = 16, "down"
	f := newFixture(t, nodes, Builtin{}, DefaultConfig(), nil, false)
	big := f.submit(1, 300, "nodes=1,cpus-per-task=8,time=10")
	con := f.submit(2, 200, "nodes=1,time=10,extra=a=1")
	f.pass(1000)
	if got := f.outcome(big); got != "PENDING ReqNodeNotAvail, UnavailableNodes:n1" {
		t.Errorf("big job: %s", got)
	}
	if got := f.outcome(con); got != "PENDING Constraints" {
		t.Errorf("constrained job: %s", got)
	}
}

// TestTraceRecordsEachTest: a traced job's tests carry the candidate chain
// with the pass's own stage and the outcome.
func TestTraceRecordsEachTest(t *testing.T) {
	nodes := append(nodesN("a", 1, 2, "batch"), nodesN("b", 1, 2, "other")...)
	f := newFixture(t, nodes, Backfill{}, DefaultConfig(), nil, false)
	f.q.Trace(3)
	f.running(1, "batch", "a1", 0, 5000)
	f.submit(2, 300, "nodes=2,time=10")
	f.submit(3, 200, "nodes=1,time=10")
	f.pass(1000)
	ex := f.q.Explanations(3)
	if len(ex) < 2 {
		t.Fatalf("explanations %+v", ex)
	}
	main := ex[0]
	last := main.Chain.Stages[len(main.Chain.Stages)-1]
	if main.Pass != "main" || last.Name != "availability" || last.Left() != 0 || main.Outcome != "PENDING (Priority)" {
		t.Errorf("main pass test: %s %+v %q", main.Pass, last, main.Outcome)
	}
	bf := ex[len(ex)-1]
	if bf.Pass != "backfill" || bf.Chain.Stages[len(bf.Chain.Stages)-1].Name != "time slots" {
		t.Errorf("backfill test: %+v", bf)
	}
}

// TestPreemptionQueueOrderIsGlibcQsorts: with preemption sort_job_queue2
// is not transitive (a job that may preempt another goes first whatever
// their priorities), so the queue is the order glibc's qsort (slurmctld's
// list_sort) leaves. The expected order is what glibc 2.36's qsort gave
// for these records and this comparison (a C program).
func TestPreemptionQueueOrderIsGlibcQsorts(t *testing.T) {
	prio := []uint32{0, 80, 70, 60, 50, 40, 30, 20, 10}
	preempts := func(a, b record) bool {
		x, y := a.e.j.ID, b.e.j.ID
		return (x == 5 && y == 1) || (x == 6 && y == 2) || (x == 3 && y == 7)
	}
	var rs []record
	for id := uint32(1); id <= 8; id++ {
		rs = append(rs, record{e: &entry{j: &Job{ID: id}}, prio: prio[id]})
	}
	sortQueue(rs, preempts, make([]record, 0, len(rs)))
	var got []uint32
	for _, r := range rs {
		got = append(got, r.e.j.ID)
	}
	if want := []uint32{5, 1, 6, 2, 3, 4, 7, 8}; !slices.Equal(got, want) {
		t.Errorf("queue %v, want %v", got, want)
	}
}

// TestGlibcMergeSortIsAStableSort: for a transitive order glibcMergeSort
// gives what a stable sort gives (differential test).
func TestGlibcMergeSortIsAStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	order := func(a, b record) int { return cmp.Compare(b.prio, a.prio) }
	for n := range 70 {
		rs := make([]record, n)
		for i := range rs {
			rs[i] = record{e: &entry{j: &Job{ID: uint32(i)}}, prio: uint32(rng.IntN(5))}
		}
		want := slices.Clone(rs)
		slices.SortStableFunc(want, order)
		glibcMergeSort(rs, make([]record, 0, n), order)
		for i := range rs {
			if rs[i].e != want[i].e {
				t.Fatalf("n=%d: record %d is job %d, a stable sort has job %d", n, i, rs[i].e.j.ID, want[i].e.j.ID)
			}
		}
	}
}

// TestCandidatesInIsTheIntersection: candidatesIn, which copies avail
// when a job's candidates are every live node, gives the intersection of
// the candidates with avail for jobs of a partition holding every node,
// of a smaller one and with a constraint, on random sets of usable nodes.
func TestCandidatesInIsTheIntersection(t *testing.T) {
	nodes := append(nodesN("a", 1, 6, "all", "half"), nodesN("b", 1, 6, "all")...)
	nodes[2].state, nodes[3].extra = "down", `{"x":1}`
	f := newFixture(t, nodes, Backfill{}, DefaultConfig(), nil, false)
	f.submit(1, 10, "nodes=1,partition=all")
	f.submit(2, 10, "nodes=1,partition=half")
	f.submit(3, 10, "nodes=1,partition=all", func(j *Job) {
		j.Request.Constraints = []job.Constraint{{Lang: "slurm", Text: "x=1"}}
	})
	r := rand.New(rand.NewPCG(1, 2))
	copied := 0
	for id := uint32(1); id <= 3; id++ {
		e := f.q.jobs[id]
		pr := e.first
		if pr.cands.GetCardinality() == f.cl.Snap.Live().GetCardinality() {
			copied++
		}
		for range 50 {
			avail := f.cl.Usable.Clone()
			it := f.cl.Usable.Iterator()
			for it.HasNext() {
				if n := it.Next(); r.IntN(3) == 0 {
					avail.Remove(n)
				}
			}
			if got, want := candidatesIn(f.cl, pr.cands, avail), roaring.And(pr.cands, avail); !got.Equals(want) {
				t.Fatalf("job %d on %v: %v, want %v", id, avail, got, want)
			}
		}
	}
	if copied != 1 {
		t.Fatalf("%d jobs have every live node as candidates, want 1 (job 1)", copied)
	}
}
