package sched

import (
	"testing"

	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/select/job"
)

// denyUser keeps one user's jobs pending before selection.
type denyUser struct{ user string }

func (d denyUser) Validate(*Job) error { return nil }
func (d denyUser) PreSelect(j *Job, _ int64) (bool, Reason, string) {
	return j.User != d.user, ReasonAccountPolicy, ""
}
func (denyUser) PostSelect(*Job, *job.Allocation, int64) (bool, Reason, string) { return true, 0, "" }
func (denyUser) Begin(*Job, int64)                                              {}
func (denyUser) End(*Job, int64)                                                {}

type fixedPriority struct{ p uint32 }

func (f fixedPriority) Set(*Job, uint32, int64) uint32 { return f.p }
func (fixedPriority) Refresh([]*Job, int64)            {}

// TestHooks: a limit that fails before selection skips only its job (the
// partition is not blocked, §3.2); the priority hook sets new jobs'
// priorities; with no hooks every job passes with FIFO priorities.
func TestHooks(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 2, "batch"), Builtin{}, DefaultConfig(), nil, false)
	f.q.opt.Limits = denyUser{"bad"}
	f.q.opt.Priority = fixedPriority{77}
	bad := f.submit(1, 0, "nodes=1,time=10", func(j *Job) { j.User = "bad"; j.Priority = 0 })
	if bad.Priority != 0 {
		t.Fatalf("held job got priority %d", bad.Priority)
	}
	if err := f.q.Release(1, 500, nil); err != nil {
		t.Fatal(err)
	}
	good := &Job{ID: 2, User: "good", Partitions: []string{"batch"}, Request: &job.Request{MinNodes: 1}}
	if err := f.q.Submit(good, false, 10); err != nil {
		t.Fatal(err)
	}
	if good.Priority != 77 {
		t.Errorf("priority hook gave %d", good.Priority)
	}
	f.pass(1000)
	if got := f.outcome(bad); got != "PENDING AccountingPolicy" {
		t.Errorf("limited job: %s", got)
	}
	if got := f.outcome(good); got != "RUNNING n1" {
		t.Errorf("other job: %s", got)
	}

	plain := newFixture(t, nodesN("n", 1, 2, "batch"), Backfill{}, DefaultConfig(), nil, false)
	a := &Job{ID: 1, Partitions: []string{"batch"}, Request: &job.Request{MinNodes: 1}}
	b := &Job{ID: 2, Partitions: []string{"batch"}, Request: &job.Request{MinNodes: 1}}
	for _, j := range []*Job{a, b} {
		if err := plain.q.Submit(j, false, 1); err != nil {
			t.Fatal(err)
		}
	}
	if a.Priority != topPriority-1 || b.Priority != topPriority-2 {
		t.Errorf("FIFO priorities %d, %d", a.Priority, b.Priority)
	}
}

// TestExternalHoldsUntilReleased is the seed's wiki model: jobs enter held
// and start once a controller releases them, on the nodes it names.
func TestExternalHoldsUntilReleased(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 3, "batch"), External{}, DefaultConfig(), nil, false)
	j := &Job{ID: 1, Partitions: []string{"batch"}, Request: &job.Request{MinNodes: 1}}
	if err := f.q.Submit(j, false, 1); err != nil {
		t.Fatal(err)
	}
	f.pass(1000)
	if got := f.outcome(j); got != "PENDING JobHeldAdmin" {
		t.Errorf("before release: %s", got)
	}
	n3, _ := f.cl.Snap.ID("n3")
	nodes := f.cl.Usable.Clone()
	nodes.Clear()
	nodes.Add(n3)
	if err := f.q.Release(1, 10, nodes); err != nil {
		t.Fatal(err)
	}
	f.pass(1001)
	if got := f.outcome(j); got != "RUNNING n3" {
		t.Errorf("after release: %s", got)
	}
}

// TestLimitReasons: every association and QOS reason of package limits
// has a sched Reason printing Slurm's string, and none collides with the
// scheduler's own reasons.
func TestLimitReasons(t *testing.T) {
	if got := LimitReason(limits.ReasonQOSMaxCPUPerUser).String(); got != "QOSMaxCpuPerUserLimit" {
		t.Errorf("QOSMaxCpuPerUserLimit printed as %q", got)
	}
	if LimitReason(limits.ReasonNone) != ReasonNone {
		t.Error("no limit reason is not ReasonNone")
	}
	n := 0
	for r := limits.Reason(1); r.String() != "Unknown"; r++ {
		sr := LimitReason(r)
		if sr < reasonCount || sr.String() != r.String() || uint(reasonLimitBase)+uint(r) > 255 {
			t.Fatalf("limit reason %d (%s) maps to %d (%s)", r, r, sr, sr)
		}
		if back, ok := sr.Limit(); !ok || back != r {
			t.Fatalf("%s does not map back", r)
		}
		n++
	}
	if n < 150 {
		t.Errorf("only %d limit reasons", n)
	}
	if _, ok := ReasonResources.Limit(); ok {
		t.Error("Resources is not a limit reason")
	}
}
