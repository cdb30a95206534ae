package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nodesift/sift/select/job"
)

// TestReusedBackfillPassesAgreeWithFreshOnes drives random worlds with
// Tick, as a simulator does (bursts of submissions, quiet stretches, jobs
// ending early or at their limits), twice: with Options.ReusePasses and the
// plugin's fast paths, and plainly. After every Tick the passes and every
// job (state, start, planned start and nodes, reason) must be the same,
// and some passes must have been reused, and some continued after
// submissions (continueBackfill).
func TestReusedBackfillPassesAgreeWithFreshOnes(t *testing.T) {
	reused, continued := 0, 0
	worlds := tickWorlds(t, rand.New(rand.NewPCG(5, 11)), 1500, reusePair(t), nil, (*fuzzWorld).outcomes, func(fast *fuzzWorld) {
		reused += fast.q.bfLast.reused
		continued += fast.q.bfLast.continued
	})
	if reused == 0 || continued == 0 {
		t.Fatalf("%d backfill passes reused, %d continued: the test tests too little", reused, continued)
	}
	t.Logf("%d worlds, %d backfill passes reused, %d continued after submissions", worlds, reused, continued)
}

// reusePair is tickWorlds' pair for the reuse tests: a world with
// Options.ReusePasses and the plain one, none where reuse is off (another
// select plugin, preemption or advance reservations).
func reusePair(t *testing.T) func(gf, gp *byteGen) (*fuzzWorld, *fuzzWorld) {
	return func(gf, gp *byteGen) (*fuzzWorld, *fuzzWorld) {
		fast, plain := newFuzzWorld(t, gf, false), newFuzzWorld(t, gp, true)
		if _, ok := fast.q.sched.(Backfill); !ok || !fast.q.reuseAllowed() {
			return nil, nil
		}
		return fast, plain
	}
}

