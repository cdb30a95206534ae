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
// every Tick the passes, every job (state, start, end, eligible time,
// planned start and nodes, reason) and the last build's records must be
// the same, and some builds must have stood and some been extended (by
// starts, ends and submissions).
func TestCachedQueueBuildsAgreeWithFreshOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	standing, extending := 0, 0
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
		releaseOne(t, r, id, fast, plain)
		switch {
		case fast.q.builtStands(now, false) || fast.q.builtStands(now, true):
			standing++
		case fast.q.builtExtends(now, false) || fast.q.builtExtends(now, true):
			extending++
		}
	}, func(w *fuzzWorld) string {
		var b strings.Builder
		for _, j := range w.q.Jobs() {
			fmt.Fprintf(&b, "%d eligible %d\n", j.ID, j.Eligible)
		}
		// The last build's records, standing or extended or not.
		for _, rec := range w.q.recBuf {
			fmt.Fprintf(&b, "record %d %s\n", rec.e.j.ID, rec.part)
		}
		return w.outcomes() + b.String()
	}, func(*fuzzWorld) {})
	if worlds == 0 || standing == 0 || extending == 0 {
		t.Fatalf("%d worlds, %d ticks began with a build standing, %d with one extended: the test tests nothing", worlds, standing, extending)
	}
	t.Logf("%d worlds, %d ticks began with a build standing, %d with one extended", worlds, standing, extending)
}

// TestReusedMainPassesAgreeWithFreshOnes drives random worlds with Tick
// (tickWorlds) twice: with a main pass that changed nothing standing for
// the next ones while nothing changes (reuseMain), and with every main
// pass made afresh; default_queue_depth is small, so that partial passes
// stop short of the queue's end. After every Tick the passes and every job (state,
// times, nodes, plan, reason, eligible time) must be the same, and some
// passes must have been reused.
func TestReusedMainPassesAgreeWithFreshOnes(t *testing.T) {
	reused := 0
	r := rand.New(rand.NewPCG(5, 23))
	worlds := tickWorlds(t, r, 400, func(gf, gp *byteGen) (*fuzzWorld, *fuzzWorld) {
		fast, plain := newFuzzWorld(t, gf, false), newFuzzWorld(t, gp, false)
		if !fast.q.mainReusable() {
			// Every main pass is made afresh in this world.
			return nil, nil
		}
		plain.q.plainMain = true
		fast.begins, plain.begins = true, true
		// Passes after a submission or an end stop at a shallow
		// default_queue_depth, the periodic ones do not.
		depth := 1 + r.IntN(6)
		fast.q.cfg.DefaultQueueDepth, plain.q.cfg.DefaultQueueDepth = depth, depth
		return fast, plain
	}, func(_ int64, id uint32, fast, plain *fuzzWorld) {
		releaseOne(t, r, id, fast, plain)
	}, func(w *fuzzWorld) string {
		var b strings.Builder
		for _, j := range w.q.Jobs() {
			fmt.Fprintf(&b, "%d eligible %d partition %s\n", j.ID, j.Eligible, j.Partition)
		}
		return w.outcomes() + b.String()
	}, func(fast *fuzzWorld) { reused += fast.q.mainLast.reused })
	if worlds == 0 || reused == 0 {
		t.Fatalf("%d worlds, %d main passes reused: the test tests nothing", worlds, reused)
	}
	t.Logf("%d worlds, %d main passes reused", worlds, reused)
}

// releaseOne releases, one time in ten, a random job of the first id
// jobs in both worlds if it is held.
func releaseOne(t *testing.T, r *rand.Rand, id uint32, fast, plain *fuzzWorld) {
	t.Helper()
	if id == 0 || r.IntN(10) != 0 {
		return
	}
	k := uint32(1 + r.IntN(int(id)))
	for _, w := range []*fuzzWorld{fast, plain} {
		if j, ok := w.q.Job(k); ok && j.State == Pending && j.Priority == 0 {
			if err := w.q.Release(k, 5, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
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
			if e.busyAt == fast.q.clock.resourceChanges()+1 {
				skipped++
			}
		}
	}, (*fuzzWorld).outcomes, func(*fuzzWorld) {})
	if worlds == 0 || skipped == 0 {
		t.Fatalf("%d worlds, %d jobs remembered busy before a Tick: the test tests nothing", worlds, skipped)
	}
	t.Logf("%d worlds, %d jobs remembered busy before a Tick", worlds, skipped)
}

// TestMainPassThatSetReqNodeNotAvailIsMadeAgain: a main pass that gave a
// job ReqNodeNotAvail does not stand for the next one, which reads that
// reason and may decide otherwise. Job 2 names n3 (down) and n4: the first
// pass finds its nodes unavailable and withholds n4 from job 3; the next
// pass skips job 2 for that reason without withholding n4, and job 3
// starts there.
func TestMainPassThatSetReqNodeNotAvailIsMadeAgain(t *testing.T) {
	world := func(plain bool) (*fixture, []string) {
		nodes := []testNode{{name: "n1", parts: []string{"p0"}}, {name: "n2", parts: []string{"p0"}},
			{name: "n3", parts: []string{"p0"}, state: "down"}, {name: "n4", parts: []string{"p0"}}}
		f := newFixture(t, nodes, Builtin{}, DefaultConfig(), nil, false)
		f.q.opt.ReusePasses, f.q.plainMain = true, plain
		f.running(1, "p0", "n1,n2", 1, 99999)
		j2 := f.submit(2, 50, "nodes=2,exclusive,partition=p0,time=10,nodelist=n3,n4")
		j3 := f.submit(3, 40, "nodes=1,exclusive,partition=p0,time=10")
		var got []string
		for now := int64(1000); now <= 1180; now += 60 {
			p := f.q.Tick(now)
			got = append(got, fmt.Sprintf("%d: %s; 2 %s, 3 %s", now, strings.TrimSpace(passText(p)), f.outcome(j2), f.outcome(j3)))
		}
		return f, got
	}
	fast, got := world(false)
	_, want := world(true)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("with main passes reused\n%s\nmade afresh\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(strings.Join(want, "\n"), "3 RUNNING n4") {
		t.Fatalf("job 3 never starts on n4, the case is not tested:\n%s", strings.Join(want, "\n"))
	}
	t.Logf("%d passes reused\n%s", fast.q.mainLast.reused, strings.Join(got, "\n"))
}
