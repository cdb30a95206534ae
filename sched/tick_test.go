package sched

import "testing"

// TestTickFollowsSlurmctldTimers: a submission waits batch_sched_delay for
// its main pass, a job's end asks for a pass at once, a full pass comes
// every sched_interval, and backfill runs every bf_interval when something
// changed. Read from controller.c, job_scheduler.c and backfill.c; not yet
// recorded from a running slurmctld.
func TestTickFollowsSlurmctldTimers(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 2, "batch"), Backfill{}, DefaultConfig(), nil, false)
	f.q.Tick(0)
	a := f.submit(1, 300, "nodes=1,time=10", func(j *Job) { j.Submit = 1 })
	if p := f.q.Tick(2); len(p.Started) != 0 {
		t.Fatalf("started %v before batch_sched_delay", p.Started)
	}
	if p := f.q.Tick(4); len(p.Started) != 1 || a.State != Running {
		t.Fatalf("after batch_sched_delay: started %v", p.Started)
	}
	big := f.submit(2, 200, "nodes=2,time=10", func(j *Job) { j.Submit = 5 })
	f.q.Tick(8)
	if big.State != Pending || big.Reason != ReasonResources {
		t.Fatalf("big job %s %s", big.State, big.ReasonText())
	}
	if big.Start != 0 {
		t.Fatalf("backfill ran before bf_interval: start %d", big.Start)
	}
	f.q.Tick(30)
	if big.Start != 604 {
		t.Fatalf("backfill at bf_interval: expected start %d, want 604 (job 1 ends then)", big.Start)
	}
	if err := f.q.Finish(1, Completed, 31); err != nil {
		t.Fatal(err)
	}
	if p := f.q.Tick(31); len(p.Started) != 1 || big.State != Running {
		t.Fatalf("a job's end asks for a pass at once: started %v", p.Started)
	}
	p := f.q.Tick(60)
	if p.MainTested != 0 || p.MainExit != "end of queue" {
		t.Fatalf("full pass at sched_interval: %+v", p)
	}
}
