package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/workload"
)

// simulate runs jobs on n whole nodes of one CPU with policy.
func simulate(t *testing.T, n int, policy Policy, jobs []workload.Job, mut ...func(*Options)) *Result {
	t.Helper()
	nodes, err := HeaderNodes(workload.Machine{MaxNodes: n, MaxProcs: n}, false)
	if err != nil {
		t.Fatal(err)
	}
	cl, plug, err := NewCluster(nodes, WholeNode)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Cluster: cl, Plugin: plug, Partition: HeaderPartition, Policy: policy, Config: sched.DefaultConfig()}
	for _, m := range mut {
		m(&opt)
	}
	res, err := Run(&workload.Trace{Source: "test", Jobs: jobs}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// wj is a trace job: id, submit, processors, run and limit in seconds.
func wj(id, submit int64, procs int, run, limit int64) workload.Job {
	return workload.Job{ID: id, Submit: submit, Wait: workload.Unknown, Run: run, Procs: procs, AllocProcs: procs, TimeLimit: limit,
		MemKB: workload.Unknown, Status: workload.StatusCompleted, User: fmt.Sprint("u", id%3)}
}

// schedule is each job's "id:start-end" with B for a backfilled start.
func schedule(res *Result) string {
	var out []string
	for _, j := range res.Jobs {
		b := ""
		if j.Backfilled {
			b = "B"
		}
		out = append(out, fmt.Sprintf("%d:%d-%d%s", j.ID, j.Start, j.End, b))
	}
	return strings.Join(out, " ")
}

// TestKnownSchedules: hand-made workloads on 4 whole nodes whose schedule
// follows from slurmctld's rules as sched models them: a submission waits
// batch_sched_delay (3 s) for its pass, a job's end runs a pass at once,
// FIFO blocks the partition at the first job that does not fit, backfill
// runs bf_interval (30 s) after the first change and starts a job that
// ends before the blocked job's reservation (limits are whole minutes).
// Derived from the rules, not recorded from a running Slurm.
func TestKnownSchedules(t *testing.T) {
	jobs := []workload.Job{
		wj(1, 0, 2, 100, 100), // 2 nodes, limit 2 min: reserved end at 123
		wj(2, 10, 4, 50, 60),  // the whole machine: waits for job 1
		wj(3, 20, 1, 10, 60),  // fits beside job 1 and ends by 123
	}
	cases := []struct {
		policy Policy
		want   string
	}{
		{FIFO, "1:3-103 2:103-153 3:153-163"},
		{Builtin, "1:3-103 2:103-153 3:153-163"},
		{Backfill, "1:3-103 2:103-153 3:30-40B"},
	}
	for _, c := range cases {
		t.Run(string(c.policy), func(t *testing.T) {
			res := simulate(t, 4, c.policy, jobs)
			if got := schedule(res); got != c.want {
				t.Fatalf("schedule %s, want %s", got, c.want)
			}
		})
	}
}

// TestBackfillDoesNotDelayTheReservedJob: a job longer than the gap before
// the head job's reservation waits behind it under backfill too.
func TestBackfillDoesNotDelayTheReservedJob(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 2, 100, 100), wj(2, 10, 4, 50, 60), wj(3, 20, 1, 300, 600)}
	res := simulate(t, 4, Backfill, jobs)
	if got, want := schedule(res), "1:3-103 2:103-153 3:153-453"; got != want {
		t.Fatalf("schedule %s, want %s", got, want)
	}
	if r := res.Jobs[2].Reasons; len(r) == 0 || r[0].Reason != "Priority" {
		t.Fatalf("job 3's reasons %v, want Priority first", r)
	}
}

// TestOverrun: a job that ran past its limit is killed at it (TIMEOUT)
// with kill, and runs its recorded time with run.
func TestOverrun(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 1, 500, 120)}
	kill := simulate(t, 2, FIFO, jobs)
	if j := kill.Jobs[0]; j.End != 123 || j.State != "TIMEOUT" || kill.Summary.Killed != 1 {
		t.Fatalf("kill: %+v", j)
	}
	run := simulate(t, 2, FIFO, jobs, func(o *Options) { o.Overrun = OverrunRun })
	if j := run.Jobs[0]; j.End != 503 || j.State != "COMPLETED" {
		t.Fatalf("run: %+v", j)
	}
}

// TestNodeDownEndsItsJobsAndUpBringsItBack: a node going down ends the job
// on it (NODE_FAIL) and keeps waiting jobs off it until it is back.
func TestNodeDownEndsItsJobsAndUpBringsItBack(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 1, 1000, 1200), wj(2, 100, 2, 60, 60)}
	res := simulate(t, 2, FIFO, jobs, func(o *Options) {
		o.NodeEvents = []NodeEvent{{Time: 50, Nodes: []string{"n1"}, Down: true}, {Time: 400, Nodes: []string{"n1"}}}
	})
	if got, want := schedule(res), "1:3-50 2:400-460"; got != want {
		t.Fatalf("schedule %s, want %s", got, want)
	}
	if res.Jobs[0].State != "NODE_FAIL" {
		t.Fatalf("job 1 %s", res.Jobs[0].State)
	}
}

// TestReservationKeepsJobsOff: no job runs on a reserved node in its
// window; a job that would reach into it waits for its end, while a short
// one fits before it.
func TestReservationKeepsJobsOff(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 2, 100, 120), wj(2, 10, 1, 50, 60), wj(3, 20, 2, 60, 60)}
	res := simulate(t, 2, Backfill, jobs, func(o *Options) {
		o.Reservations = []Reservation{{Name: "maint", Start: 200, End: 1000, Nodes: []string{"n1", "n2"}}}
	})
	// Job 3 starts at the first pass after the reservation ends (the
	// full main pass every sched_interval).
	if got, want := schedule(res), "1:3-103 2:103-153 3:1020-1080"; got != want {
		t.Fatalf("schedule %s, want %s", got, want)
	}
}

