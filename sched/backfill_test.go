package sched

import (
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// Expected values in these tests follow backfill.c as read; they are not
// yet recorded from a running slurmctld (the lab will record them).

// TestSlotTimeRoundsToResolution is _set_slot_time (§3.4): start rounded
// down, start+limit+resolution-1 rounded down.
func TestSlotTimeRoundsToResolution(t *testing.T) {
	ns := newNodeSpace(0, 86400, 60, 4, roaring.New())
	for _, c := range []struct{ start, limit, wantS, wantE int64 }{
		{1000, 600, 960, 1620},
		{960, 600, 960, 1560},
		{1019, 1, 960, 1020},
		{61, 59, 60, 120},
	} {
		s, e := ns.slotTime(c.start, c.limit)
		if s != c.wantS || e != c.wantE {
			t.Errorf("slotTime(%d, %d) = %d, %d; want %d, %d", c.start, c.limit, s, e, c.wantS, c.wantE)
		}
	}
}

// TestAddReservationSplitsAndMerges is _add_reservation: the map splits at
// the reservation's start and end, the nodes leave only the slots in
// between, and identical neighbours merge.
func TestAddReservationSplitsAndMerges(t *testing.T) {
	all := roaring.BitmapOf(0, 1, 2, 3)
	ns := newNodeSpace(1000, 10000, 60, 4, all)
	ns.add(1200, 1800, ns.bits(roaring.BitmapOf(0, 1)))
	ns.add(1800, 2400, ns.bits(roaring.BitmapOf(0, 1)))
	type view struct {
		begin, end int64
		avail      string
	}
	var got []view
	for j := 0; ; {
		s := ns.s[j]
		got = append(got, view{s.begin, s.end, bitsString(s.avail.Roaring())})
		if j = s.next; j == 0 {
			break
		}
	}
	want := []view{{960, 1200, "0,1,2,3"}, {1200, 2400, "2,3"}, {2400, 10980, "0,1,2,3"}}
	if len(got) != len(want) {
		t.Fatalf("slots %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("slot %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if !ns.overlaps(ns.bits(roaring.BitmapOf(1)), 2000, 2100) || ns.overlaps(ns.bits(roaring.BitmapOf(2)), 0, 20000) {
		t.Error("overlap test wrong")
	}
}

func bitsString(b *roaring.Bitmap) string {
	s := ""
	it := b.Iterator()
	for it.HasNext() {
		if s != "" {
			s += ","
		}
		s += itoa(it.Next())
	}
	return s
}

func backfillFixture(t *testing.T, nodes []testNode) *fixture {
	cfg := DefaultConfig()
	return newFixture(t, nodes, Backfill{}, cfg, nil, false)
}

// TestShortJobBackfillsWithoutDelayingHead (§3.4): the head job waits for
// two nodes (one ends at 2000); a short job on the free node ends before
// that and starts now; the head keeps its reserved start.
func TestShortJobBackfillsWithoutDelayingHead(t *testing.T) {
	f := backfillFixture(t, nodesN("n", 1, 2, "batch"))
	f.running(1, "batch", "n1", 0, 2000)
	head := f.submit(2, 300, "nodes=2,time=60")
	short := f.submit(3, 200, "nodes=1,time=10")
	long := f.submit(4, 100, "nodes=1,time=60")
	f.pass(1000)
	if got := f.outcome(short); got != "RUNNING n2" {
		t.Errorf("short job: %s", got)
	}
	if got := f.outcome(long); got != "PENDING Priority" {
		t.Errorf("long job: %s (it would delay the head job)", got)
	}
	if head.State != Pending || head.Start != 2000 {
		t.Errorf("head job %s expected start %d, want 2000", head.State, head.Start)
	}
	if long.Start < head.Start+3600 {
		t.Errorf("long job expected start %d, want after the head job ends (%d)", long.Start, head.Start+3600)
	}
}

// TestLongJobThatWouldDelayHeadDoesNotStart (§3.4): a lower job longer than
// the head job's wait does not start on the node the head needs.
func TestLongJobThatWouldDelayHeadDoesNotStart(t *testing.T) {
	f := backfillFixture(t, nodesN("n", 1, 3, "batch"))
	f.running(1, "batch", "n1", 0, 1600)
	head := f.submit(2, 300, "nodes=3,time=30")
	long := f.submit(3, 200, "nodes=1,time=30")
	f.pass(1000)
	if long.State != Pending {
		t.Errorf("long job started on %s; it would delay the head job", f.names(long.Nodes))
	}
	if head.Start != 1600 {
		t.Errorf("head expected start %d, want 1600", head.Start)
	}
}

// TestConstrainedJobReservedOnMatchingNodes (§3.4, sift's improvement): the
// reservation of a constrained job holds only nodes matching its
// constraint, so a lower job runs on the others.
func TestConstrainedJobReservedOnMatchingNodes(t *testing.T) {
	nodes := nodesN("n", 1, 4, "batch")
	for i := range nodes {
		nodes[i].extra = `{"fast":` + map[bool]string{true: "1", false: "0"}[i < 2] + `}`
	}
	f := backfillFixture(t, nodes)
	f.running(1, "batch", "n1", 0, 3000)
	con := f.submit(2, 300, "nodes=2,time=60,extra=fast=1")
	low := f.submit(3, 200, "nodes=2,time=600")
	f.pass(1000)
	if con.State != Pending || f.names(con.PlannedNodes) != "n1,n2" {
		t.Errorf("constrained job %s planned on %q, want n1,n2", con.State, f.names(con.PlannedNodes))
	}
	if got := f.outcome(low); got != "RUNNING n3,n4" {
		t.Errorf("lower job: %s", got)
	}
}

// TestPlanIgnoringConstraintsReproducesSlurm: with
// BFPlanIgnoresConstraints the head job's plan may hold nodes its
// constraint excludes, as Slurm's does.
func TestPlanIgnoringConstraintsReproducesSlurm(t *testing.T) {
	nodes := nodesN("n", 1, 4, "batch")
	for i := range nodes {
		nodes[i].extra = `{"fast":` + map[bool]string{true: "1", false: "0"}[i < 2] + `}`
	}
	cfg := DefaultConfig()
	cfg.BFPlanIgnoresConstraints = true
	f := newFixture(t, nodes, Backfill{}, cfg, nil, false)
	f.running(1, "batch", "n1", 0, 3000)
	con := f.submit(2, 300, "nodes=2,time=60,extra=fast=1")
	f.pass(1000)
	if got := f.names(con.PlannedNodes); got == "n1,n2" || got == "" {
		t.Errorf("planned on %q; without the constraint the plan takes the free nodes", got)
	}
}

// knobFixture is five nodes, n1 busy until 5000, a 5-node head job and
// four 1-node jobs (mut applies to them) that fit now.
func knobFixture(t *testing.T, cfg Config, mut ...func(*Job)) *fixture {
	f := newFixture(t, nodesN("n", 1, 5, "batch"), Backfill{}, cfg, nil, false)
	f.running(1, "batch", "n1", 0, 5000)
	f.submit(2, 300, "nodes=5,time=60")
	for i := uint32(3); i <= 6; i++ {
		f.submit(i, 100, "nodes=1,time=10", mut...)
	}
	return f
}

// TestBackfillKnobs checks bf_max_job_test, bf_max_job_start,
// bf_max_job_user and the deterministic bf_max_time count.
func TestBackfillKnobs(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   func(*Config)
		exit  string
		start int
	}{
		{"bf_max_job_start", func(c *Config) { c.BFMaxJobStart = 1 }, "bf_max_job_start", 1},
		{"bf_max_job_test counts the head job", func(c *Config) { c.BFMaxJobTest = 2 }, "bf_max_job_test", 1},
		{"bf_max_job_user", func(c *Config) { c.BFMaxJobUser = 1 }, "end of queue", 1},
		{"no caps", func(*Config) {}, "end of queue", 4},
		{"bf_max_time counted", func(c *Config) { c.BFTestCost = 10 * time.Second; c.BFMaxTime = 20 * time.Second }, "bf_max_time", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.cfg(&cfg)
			f := knobFixture(t, cfg, func(j *Job) { j.User = "v" })
			p := &Pass{}
			f.q.MainPass(1000, true, p)
			f.q.BackfillPass(1000, p)
			if len(p.Started) != c.start || p.BackfillExit != c.exit {
				t.Errorf("started %v exit %q, want %d and %q", p.Started, p.BackfillExit, c.start, c.exit)
			}
		})
	}
}

// TestBuiltinEstimatesStarts is §3.3: will-run per job, pushed past the
// previous estimate's end when the nodes overlap.
func TestBuiltinEstimatesStarts(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 2, "batch"), Builtin{}, DefaultConfig(), nil, false)
	f.running(1, "batch", "n1", 0, 2000)
	f.running(2, "batch", "n2", 0, 3000)
	a := f.submit(3, 300, "nodes=1,time=10")
	b := f.submit(4, 200, "nodes=1,time=10")
	f.pass(1000)
	if a.Start != 2000 {
		t.Errorf("first estimate %d, want 2000", a.Start)
	}
	if b.Start != 2600 {
		t.Errorf("second estimate %d, want 2600 (after the first's 600 s on the same node)", b.Start)
	}
}

