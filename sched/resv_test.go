package sched

import (
	"errors"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/job"
)

// resv adds a reservation on the named nodes (or, with nodes "", of count
// nodes) for user u from start to end.
func (f *fixture) resv(name, nodes string, count int, start, end int64, flags ResvFlags) *Reservation {
	f.t.Helper()
	r := &Reservation{Name: name, NodeCount: count, Start: start, End: end, Users: []string{"u"}, Flags: flags}
	if nodes != "" {
		r.Nodes = roaring.New()
		for _, n := range strings.Split(nodes, ",") {
			id, ok := f.cl.Snap.ID(n)
			if !ok {
				f.t.Fatalf("no node %s", n)
			}
			r.Nodes.Add(id)
		}
	}
	if err := f.q.AddReservation(r, 0); err != nil {
		f.t.Fatal(err)
	}
	return r
}

func inResv(name string) func(*Job) { return func(j *Job) { j.Reservation = name } }

// TestReservationRules checks each rule of advance reservations
// (reservation.c job_test_resv, job_test_resv_now; job_scheduler.c
// _schedule's reservation branches) in the main pass of sched/builtin at
// t=1000 on four nodes n1..n4.
func TestReservationRules(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(f *fixture)
		// want are job outcomes in id order (2..).
		want []string
	}{
		{"a job naming an active reservation runs inside it", func(f *fixture) {
			f.resv("r", "n3,n4", 0, 0, 5000, 0)
			f.submit(2, 100, "nodes=1,time=10", inResv("r"))
		}, []string{"RUNNING n3"}},
		{"a job naming a reservation not yet active waits with Reservation", func(f *fixture) {
			f.resv("r", "n3,n4", 0, 2000, 5000, 0)
			f.submit(2, 100, "nodes=1,time=10", inResv("r"))
		}, []string{"PENDING Reservation"}},
		{"a job naming a reservation that ended waits with Reservation", func(f *fixture) {
			f.resv("r", "n3,n4", 0, 0, 500, 0)
			f.submit(2, 100, "nodes=1,time=10", inResv("r"))
		}, []string{"PENDING Reservation"}},
		{"other jobs cannot use reserved nodes while it is active", func(f *fixture) {
			f.resv("r", "n1,n2,n3", 0, 0, 5000, 0)
			f.submit(2, 100, "nodes=1,time=10")
			f.submit(3, 90, "nodes=2,time=10")
		}, []string{"RUNNING n4", "PENDING Resources"}},
		{"a job whose limit reaches into a future reservation avoids its nodes", func(f *fixture) {
			f.resv("r", "n1,n2", 0, 2000, 5000, 0)
			f.submit(2, 100, "nodes=2,time=60")
			f.submit(3, 90, "nodes=2,time=10")
		}, []string{"RUNNING n3,n4", "RUNNING n1,n2"}},
		{"a job ending before the reservation starts may use its nodes", func(f *fixture) {
			f.resv("r", "n1,n2,n3,n4", 0, 1600, 5000, 0)
			f.submit(2, 100, "nodes=4,time=10")
		}, []string{"RUNNING n1,n2,n3,n4"}},
		{"a reservation job blocks only its reservation, not the partition", func(f *fixture) {
			f.resv("r", "n3,n4", 0, 0, 5000, 0)
			f.running(10, "batch", "n3", 0, 9000)
			f.submit(2, 100, "nodes=2,time=10", inResv("r"))
			f.submit(3, 90, "nodes=1,time=10", inResv("r"))
			f.submit(4, 80, "nodes=1,time=10")
		}, []string{"PENDING Resources", "PENDING Priority", "RUNNING n1"}},
		{"a FLEX reservation job may use nodes outside it", func(f *fixture) {
			f.resv("r", "n4", 0, 0, 5000, ResvFlex)
			f.submit(2, 100, "nodes=2,time=10", inResv("r"))
		}, []string{"RUNNING n1,n2"}},
		{"a FLEX reservation job may start before it, on its nodes first", func(f *fixture) {
			f.resv("r", "n4", 0, 2000, 5000, ResvFlex)
			f.submit(2, 100, "nodes=1,time=10", inResv("r"))
		}, []string{"RUNNING n4"}},
		{"an ANY_NODES reservation job may use any node", func(f *fixture) {
			f.resv("r", "n4", 0, 0, 5000, ResvAnyNodes)
			f.submit(2, 100, "nodes=3,time=10", inResv("r"))
		}, []string{"RUNNING n1,n2,n3"}},
		{"a MAINT reservation over the whole partition keeps its jobs out", func(f *fixture) {
			f.resv("m", "n1,n2,n3,n4", 0, 0, 5000, ResvMaint)
			f.submit(2, 100, "nodes=1,time=10")
		}, []string{"PENDING ReqNodeNotAvail, Reserved for maintenance"}},
		{"a MAINT reservation overlapping another keeps its nodes from that one's jobs", func(f *fixture) {
			f.resv("r", "n3,n4", 0, 0, 5000, 0)
			f.resv("m", "n3,n4", 0, 0, 5000, ResvMaint)
			f.submit(2, 100, "nodes=1,time=10", inResv("r"))
		}, []string{"PENDING ReqNodeNotAvail, Reserved for maintenance"}},
		{"jobs naming a reservation come first in the queue", func(f *fixture) {
			f.resv("r", "n1,n2", 0, 0, 5000, ResvFlex)
			f.submit(2, 100, "nodes=2,time=10")
			f.submit(3, 10, "nodes=4,time=10", inResv("r"))
		}, []string{"PENDING Resources", "RUNNING n1,n2,n3,n4"}},
		{"a node list inside a reservation meets it", func(f *fixture) {
			f.resv("r", "n2,n3", 0, 0, 5000, 0)
			f.submit(2, 100, "nodes=1,nodelist=n3,time=10", inResv("r"))
		}, []string{"RUNNING n3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nodesN("n", 1, 4, "batch"), Builtin{}, DefaultConfig(), nil, false)
			c.setup(f)
			f.pass(1000)
			for i, want := range c.want {
				j, _ := f.q.Job(uint32(i + 2))
				if got := f.outcome(j); got != want {
					t.Errorf("job %d: %s, want %s", i+2, got, want)
				}
			}
		})
	}
}

