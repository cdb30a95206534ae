package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
	worlds := tickWorlds(t, rand.New(rand.NewPCG(5, 11)), 1500, func(gf, gp *byteGen) (*fuzzWorld, *fuzzWorld) {
		fast, plain := newFuzzWorld(t, gf, false), newFuzzWorld(t, gp, true)
		if _, ok := fast.q.sched.(Backfill); !ok || !fast.q.reuseAllowed() {
			// Reuse is off in this world (another select plugin,
			// preemption or advance reservations).
			return nil, nil
		}
		return fast, plain
	}, nil, (*fuzzWorld).outcomes, func(fast *fuzzWorld) {
		reused += fast.q.bfLast.reused
		continued += fast.q.bfLast.continued
	})
	if reused == 0 || continued == 0 {
		t.Fatalf("%d backfill passes reused, %d continued: the test tests too little", reused, continued)
	}
	t.Logf("%d worlds, %d backfill passes reused, %d continued after submissions", worlds, reused, continued)
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