// tickWorlds drives, for each of inputs random inputs, the two worlds pair
// makes of it (nil when the input does not apply) with Tick as a simulator
// does: bursts of submissions, quiet stretches, jobs ending early or at
// their limits. Before each Tick between (if set) may change both alike;
// after it the passes and outcome of both must be the same. done sees the
// first world when its run is over. It returns how many pairs ran.
func tickWorlds(t *testing.T, r *rand.Rand, inputs int, pair func(gf, gp *byteGen) (fast, plain *fuzzWorld),
	between func(now int64, id uint32, fast, plain *fuzzWorld), outcome func(*fuzzWorld) string, done func(fast *fuzzWorld)) int {
	t.Helper()
	worlds := 0
	for seed := 0; seed < inputs; seed++ {
		data := make([]byte, 400+r.IntN(400))
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		gf, gp := &byteGen{b: data}, &byteGen{b: data}
		fast, plain := pair(gf, gp)
		if fast == nil {
			continue
		}
		worlds++
		now, id := int64(1000), uint32(0)
		for step := 0; step < 150; step++ {
			if r.IntN(6) == 0 {
				for k := 1 + r.IntN(3); k > 0; k-- {
					id++
					fast.submit(t, gf, id, now)
					plain.submit(t, gp, id, now)
				}
			}
			if between != nil {
				between(now, id, fast, plain)
			}
			pf, pp := fast.q.Tick(now), plain.q.Tick(now)
			if got, want := passText(pf)+outcome(fast), passText(pp)+outcome(plain); got != want {
				t.Fatalf("input %d, tick at %d: with the fast path\n%s\nwithout\n%s", seed, now, got, want)
			}
			now += int64(1 + r.IntN(45))
			early := uint32(r.IntN(int(id) + 1))
			for _, w := range []*fuzzWorld{fast, plain} {
				for _, j := range w.q.Jobs() {
					if j.State == Running && (j.End <= now || j.ID == early) {
						if err := w.q.Finish(j.ID, Completed, now); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
		done(fast)
	}
	return worlds
}

// passText is what a Tick reports of its passes.
func passText(p *Pass) string {
	return fmt.Sprintf("started %v (%d by backfill), tested %d/%d, reserved %d, exits %q %q, preempted %v\n",
		p.Started, p.BackfillStarted, p.MainTested, p.BackfillTested, p.Reserved, p.MainExit, p.BackfillExit, p.Preempted)
}

// TestReusedPassEndsWhenTheWindowReachesAWillRunStartBeyondIt is
// FuzzSchedulePasses' seed 1601a84fdddc2656, decoded: select/linear,
// bf_resolution 49 s, bf_window 97 min, every pending job with a
// constraint no node has (planned, never started). At 1497 the map ends at
// 7301; job 11's second round (from 3209, later_start 4067) gets will-run's
// answer 7349, job 1's end, whose slot begins at the map's end, so the
// overlap test reads no slot and the job retries from 4067 (planned at
// 6446). Once the map ends at 7350 (now 1530 and later) that test reads the
// last slot, where job 8 holds n4, and the job is planned at 7349 instead:
// a reused pass must not stand past 1530.
func TestReusedPassEndsWhenTheWindowReachesAWillRunStartBeyondIt(t *testing.T) {
	world := func(reuse bool) *fixture {
		nodes := []testNode{{name: "n1", parts: []string{"p0", "p1"}}, {name: "n2", parts: []string{"p0", "p1"}}, {name: "n3", parts: []string{"p0"}},
			{name: "n4", parts: []string{"p0", "p1"}}, {name: "n5", parts: []string{"p0", "p1"}}, {name: "n6", parts: []string{"p0"}, state: "down"},
			{name: "n7", parts: []string{"p1"}}, {name: "n8", parts: []string{"p0"}}, {name: "n9", parts: []string{"p0"}}}
		cfg := DefaultConfig()
		cfg.BFResolution, cfg.BFWindow, cfg.BFPlanIgnoresConstraints = 49*time.Second, 97*time.Minute, true
		f := newFixture(t, nodes, Backfill{}, cfg, nil, false)
		f.q.opt.ReusePasses = reuse
		f.running(1, "p0", "n1", 1000, 7349)
		f.running(3, "p0", "n2,n5,n9", 1000, 3209)
		f.running(5, "p0", "n3,n4", 1000, 6446)
		cons := func(j *Job) { j.Request.Constraints = []job.Constraint{{Lang: "slurm", Text: "a=1"}} }
		f.submit(2, 49, "nodes=2,exclusive,partition=p0,time=14", cons)
		f.submit(8, 49, "nodes=1,exclusive,partition=p0,time=49,nodelist=n4", cons)
		f.submit(9, 8, "nodes=2,exclusive,partition=p1,time=49", cons)
		f.submit(11, 6, "nodes=3,ntasks=3,exclusive,partition=p0,time=1", cons)
		return f
	}
	for _, c := range []struct {
		name      string
		then      int64
		reused    int
		wantStart int64
	}{
		{"the map still ends at the answer's slot: the pass stands", 1529, 1, 6446},
		{"the map reaches past it: the pass runs again", 1530, 0, 7349},
	} {
		t.Run(c.name, func(t *testing.T) {
			fast, plain := world(true), world(false)
			for _, f := range []*fixture{fast, plain} {
				f.q.BackfillPass(1497, &Pass{})
				f.q.BackfillPass(c.then, &Pass{})
			}
			var got, want []string
			for _, id := range []uint32{2, 8, 9, 11} {
				a, _ := fast.q.Job(id)
				b, _ := plain.q.Job(id)
				got = append(got, fmt.Sprintf("%d at %d on %s", id, a.Start, fast.names(a.PlannedNodes)))
				want = append(want, fmt.Sprintf("%d at %d on %s", id, b.Start, plain.names(b.PlannedNodes)))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("reused plans %v, fresh %v", got, want)
			}
			if j, _ := plain.q.Job(11); j.Start != c.wantStart || fast.q.bfLast.reused != c.reused {
				t.Errorf("job 11 at %d, want %d; %d passes reused, want %d", j.Start, c.wantStart, fast.q.bfLast.reused, c.reused)
			}
		})
	}
}

// TestFullPassesReadingLoggedWalksAgreeWithFreshOnes is
// TestReusedBackfillPassesAgreeWithFreshOnes for the slot walks a full
// pass reads from the last full pass's log (walkLog) and the records it
// takes over from it (walkLogs.replay): random Tick-driven worlds, jobs
// ending early and at their limits, every job's state, times, plan and
// reason compared after every Tick with a world that walks and tests
// every time; the worlds must read walks across ends and starts, and
// take records over.
func TestFullPassesReadingLoggedWalksAgreeWithFreshOnes(t *testing.T) {
	read, walked, replayed, verified := 0, 0, 0, 0
	worlds := tickWorlds(t, rand.New(rand.NewPCG(17, 3)), 1500, reusePair(t), nil, (*fuzzWorld).outcomes, func(fast *fuzzWorld) {
		read += fast.q.bfWalks.nRead
		walked += fast.q.bfWalks.nWalked
		replayed += fast.q.bfWalks.nTaken
		verified += fast.q.bfWalks.nVerified
	})
	if read == 0 || replayed == 0 || verified == 0 {
		t.Fatalf("%d slot walks read from a log and %d records taken over in %d worlds: the test tests too little", read, replayed, worlds)
	}
	t.Logf("%d worlds, %d slot walks read from the last full pass's log, %d walked, %d records taken over (%d with their will-run answers asked again)", worlds, read, walked, replayed, verified)
}