// TestCancelledJobLeavesTheQueue: a job the trace cancelled before it
// started is cancelled at its recorded wait if still pending.
func TestCancelledJobLeavesTheQueue(t *testing.T) {
	c := wj(2, 10, 2, -1, 60)
	c.Status, c.Wait = workload.StatusCancelled, 40
	res := simulate(t, 2, FIFO, []workload.Job{wj(1, 0, 1, 100, 120), c})
	if j := res.Jobs[1]; j.State != "CANCELLED" || j.End != 50 || j.Start != -1 {
		t.Fatalf("cancelled job %+v", j)
	}
	if res.Summary.Started != 1 || res.Summary.Canceled != 1 {
		t.Fatalf("summary %+v", res.Summary)
	}
}

// TestJobLargerThanThePartitionIsRefused: sbatch refuses a job larger than
// its partition, so it never queues and blocks nobody.
func TestJobLargerThanThePartitionIsRefused(t *testing.T) {
	res := simulate(t, 2, FIFO, []workload.Job{wj(1, 0, 3, 10, 60), wj(2, 5, 1, 10, 60)})
	if res.Jobs[0].State != "REFUSED" || res.Jobs[1].Start != 5 || res.Summary.Refused != 1 {
		t.Fatalf("jobs %+v", res.Jobs)
	}
}

// randomTrace is a deterministic busy workload of n jobs.
func randomTrace(seed uint64, n, machine int) []workload.Job {
	rng := rand.New(rand.NewPCG(seed, 7))
	var jobs []workload.Job
	var at int64
	for i := range n {
		at += rng.Int64N(120)
		run := 10 + rng.Int64N(3600)
		limit := run + rng.Int64N(3600)
		if rng.IntN(10) == 0 {
			limit = run / 2
		}
		jobs = append(jobs, wj(int64(i+1), at, 1+rng.IntN(machine), run, limit))
	}
	return jobs
}

// fakeClock advances a millisecond per reading.
func fakeClock() func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

// outputs is everything a run writes.
func outputs(t *testing.T, res *Result) []byte {
	var b bytes.Buffer
	if err := WriteCSV(&b, res.Jobs); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&b, res.Jobs); err != nil {
		t.Fatal(err)
	}
	s, err := json.Marshal(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(s)
	fmt.Fprint(&b, res.Series)
	return b.Bytes()
}

// TestSameInputsGiveByteIdenticalOutputs: two runs of the same trace and
// options (with an injected clock) write the same bytes, for every policy
// and allocation.
func TestSameInputsGiveByteIdenticalOutputs(t *testing.T) {
	jobs := randomTrace(3, 20, 16)
	for _, p := range Policies {
		for _, alloc := range []Allocation{WholeNode, PerCPU} {
			t.Run(fmt.Sprint(p, "/", alloc), func(t *testing.T) {
				one := func() []byte {
					nodes, _ := HeaderNodes(workload.Machine{MaxNodes: 4, MaxProcs: 16}, false)
					cl, plug, err := NewCluster(nodes, alloc)
					if err != nil {
						t.Fatal(err)
					}
					res, err := Run(&workload.Trace{Jobs: jobs}, Options{Cluster: cl, Plugin: plug, Partition: HeaderPartition,
						Policy: p, Config: sched.DefaultConfig(), Allocation: alloc, WallClock: fakeClock()})
					if err != nil {
						t.Fatal(err)
					}
					if res.Summary.Started != len(jobs) {
						t.Fatalf("started %d of %d", res.Summary.Started, len(jobs))
					}
					return outputs(t, res)
				}
				a, b := one(), one()
				if !bytes.Equal(a, b) {
					t.Fatal("two runs differ")
				}
			})
		}
	}
}

// TestBackfillBeatsFIFOOnABusyWorkload: on a congested random workload,
// backfill lowers the mean wait and starts jobs by backfill.
func TestBackfillBeatsFIFOOnABusyWorkload(t *testing.T) {
	jobs := randomTrace(5, 50, 8)
	fifo := simulate(t, 8, FIFO, jobs).Summary
	bf := simulate(t, 8, Backfill, jobs).Summary
	if bf.MeanWait >= fifo.MeanWait || bf.MeanBSLD >= fifo.MeanBSLD || bf.Backfilled == 0 || fifo.Backfilled != 0 {
		t.Fatalf("fifo wait %.0f bsld %.1f, backfill wait %.0f bsld %.1f (%d backfilled)", fifo.MeanWait, fifo.MeanBSLD, bf.MeanWait, bf.MeanBSLD, bf.Backfilled)
	}
}

// TestMoreNodesAddsNodesOfTheLastShape: header+N's nodes continue the
// header's names with the last node's CPUs and partitions.
func TestMoreNodesAddsNodesOfTheLastShape(t *testing.T) {
	nodes, err := HeaderNodes(workload.Machine{MaxNodes: 2, MaxProcs: 8}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		extra int
		want  string
	}{{0, "n1:4 n2:4"}, {-1, "n1:4 n2:4"}, {2, "n1:4 n2:4 n3:4 n4:4"}} {
		var got []string
		for _, n := range MoreNodes(slices.Clone(nodes), tc.extra) {
			got = append(got, fmt.Sprintf("%s:%d", n.Name, n.CPUs))
			if len(n.Partitions) != 1 || n.Partitions[0] != HeaderPartition {
				t.Errorf("%s: partitions %v", n.Name, n.Partitions)
			}
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("extra %d: %s, want %s", tc.extra, s, tc.want)
		}
	}
}