// TestReservationSubmitChecks: sbatch --reservation is refused for a
// reservation that does not exist or that the job's user and account may
// not use (validate_job_resv), and for an active one the job could never
// run in: too few nodes, or a node list outside it (job_allocate).
func TestReservationSubmitChecks(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 2, "batch"), Builtin{}, DefaultConfig(), nil, false)
	r := &Reservation{Name: "r", NodeCount: 1, Start: 0, End: 5000, Users: []string{"alice"}, Accounts: []string{"phys"}}
	if err := f.q.AddReservation(r, 0); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		user, account, resv, spec string
		want                      error
	}{
		{"alice", "phys", "r", "nodes=1,time=10", nil},
		{"alice", "chem", "r", "nodes=1,time=10", ErrReservationAccess},
		{"bob", "phys", "r", "nodes=1,time=10", ErrReservationAccess},
		{"alice", "phys", "nope", "nodes=1,time=10", ErrReservationInvalid},
		{"alice", "phys", "r", "nodes=2,time=10", ErrNodeConfigUnavailable},
		{"alice", "phys", "r", "nodes=1,nodelist=n2,time=10", ErrNodeConfigUnavailable},
	} {
		req, err := job.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		j := &Job{ID: uint32(100 + i), User: c.user, Account: c.account, Reservation: c.resv, Partitions: []string{"batch"}, Request: req, Priority: 10}
		err = f.q.Submit(j, false, 10)
		if !errors.Is(err, c.want) && !(c.want == nil && err == nil) {
			t.Errorf("%s/%s in %s (%s): %v, want %v", c.user, c.account, c.resv, c.spec, err, c.want)
		}
	}
}