// TestWallClockStopsPasses: with a WallClock (live use) bf_max_time and
// max_sched_time cut the passes on elapsed time; without one they do not.
func TestWallClockStopsPasses(t *testing.T) {
	f := knobFixture(t, DefaultConfig())
	tick := time.Unix(0, 0)
	f.q.opt.WallClock = func() time.Time { tick = tick.Add(time.Second); return tick }
	p := &Pass{}
	f.q.MainPass(1000, true, p)
	if p.MainExit != "max_sched_time" {
		t.Errorf("main pass exit %q, want max_sched_time (each look at the clock costs 1 s of 2)", p.MainExit)
	}
	f.q.cfg.BFMaxTime = 3 * time.Second
	f.q.BackfillPass(1000, p)
	if p.BackfillExit != "bf_max_time" {
		t.Errorf("backfill exit %q, want bf_max_time", p.BackfillExit)
	}
}

// TestTimeMinPlansShortAndStretches is _set_backfill_timelimits and
// _reset_job_time_limit: a job with --time-min is planned with it, starts
// in a hole the full limit would not fit, and runs until the first
// reservation it would cross. Read from backfill.c; not yet recorded.
func TestTimeMinPlansShortAndStretches(t *testing.T) {
	f := backfillFixture(t, nodesN("n", 1, 2, "batch"))
	f.running(1, "batch", "n1", 0, 4600)
	head := f.submit(2, 300, "nodes=2,time=60")
	flex := f.submit(3, 200, "nodes=1,time=300", func(j *Job) { j.TimeMin = 30 * time.Minute })
	f.pass(1000)
	if head.Start != 4600 {
		t.Fatalf("head expected start %d, want 4600", head.Start)
	}
	if flex.State != Running {
		t.Fatalf("time_min job: %s %s", flex.State, flex.ReasonText())
	}
	// The head's slot starts at 4560 (4600 rounded down to 60 s): 59
	// whole minutes after 1000.
	if flex.End != 1000+59*60 {
		t.Errorf("time_min job ends %d, want %d", flex.End, 1000+59*60)
	}
}

