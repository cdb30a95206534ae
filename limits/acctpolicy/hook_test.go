package acctpolicy

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
)

// queue is the lab's smoke cluster in small: eight 8-CPU nodes in
// partition p, scheduled with backfill under the hook.
func queue(t *testing.T, p *limits.Policy) (*sched.Queue, *Hook) {
	t.Helper()
	var nodes []index.Node
	for i := 1; i <= 8; i++ {
		nodes = append(nodes, index.Node{Name: fmt.Sprintf("n%d", i), CPUs: 8, MemoryMB: 16000, Partitions: []string{"p"}})
	}
	snap, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	cl := job.NewCluster(snap)
	h, err := New(p, map[string]sched.Partition{"p": {}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := sched.NewQueue(sched.Options{Cluster: cl, Plugin: constres.New(cl, constres.Config{}),
		Scheduler: sched.Backfill{}, Config: sched.DefaultConfig(), Limits: h})
	return q, h
}

func labPolicy(t *testing.T) *limits.Policy {
	t.Helper()
	p, err := limits.ParseSacctmgrCommands([]byte("add qos small MaxTRESPerUser=cpu=8\nadd account lab Description=lab Organization=sift\nadd user @USER@ DefaultAccount=lab Account=lab QOS=normal,small DefaultQOS=small\n"),
		"c", map[string]string{"@USER@": "labuser"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Enforce, err = limits.ParseEnforce("associations,limits,qos"); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSmokeAccountingThroughScheduler is the lab's smoke accounting case
// (lab/slurm/smoke/recorded/smoke-accounting.json) through sched with the
// hook: 8 + 8 + 1 CPUs under QOS MaxTRESPerUser=cpu=8; Slurm ran the first
// and held the others with QOSMaxCpuPerUserLimit, and after the first was
// cancelled ran the second and still held the third.
func TestSmokeAccountingThroughScheduler(t *testing.T) {
	q, h := queue(t, labPolicy(t))
	now := int64(1_800_000_000)
	var jobs []*sched.Job
	for i, n := range []int{8, 8, 1} {
		j := &sched.Job{ID: uint32(i + 1), User: "labuser", Account: "lab", Partitions: []string{"p"},
			Request: &job.Request{MinNodes: 1, NTasks: n}}
		if err := q.Submit(j, false, now); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	if _, err := q.Schedule(now); err != nil {
		t.Fatal(err)
	}
	want := []string{"RUNNING None", "PENDING QOSMaxCpuPerUserLimit", "PENDING QOSMaxCpuPerUserLimit"}
	for i, j := range jobs {
		if got := j.State.String() + " " + j.ReasonText(); got != want[i] {
			t.Errorf("job %d: %s, Slurm: %s", j.ID, got, want[i])
		}
	}
	if err := q.Finish(1, sched.Cancelled, now+2); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Schedule(now + 2); err != nil {
		t.Fatal(err)
	}
	want = []string{"CANCELLED None", "RUNNING None", "PENDING QOSMaxCpuPerUserLimit"}
	for i, j := range jobs {
		if got := j.State.String() + " " + j.ReasonText(); got != want[i] {
			t.Errorf("after cancel, job %d: %s, Slurm: %s", j.ID, got, want[i])
		}
	}
	for _, id := range []uint32{2, 3} {
		st := sched.Completed
		if id == 3 {
			st = sched.Cancelled
		}
		if err := q.Finish(id, st, now+100); err != nil {
			t.Fatal(err)
		}
	}
	if h.Job(2) != nil || h.Job(3) != nil {
		t.Error("ended jobs are still tracked")
	}
}

// TestSubmitRefusedWithReason: a submit-count limit refuses the job with
// Slurm's reason; a size limit without DenyOnLimit lets it pend.
func TestSubmitRefusedWithReason(t *testing.T) {
	p := labPolicy(t)
	p.QOS("small").MaxSubmitJobsPerUser = 1
	p.QOS("small").MaxTRESPerJob[limits.TRESCPU] = 4
	q, _ := queue(t, p)
	now := int64(1_800_000_000)
	a := &sched.Job{ID: 1, User: "labuser", Account: "lab", Partitions: []string{"p"}, Request: &job.Request{MinNodes: 1, NTasks: 6}}
	if err := q.Submit(a, false, now); err != nil {
		t.Fatal(err)
	}
	b := &sched.Job{ID: 2, User: "labuser", Account: "lab", Partitions: []string{"p"}, Request: &job.Request{MinNodes: 1, NTasks: 1}}
	err := q.Submit(b, false, now)
	var pe *limits.PolicyError
	if !errors.As(err, &pe) || pe.Reason != limits.ReasonQOSMaxSubJob {
		t.Fatalf("second submit: %v", err)
	}
	if _, err := q.Schedule(now); err != nil {
		t.Fatal(err)
	}
	if got := a.State.String() + " " + a.ReasonText(); got != "PENDING QOSMaxCpuPerJobLimit" {
		t.Errorf("6-CPU job under MaxTRESPerJob=cpu=4: %s", got)
	}
	c := &sched.Job{ID: 3, User: "nobody", Account: "lab", Partitions: []string{"p"}, Request: &job.Request{MinNodes: 1}}
	if err := q.Submit(c, false, now); !errors.Is(err, limits.ErrInvalidAccount) {
		t.Errorf("unknown user: %v", err)
	}
}

// TestMaxWallFillsTimeLimit: a job without a time limit gets its QOS's
// MaxWall at submit, and runs with it.
func TestMaxWallFillsTimeLimit(t *testing.T) {
	p := labPolicy(t)
	p.QOS("small").MaxWall = 30
	q, _ := queue(t, p)
	now := int64(1_800_000_000)
	j := &sched.Job{ID: 1, User: "labuser", Account: "lab", Partitions: []string{"p"}, Request: &job.Request{MinNodes: 1, NTasks: 1}}
	if err := q.Submit(j, false, now); err != nil {
		t.Fatal(err)
	}
	if j.TimeLimit != 30*time.Minute {
		t.Fatalf("time limit %v", j.TimeLimit)
	}
	if _, err := q.Schedule(now); err != nil {
		t.Fatal(err)
	}
	if j.State != sched.Running || j.End-j.Start != 1800 {
		t.Errorf("%s, runs %d s", j.State, j.End-j.Start)
	}
}

// TestLimitReasonReplacesResources is inc21.30.2 through the scheduler:
// with QOS GrpCpus=7 and a 7-CPU job running on n1, an 8-CPU job for n1
// cannot get nodes, and slurmctld's select_nodes still checks the limits
// with the request, so the job waits with QOSGrpCpuLimit, not Resources.
func TestLimitReasonReplacesResources(t *testing.T) {
	p := labPolicy(t)
	p.QOS("small").GrpTRES[limits.TRESCPU] = 7
	q, _ := queue(t, p)
	now := int64(1_800_000_000)
	var jobs []*sched.Job
	for i, spec := range []string{"nodelist=n1,ntasks=7", "nodelist=n1,ntasks=8"} {
		req, err := job.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		j := &sched.Job{ID: uint32(i + 1), User: "labuser", Account: "lab", Partitions: []string{"p"}, Request: req}
		if err := q.Submit(j, false, now); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	if _, err := q.Schedule(now); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"RUNNING None", "PENDING QOSGrpCpuLimit"} {
		if got := jobs[i].State.String() + " " + jobs[i].ReasonText(); got != want {
			t.Errorf("job %d: %s, want %s", i+1, got, want)
		}
	}
}

// TestAccrueThroughScheduler: with the QOS's GrpJobsAccrue=1, of two
// jobs pending behind a full cluster only the first accrues age priority;
// once the first starts (and the next queue build takes it out of the
// count) the second accrues from then; when every job ran the count is 0. No recording: acct_policy.c's
// _handle_accrue_time, called by build_job_queue.
func TestAccrueThroughScheduler(t *testing.T) {
	p := labPolicy(t)
	p.QOS("small").GrpJobsAccrue = 1
	p.QOS("small").MaxTRESPerUser = make(limits.Vector, p.TRES.Len())
	for i := range p.QOS("small").MaxTRESPerUser {
		p.QOS("small").MaxTRESPerUser[i] = limits.Infinite64
	}
	q, h := queue(t, p)
	now := int64(1_800_000_000)
	for i, n := range []int{64, 40, 40} {
		j := &sched.Job{ID: uint32(i + 1), User: "labuser", Account: "lab", Partitions: []string{"p"},
			TimeLimit: time.Hour, Request: &job.Request{MinNodes: 1, NTasks: n}}
		if err := q.Submit(j, false, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Schedule(now); err != nil {
		t.Fatal(err)
	}
	if h.AccrueTime(2) != now || h.AccrueTime(3) != 0 {
		t.Fatalf("accrue times %d, %d; want %d and 0", h.AccrueTime(2), h.AccrueTime(3), now)
	}
	if err := q.Finish(1, sched.Cancelled, now+10); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Schedule(now + 10); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Schedule(now + 20); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Job(2); j.State != sched.Running {
		t.Fatalf("job 2 is %s, want RUNNING", j.State)
	}
	// The backfill pass after the main pass that started job 2 builds
	// the queue again: job 3 accrues from then.
	if h.AccrueTime(2) != now || h.AccrueTime(3) != now+10 {
		t.Fatalf("accrue times %d, %d; want %d (kept) and %d", h.AccrueTime(2), h.AccrueTime(3), now, now+10)
	}
	if err := q.Finish(2, sched.Cancelled, now+30); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Schedule(now + 30); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Schedule(now + 40); err != nil {
		t.Fatal(err)
	}
	if c := p.QOS("small").AccrueCount(); c != 0 {
		t.Fatalf("accrue count %d with nothing pending, want 0", c)
	}
}

// TestNodeLimitRefusesAtSubmit: QOS MaxTRESPerJob=node=1 clamps the job
// to one node (get_node_cnts); twelve tasks never fit one 8-CPU node, so
// sbatch is refused, as Slurm refused ntasks=12 in
// lab/slurm/limits/recorded/rand-1-04.json (w4-07); eight tasks fit.
func TestNodeLimitRefusesAtSubmit(t *testing.T) {
	for _, tc := range []struct {
		tasks   int
		refused bool
	}{{12, true}, {8, false}} {
		p := labPolicy(t)
		v := make(limits.Vector, p.TRES.Len())
		for i := range v {
			v[i] = limits.Infinite64
		}
		v[limits.TRESNode] = 1
		p.QOS("small").MaxTRESPerJob = v
		q, _ := queue(t, p)
		j := &sched.Job{ID: 1, User: "labuser", Account: "lab", Partitions: []string{"p"},
			Request: &job.Request{NTasks: tc.tasks}}
		err := q.Submit(j, false, 1)
		if refused := errors.Is(err, sched.ErrNodeConfigUnavailable); refused != tc.refused || err != nil && !refused {
			t.Errorf("ntasks=%d: Submit %v, want refused=%v", tc.tasks, err, tc.refused)
		}
	}
}

// TestMinPrioThresholdDoesNotBlockPartition: under sched/builtin a job
// that cannot start keeps lower jobs of its partition from starting; with
// its QOS's MinPrioThreshold above its priority it does not, as
// acct_policy_get_prio_thresh replaces bf_min_prio_reserve in
// job_scheduler.c's main loop. No recording: from the code at 284c3b95.
func TestMinPrioThresholdDoesNotBlockPartition(t *testing.T) {
	for _, tc := range []struct {
		thresh uint32
		want   string
	}{{0, "PENDING Priority"}, {1000, "RUNNING None"}} {
		p := labPolicy(t)
		p.QOS("small").MaxTRESPerUser = make(limits.Vector, p.TRES.Len())
		for i := range p.QOS("small").MaxTRESPerUser {
			p.QOS("small").MaxTRESPerUser[i] = limits.Infinite64
		}
		p.QOS("small").MinPrioThreshold = tc.thresh
		var nodes []index.Node
		for i := 1; i <= 2; i++ {
			nodes = append(nodes, index.Node{Name: fmt.Sprintf("n%d", i), CPUs: 8, MemoryMB: 16000, Partitions: []string{"p"}})
		}
		snap, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		cl := job.NewCluster(snap)
		h, err := New(p, map[string]sched.Partition{"p": {}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := sched.NewQueue(sched.Options{Cluster: cl, Plugin: constres.New(cl, constres.Config{}),
			Scheduler: sched.Builtin{}, Config: sched.DefaultConfig(), Limits: h})
		now := int64(1_800_000_000)
		// Job 1 runs on n1; job 2 (priority 100) wants both nodes; job 3
		// (priority 50) fits on n2.
		specs := []struct {
			prio uint32
			req  job.Request
		}{{200, job.Request{MinNodes: 1, NTasks: 8}}, {100, job.Request{MinNodes: 2, NTasks: 16}}, {50, job.Request{MinNodes: 1, NTasks: 4}}}
		var jobs []*sched.Job
		for i, s := range specs {
			r := s.req
			j := &sched.Job{ID: uint32(i + 1), User: "labuser", Account: "lab", Partitions: []string{"p"},
				Priority: s.prio, TimeLimit: time.Hour, Request: &r}
			if err := q.Submit(j, false, now); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, j)
			if i == 0 {
				if _, err := q.Schedule(now); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := q.Schedule(now); err != nil {
			t.Fatal(err)
		}
		if got := jobs[2].State.String() + " " + jobs[2].ReasonText(); got != tc.want {
			t.Errorf("MinPrioThreshold=%d: job 3 %s, want %s", tc.thresh, got, tc.want)
		}
	}
}