// TestAddReservationChecks is create_resv: users or accounts required, no
// overlap with another reservation's nodes (MAINT may), no running job on
// the nodes past its start (IGNORE_JOBS may), and a node count picks free
// nodes.
func TestAddReservationChecks(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 4, "batch"), Builtin{}, DefaultConfig(), nil, false)
	f.running(1, "batch", "n1", 0, 3000)
	f.resv("a", "n2", 0, 1000, 2000, 0)
	ids := func(names ...string) *roaring.Bitmap {
		b := roaring.New()
		for _, n := range names {
			id, _ := f.cl.Snap.ID(n)
			b.Add(id)
		}
		return b
	}
	for _, c := range []struct {
		name string
		r    Reservation
		want error
	}{
		{"no users", Reservation{Name: "x", Nodes: ids("n3"), Start: 0, End: 10}, ErrReservationEmpty},
		{"end before start", Reservation{Name: "x", Nodes: ids("n3"), Start: 10, End: 10, Users: []string{"u"}}, ErrInvalidTime},
		{"duplicate", Reservation{Name: "a", Nodes: ids("n3"), Start: 0, End: 10, Users: []string{"u"}}, ErrReservationDuplicate},
		{"overlap", Reservation{Name: "x", Nodes: ids("n2"), Start: 1500, End: 2500, Users: []string{"u"}}, ErrReservationOverlap},
		{"maint may overlap", Reservation{Name: "m", Nodes: ids("n2"), Start: 1500, End: 2500, Users: []string{"u"}, Flags: ResvMaint}, nil},
		{"after the other", Reservation{Name: "y", Nodes: ids("n2"), Start: 2500, End: 2600, Users: []string{"u"}}, nil},
		{"running job", Reservation{Name: "z", Nodes: ids("n1"), Start: 2000, End: 2600, Users: []string{"u"}}, ErrNodesBusy},
		{"running job ends first", Reservation{Name: "z1", Nodes: ids("n1"), Start: 3000, End: 3600, Users: []string{"u"}}, nil},
		{"ignore jobs", Reservation{Name: "z2", Nodes: ids("n1"), Start: 100, End: 200, Users: []string{"u"}, Flags: ResvIgnoreJobs}, nil},
		{"too many nodes", Reservation{Name: "c", NodeCount: 3, Start: 1000, End: 2000, Users: []string{"u"}}, ErrNodesBusy},
	} {
		r := c.r
		err := f.q.AddReservation(&r, 0)
		if !errors.Is(err, c.want) && !(c.want == nil && err == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	r := Reservation{Name: "count", NodeCount: 2, Start: 1000, End: 2000, Users: []string{"u"}}
	if err := f.q.AddReservation(&r, 0); err != nil {
		t.Fatal(err)
	}
	if got := f.names(r.Nodes); got != "n3,n4" {
		t.Errorf("node-count reservation took %s, want n3,n4 (n1 runs a job, n2 is reserved then)", got)
	}
	// Idle nodes first, then with IGNORE_JOBS busy ones; nodes another
	// reservation (MAINT too) holds then are never taken.
	for _, c := range []struct {
		r    Reservation
		want string
		err  error
	}{
		{Reservation{Name: "all", NodeCount: 4, Start: 2700, End: 2800, Users: []string{"u"}, Flags: ResvIgnoreJobs}, "n1,n2,n3,n4", nil},
		{Reservation{Name: "busy", NodeCount: 1, Start: 1500, End: 1600, Users: []string{"u"}}, "", ErrNodesBusy},
		{Reservation{Name: "busy2", NodeCount: 1, Start: 1500, End: 1600, Users: []string{"u"}, Flags: ResvIgnoreJobs}, "n1", nil},
	} {
		r := c.r
		err := f.q.AddReservation(&r, 0)
		if !errors.Is(err, c.err) && !(c.err == nil && err == nil) {
			t.Errorf("%s: %v, want %v", r.Name, err, c.err)
		} else if err == nil && f.names(r.Nodes) != c.want {
			t.Errorf("%s took %s, want %s", r.Name, f.names(r.Nodes), c.want)
		}
	}
}

// TestBackfillNeverPlansAcrossReservation: a job that needs nodes a
// reservation holds later is planned after the reservation ends, and a
// short job still backfills before it starts.
func TestBackfillNeverPlansAcrossReservation(t *testing.T) {
	f := backfillFixture(t, nodesN("n", 1, 2, "batch"))
	f.running(1, "batch", "n1", 0, 2000)
	f.resv("r", "n2", 0, 3000, 9000, 0)
	head := f.submit(2, 300, "nodes=2,time=60")
	short := f.submit(3, 200, "nodes=1,time=10")
	f.pass(1000)
	if got := f.outcome(short); got != "RUNNING n2" {
		t.Errorf("short job: %s", got)
	}
	if head.State != Pending || head.Start < 9000 {
		t.Errorf("head job %s expected start %d, want after the reservation ends (9000)", head.State, head.Start)
	}
}

// TestBackfillPlansJobInsideItsReservation: a job naming an active
// reservation whose nodes are busy is planned on them, not elsewhere.
func TestBackfillPlansJobInsideItsReservation(t *testing.T) {
	f := backfillFixture(t, nodesN("n", 1, 3, "batch"))
	f.resv("r", "n3", 0, 0, 90000, 0)
	f.running(1, "batch", "n3", 0, 2000)
	j := f.submit(2, 300, "nodes=1,time=10", inResv("r"))
	f.pass(1000)
	if j.State != Pending || j.Start != 2000 || f.names(j.PlannedNodes) != "n3" {
		t.Errorf("job %s start %d on %s, want pending from 2000 on n3", j.State, j.Start, f.names(j.PlannedNodes))
	}
}

func TestParseResvFlags(t *testing.T) {
	f, err := ParseResvFlags("maint,IGNORE_JOBS,SPEC_NODES")
	if err != nil || f != ResvMaint|ResvIgnoreJobs || f.String() != "MAINT,IGNORE_JOBS" {
		t.Errorf("%v %v %q", f, err, f.String())
	}
	if _, err := ParseResvFlags("DAILY"); err == nil {
		t.Error("DAILY accepted")
	}
}

// TestTickWakesAtReservationBoundaries: NextTick foresees a reservation's
// end, and the Tick there runs backfill (the reservation's nodes changed
// state), which starts the job it held back.
func TestTickWakesAtReservationBoundaries(t *testing.T) {
	f := backfillFixture(t, nodesN("n", 1, 2, "batch"))
	f.resv("r", "n1,n2", 0, 0, 2000, 0)
	j := f.submit(2, 100, "nodes=1,time=10")
	for now := int64(1000); now < 1990; now = f.q.NextTick(now) {
		f.q.Tick(now)
	}
	if j.State != Pending {
		t.Fatalf("job %s before the reservation ends", j.State)
	}
	if next := f.q.NextTick(1990); next != 2000 {
		t.Fatalf("NextTick(1990) = %d, want the reservation's end 2000", next)
	}
	f.q.Tick(2000)
	if got := f.outcome(j); got != "RUNNING n1" {
		t.Errorf("at the reservation's end: %s", got)
	}
}
