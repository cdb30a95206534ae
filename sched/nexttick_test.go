package sched

import (
	"fmt"
	"testing"
)

// tickRun submits jobs at their times and ends each job after its run,
// calling Tick either every second or only at events and at NextTick; it
// returns every pass that did something, with its time.
func tickRun(t *testing.T, s Scheduler, everySecond bool) []string {
	t.Helper()
	f := newFixture(t, nodesN("n", 1, 4, "batch"), s, DefaultConfig(), nil, false)
	type sub struct {
		at   int64
		spec string
		run  int64
	}
	subs := []sub{{1, "nodes=2,time=10", 300}, {2, "nodes=3,time=20", 500}, {40, "nodes=1,time=5", 100},
		{41, "nodes=2,time=60", 2000}, {700, "nodes=4,time=10", 60}, {701, "nodes=1,time=2", 30}}
	ends := map[int64][]uint32{}
	var log []string
	f.q.Tick(0)
	next := int64(0)
	for now := int64(1); now <= 6000; now++ {
		event := false
		for _, id := range ends[now] {
			if err := f.q.Finish(id, Completed, now); err != nil {
				t.Fatal(err)
			}
			event = true
		}
		for i, s := range subs {
			if s.at == now {
				f.submit(uint32(i+1), 0, s.spec, func(j *Job) { j.Submit = now })
				event = true
			}
		}
		if !everySecond && !event && now < next {
			continue
		}
		p := f.q.Tick(now)
		for _, id := range p.Started {
			ends[now+subs[id-1].run] = append(ends[now+subs[id-1].run], id)
		}
		if p.MainExit != "" || p.BackfillExit != "" {
			log = append(log, fmt.Sprintf("%d: %v %d/%d %s/%s", now, p.Started, p.MainTested, p.BackfillTested, p.MainExit, p.BackfillExit))
		}
		next = f.q.NextTick(now)
	}
	return log
}

// TestNextTickRunsTheSamePassesAsTickingEverySecond: a simulator that
// ticks only at events and at NextTick runs exactly the passes, at the
// same times with the same outcomes, as one ticking every second.
func TestNextTickRunsTheSamePassesAsTickingEverySecond(t *testing.T) {
	for _, s := range []Scheduler{Builtin{}, Backfill{}} {
		t.Run(s.Name(), func(t *testing.T) {
			want := tickRun(t, s, true)
			got := tickRun(t, s, false)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("event-driven passes differ:\n got %v\nwant %v", got, want)
			}
			if len(want) < 5 {
				t.Fatalf("too few passes to compare: %v", want)
			}
		})
	}
}

// TestPurgeFinishedDropsEndedJobsAndLiftsTheirDependencies: purged jobs
// leave Jobs and Job, running and pending ones stay, and a dependency on a
// purged job no longer holds its dependant.
func TestPurgeFinishedDropsEndedJobsAndLiftsTheirDependencies(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 2, "batch"), Backfill{}, DefaultConfig(), nil, false)
	f.submit(1, 300, "nodes=1,time=10")
	f.submit(2, 200, "nodes=1,time=10")
	f.pass(10)
	dep := f.submit(3, 100, "nodes=1,time=10", func(j *Job) { j.Deps = []Dependency{{Kind: AfterOK, Job: 1}} })
	if err := f.q.Finish(1, Failed, 20); err != nil {
		t.Fatal(err)
	}
	if n := f.q.PurgeFinished(); n != 1 {
		t.Fatalf("purged %d jobs, want 1", n)
	}
	if _, ok := f.q.Job(1); ok || len(f.q.Jobs()) != 2 {
		t.Fatalf("job 1 still known; jobs %d", len(f.q.Jobs()))
	}
	f.pass(30)
	if dep.State != Running {
		t.Fatalf("dependant of a purged job: %s", f.outcome(dep))
	}
}