// TestCountedTimeStopsPasses: without a WallClock (simulation),
// max_sched_time and bf_max_time are counted: SchedTestCost per job the
// main pass tests, BFTestCost per backfill round, and a counted
// bf_yield_sleep at each yield.
func TestCountedTimeStopsPasses(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        func(*Config)
		main, back string
		started    int
	}{
		{"no costs", func(*Config) {}, "end of queue", "end of queue", 4},
		{"max_sched_time after two jobs", func(c *Config) { c.SchedTestCost = time.Second }, "max_sched_time", "end of queue", 4},
		{"bf_max_time after four rounds", func(c *Config) { c.BFTestCost = time.Second; c.BFMaxTime = 4 * time.Second }, "end of queue", "bf_max_time", 3},
		{"a yield's sleep counts", func(c *Config) {
			c.BFTestCost, c.BFMaxTime, c.BFYieldSleep = time.Second, 4*time.Second, 1500*time.Millisecond
		}, "end of queue", "bf_max_time", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.cfg(&cfg)
			f := knobFixture(t, cfg)
			p := &Pass{}
			f.q.MainPass(1000, true, p)
			f.q.BackfillPass(1000, p)
			if p.MainExit != tc.main || p.BackfillExit != tc.back || len(p.Started) != tc.started {
				t.Errorf("main exit %q, backfill exit %q, started %v; want %q, %q, %d", p.MainExit, p.BackfillExit, p.Started, tc.main, tc.back, tc.started)
			}
		})
	}
}

// TestYieldEndsPassOnChanges is _yield_locks: every bf_yield_interval the
// pass yields (Options.Yield) and ends if jobs or nodes changed meanwhile
// (unless bf_continue) or partitions, configuration or reservations did.
func TestYieldEndsPassOnChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes YieldChanges
		cont    bool
		exit    string
	}{
		{"nothing changed", YieldChanges{}, false, "end of queue"},
		{"jobs changed", YieldChanges{Jobs: true}, false, "system state changed"},
		{"jobs changed, bf_continue", YieldChanges{Jobs: true}, true, "end of queue"},
		{"partitions changed, bf_continue", YieldChanges{Partitions: true}, true, "system state changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.BFTestCost, cfg.BFContinue = time.Second, tc.cont
			f := knobFixture(t, cfg)
			yields := 0
			f.q.opt.Yield = func() YieldChanges { yields++; return tc.changes }
			p := &Pass{}
			f.q.MainPass(1000, true, p)
			f.q.BackfillPass(1000, p)
			if p.BackfillExit != tc.exit || yields == 0 {
				t.Errorf("backfill exit %q after %d yields, want %q after at least one", p.BackfillExit, yields, tc.exit)
			}
		})
	}
}
