package sched

import (
	"fmt"
	"testing"
	"time"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
)

// The tests below port Slurm's own backfill tests (Slurm 26.11, commit
// 284c3b95). Their expected values are the assertions of those tests, not
// ours:
//   - testsuite/slurm_unit/backfill/backfill_test.c: test_backfill_1, _2
//     and _3 run the real _attempt_backfill (no main pass) over 32 nodes
//     node[01-32] of one socket of 4 cores, RealMemory=2000,
//     select/cons_tres with CR_Core, one partition "test" with every node
//     and max_share=0 (OverSubscribe=EXCLUSIVE), default
//     SchedulerParameters (bf_max_job_test=500). Each job line is job_id
//     (0: the next id), priority, nodes (min = max), num_tasks,
//     segment_size, time_limit in minutes. test_backfill_lic_1 and _2
//     test licenses, which sift does not schedule; they are not ported.
//   - testsuite/expect/test7.22: a job on all nodes but one runs for
//     3 x bf_interval minutes; a higher-priority job then asks for every
//     node for bf_interval minutes, and a lower one for one node: with
//     bf_interval minutes it is backfilled before the higher one, with
//     5 x bf_interval it is not.

// slurmUnitQueue is backfill_test.c's cluster (node01 to node<nodes>)
// and partition.
func slurmUnitQueue(t *testing.T, nodes int, cfg Config) *Queue {
	t.Helper()
	in := make([]index.Node, nodes)
	for i := range in {
		in[i] = index.Node{Name: fmt.Sprintf("node%02d", i+1), Sockets: 1, CoresPerSocket: 4, ThreadsPerCore: 1, MemoryMB: 2000, Partitions: []string{"test"}}
	}
	snap, err := index.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	cl := job.NewCluster(snap)
	cl.Partitions["test"].Exclusive = true
	return NewQueue(Options{Cluster: cl, Plugin: constres.New(cl, constres.Config{}), Scheduler: Backfill{}, Config: cfg})
}

// slurmUnitJob is __add_job: nodes nodes exactly, tasks tasks of one CPU,
// limit in minutes. Segment sizes (topology/block) are all 0 in the
// ported tests.
func slurmUnitJob(t *testing.T, q *Queue, id, prio uint32, nodes, tasks, limit int, now int64) *Job {
	t.Helper()
	req := &job.Request{MinNodes: nodes, MaxNodes: nodes, NTasks: tasks, TimeLimit: time.Duration(limit) * time.Minute}
	j := &Job{ID: id, User: "u", Partitions: []string{"test"}, Priority: prio, TimeLimit: req.TimeLimit, Request: req}
	if err := q.Submit(j, false, now); err != nil {
		t.Fatal(err)
	}
	return j
}

// TestSlurmBackfillTest1 is test_backfill_1: job 1 takes one node, job 2
// asks for all 32 and waits, job 3 takes the other 31 for 5 minutes,
// which ends before job 1 frees the last node.
func TestSlurmBackfillTest1(t *testing.T) {
	q := slurmUnitQueue(t, 32, DefaultConfig())
	const now = 1_000_000
	j1 := slurmUnitJob(t, q, 1, 10, 1, 1, 10, now)
	j2 := slurmUnitJob(t, q, 2, 5, 32, 32, 10, now)
	j3 := slurmUnitJob(t, q, 3, 1, 31, 31, 5, now)
	q.BackfillPass(now, &Pass{})
	if j1.State != Running {
		t.Errorf("job 1 %s, want RUNNING", j1.State)
	}
	if j2.State == Running {
		t.Errorf("job 2 RUNNING, want not running")
	}
	if j3.State != Running {
		t.Errorf("job 3 %s, want RUNNING", j3.State)
	}
}

// TestSlurmBackfillTest2 is test_backfill_2 (Slurm ticket 20847): no job
// of higher priority asking for no more nodes than another may start later
// than it, or have no start time while the other has one.
func TestSlurmBackfillTest2(t *testing.T) {
	q := slurmUnitQueue(t, 32, DefaultConfig())
	const now = 1_000_000
	lines := []struct {
		prio               uint32
		nodes, tasks, time int
	}{{10, 6, 6, 10}, {9, 27, 27, 15}, {8, 28, 28, 14}, {7, 29, 29, 13}, {6, 30, 30, 12}, {5, 5, 5, 10}, {5, 5, 5, 10}, {1, 30, 30, 11}}
	var jobs []*Job
	for i, l := range lines {
		jobs = append(jobs, slurmUnitJob(t, q, uint32(i+1), l.prio, l.nodes, l.tasks, l.time, now))
	}
	q.BackfillPass(now, &Pass{})
	for _, a := range jobs {
		for _, b := range jobs {
			if a.Priority > b.Priority && a.Request.MinNodes <= b.Request.MinNodes && b.Start != 0 && (a.Start == 0 || a.Start > b.Start) {
				t.Errorf("wrong backfill order: job %d (priority %d, %d nodes) starts at %d, job %d (priority %d, %d nodes) at %d",
					a.ID, a.Priority, a.Request.MinNodes, a.Start, b.ID, b.Priority, b.Request.MinNodes, b.Start)
			}
		}
	}
}

// TestSlurmBackfillTest3 is test_backfill_3: of 1,000 equal jobs of 6
// nodes, bf_max_job_test=500 leaves job 500 with a start time and job 501
// without.
func TestSlurmBackfillTest3(t *testing.T) {
	q := slurmUnitQueue(t, 32, DefaultConfig())
	const now = 1_000_000
	var jobs []*Job
	for i := 0; i < 1000; i++ {
		jobs = append(jobs, slurmUnitJob(t, q, uint32(i+1), 10, 6, 6, 10, now))
	}
	q.BackfillPass(now, &Pass{})
	if jobs[499].Start == 0 || jobs[500].Start != 0 {
		t.Errorf("job 500 start %d, job 501 start %d: want a start for 500 and none for 501", jobs[499].Start, jobs[500].Start)
	}
}

// TestSlurmTest7_22 is expect test7.22 on four nodes with bf_interval=30:
// both jobs are exclusive, the lower one has nice=100.
func TestSlurmTest7_22(t *testing.T) {
	for _, tc := range []struct {
		name      string
		bfMinutes int
		backfill  bool
	}{
		{"job ending before the higher job can start is backfilled", 30, true},
		{"job that would delay the higher job is not backfilled", 150, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			f := newFixture(t, nodesN("n", 1, 4, "batch"), Backfill{}, cfg, nil, true)
			const now = 1_000_000
			f.running(1, "batch", "n1,n2,n3", now-60, now-60+90*60)
			pd := f.submit(2, 1000, "nodes=4,exclusive,time=30")
			bf := f.submit(3, 900, fmt.Sprintf("nodes=1,exclusive,time=%d", tc.bfMinutes))
			f.pass(now)
			if pd.State == Running {
				t.Fatalf("the higher job started; the first job holds three of its nodes")
			}
			if got := bf.State == Running; got != tc.backfill {
				t.Errorf("lower job running %v, want %v (%s)", got, tc.backfill, f.outcome(bf))
			}
			if !tc.backfill && (pd.Start == 0 || bf.Start != 0 && bf.Start <= pd.Start) {
				t.Errorf("lower job expected at %d, the higher at %d: want the higher first", bf.Start, pd.Start)
			}
		})
	}
}
