package sched

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCachedQueueBuildsAgreeWithFreshOnes drives random worlds with Tick
// (tickWorlds; some jobs held and released later, some with a begin time
// ahead) twice: with the queue builds standing for later ones while
// nothing changes (builtQueue), and with every build made afresh. After
// every Tick the passes and every job (state, start, end, eligible time,
// planned start and nodes, reason) must be the same, and some builds must
// have been reused.
func TestCachedQueueBuildsAgreeWithFreshOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	standing := 0
	worlds := tickWorlds(t, r, 300, func(gf, gp *byteGen) (*fuzzWorld, *fuzzWorld) {
		fast, plain := newFuzzWorld(t, gf, false), newFuzzWorld(t, gp, false)
		if !fast.q.buildsStand() {
			// Builds are made afresh in this world (preemption or
			// advance reservations).
			return nil, nil
		}
		plain.q.plainBuild = true
		fast.begins, plain.begins = true, true
		return fast, plain
	}, func(now int64, id uint32, fast, plain *fuzzWorld) {
		if id > 0 && r.IntN(10) == 0 {
			// Release a held job, if this one is.
			k := uint32(1 + r.IntN(int(id)))
			for _, w := range []*fuzzWorld{fast, plain} {
				if j, ok := w.q.Job(k); ok && j.State == Pending && j.Priority == 0 {
					if err := w.q.Release(k, 5, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if fast.q.builtStands(now, false) || fast.q.builtStands(now, true) {
			standing++
		}
	}, func(w *fuzzWorld) string {
		var b strings.Builder
		for _, j := range w.q.Jobs() {
			fmt.Fprintf(&b, "%d eligible %d\n", j.ID, j.Eligible)
		}
		return w.outcomes() + b.String()
	}, func(*fuzzWorld) {})
	if worlds == 0 || standing == 0 {
		t.Fatalf("%d worlds, %d ticks began with a build standing: the test tests nothing", worlds, standing)
	}
	t.Logf("%d worlds, %d ticks began with a build standing", worlds, standing)
}

// TestRememberedBusyJobsAgreeWithFreshTests drives random worlds with Tick
// (tickWorlds) twice: with the main pass remembering a job it found busy
// on every usable node while nothing changes (startNowMemo), and with
// every job tested. After every Tick the passes and every job must be the
// same, and some tests must have been skipped.
func TestRememberedBusyJobsAgreeWithFreshTests(t *testing.T) {
	skipped := 0
	worlds := tickWorlds(t, rand.New(rand.NewPCG(3, 17)), 500, func(gf, gp *byteGen) (*fuzzWorld, *fuzzWorld) {
		fast, plain := newFuzzWorld(t, gf, false), newFuzzWorld(t, gp, false)
		if !fast.q.reuseAllowed() {
			// Every job is tested in this world.
			return nil, nil
		}
		plain.q.plainMain = true
		return fast, plain
	}, func(_ int64, _ uint32, fast, _ *fuzzWorld) {
		for _, e := range fast.q.ents {
			if e.busyAt == fast.q.clock.changes+1 {
				skipped++
			}
		}
	}, (*fuzzWorld).outcomes, func(*fuzzWorld) {})
	if worlds == 0 || skipped == 0 {
		t.Fatalf("%d worlds, %d jobs remembered busy before a Tick: the test tests nothing", worlds, skipped)
	}
	t.Logf("%d worlds, %d jobs remembered busy before a Tick", worlds, skipped)
}
