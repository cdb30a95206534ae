package sched

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
)

// byteGen draws small numbers from fuzz input; past its end it gives zeros.
type byteGen struct {
	b []byte
	i int
}

func (g *byteGen) n(k int) int {
	if k <= 1 {
		return 0
	}
	v := 0
	if g.i < len(g.b) {
		v = int(g.b[g.i])
		g.i++
	}
	return v % k
}

func (g *byteGen) bool() bool { return g.n(2) == 1 }

// fuzzWorld is a random cluster and job stream built from fuzz input.
type fuzzWorld struct {
	q     *Queue
	cl    *job.Cluster
	parts []string
	cfg   Config
	// begins gives some submitted jobs a begin time after their submit.
	begins bool
	// tested is each job's place in the last backfill pass's queue, read
	// after the pass (nil when none ran).
	tested map[uint32]int
}

// plainPlugin hides a select plugin's optional fast paths
// (job.DenseWillRun), so that the passes take their reference path; what
// the plugin is (job.NodeSharer, job.GangPlugin) it still says.
type plainPlugin struct{ job.Plugin }

// SharesNodes implements job.NodeSharer as the hidden plugin does.
func (p plainPlugin) SharesNodes() bool {
	s, ok := p.Plugin.(job.NodeSharer)
	return ok && s.SharesNodes()
}

// plainGang is a plainPlugin of a plugin that offers job.GangPlugin.
type plainGang struct {
	plainPlugin
	job.GangPlugin
}

// plainOf hides p's fast paths, keeping what it is.
func plainOf(p job.Plugin) job.Plugin {
	if g, ok := p.(job.GangPlugin); ok {
		return plainGang{plainPlugin{p}, g}
	}
	return plainPlugin{p}
}

// newFuzzWorld builds a random world; plain hides the plugin's fast paths.
func newFuzzWorld(t *testing.T, g *byteGen, plain bool) *fuzzWorld {
	nNodes := 2 + g.n(11)
	nParts := 1 + g.n(3)
	var parts []string
	for i := 0; i < nParts; i++ {
		parts = append(parts, fmt.Sprintf("p%d", i))
	}
	var nodes []index.Node
	for i := 0; i < nNodes; i++ {
		nd := index.Node{Name: fmt.Sprintf("n%d", i+1), CPUs: 1 + g.n(8), MemoryMB: 1000}
		for _, p := range parts {
			if g.n(3) > 0 {
				nd.Partitions = append(nd.Partitions, p)
			}
		}
		if len(nd.Partitions) == 0 {
			nd.Partitions = []string{parts[0]}
		}
		switch g.n(12) {
		case 0:
			nd.State = "down"
		case 1:
			nd.State = "drain"
		}
		nodes = append(nodes, nd)
	}
	snap, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	cl := job.NewCluster(snap)
	for _, p := range parts {
		if cp := cl.Partitions[p]; cp != nil {
			cp.PriorityTier = uint32(g.n(2))
		}
	}
	var plugin job.Plugin = linear.New(cl, linear.Config{})
	if g.bool() {
		plugin = constres.New(cl, constres.Config{})
	}
	if plain {
		plugin = plainOf(plugin)
	}
	cfg := DefaultConfig()
	cfg.BFResolution = time.Duration(1+g.n(120)) * time.Second
	cfg.BFWindow = time.Duration(30+g.n(300)) * time.Minute
	if g.bool() {
		cfg.BFPlanIgnoresConstraints = true
	}
	var s Scheduler = Backfill{}
	if g.n(4) == 0 {
		s = Builtin{}
	}
	var used []string
	for _, p := range parts {
		if cl.Partitions[p] != nil {
			used = append(used, p)
		}
	}
	// A third of the worlds preempt: jobs of tier 1 take nodes from tier 0.
	var pre Preemption
	if g.n(3) == 0 {
		pre = Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel + PreemptMode(g.n(3)), KillWait: DefaultKillWait}
		pre.Flags.Gang = pre.Mode == PreemptSuspend
	}
	q := NewQueue(Options{Cluster: cl, Plugin: plugin, Scheduler: s, Config: cfg, Preempt: pre, ReusePasses: !plain})
	for k := g.n(3); k > 0; k-- {
		first := g.n(nNodes)
		nodes := roaring.New()
		for i := first; i < min(first+1+g.n(3), nNodes); i++ {
			id, _ := snap.ID(fmt.Sprintf("n%d", i+1))
			nodes.Add(id)
		}
		start := int64(400 + 60*g.n(240))
		r := &Reservation{Name: fmt.Sprintf("r%d", k), Nodes: nodes, Start: start, End: start + int64(60*(1+g.n(180))), Users: []string{fmt.Sprintf("u%d", g.n(3))}}
		switch g.n(6) {
		case 0:
			r.Flags = ResvMaint
		case 1:
			r.Flags = ResvFlex
		}
		// A reservation overlapping an earlier one is refused and left out.
		_ = q.AddReservation(r, 1000)
	}
	return &fuzzWorld{q: q, cl: cl, parts: used, cfg: cfg}
}

func (w *fuzzWorld) submit(t *testing.T, g *byteGen, id uint32, now int64) {
	req := &job.Request{MinNodes: 1 + g.n(3), TimeLimit: time.Duration(1+g.n(120)) * time.Minute}
	if g.bool() {
		req.NTasks = req.MinNodes + g.n(4)
	}
	if g.n(5) == 0 {
		req.Required = fmt.Sprintf("n%d", 1+g.n(int(w.cl.N)))
	}
	if g.n(4) == 0 {
		req.Constraints = []job.Constraint{{Lang: "slurm", Text: "a=1"}}
	}
	if g.n(3) == 0 {
		req.Exclusive = true
	}
	j := &Job{ID: id, User: fmt.Sprintf("u%d", g.n(3)), Name: fmt.Sprintf("n%d", g.n(3)), Partitions: []string{w.parts[g.n(len(w.parts))]},
		Priority: uint32(1 + g.n(50)), TimeLimit: req.TimeLimit, Request: req}
	if g.n(5) == 0 {
		j.TimeMin = time.Duration(1+g.n(60)) * time.Minute
	}
	if id > 1 && g.n(4) == 0 {
		j.Deps = []Dependency{{Kind: DepKind(g.n(5)), Job: uint32(1 + g.n(int(id-1)))}}
		if j.Deps[0].Kind == Singleton {
			j.Deps[0].Job = 0
		}
	}
	if w.begins && g.n(6) == 0 {
		j.Begin = now + int64(g.n(900))
	}
	if rs := w.q.Reservations(); len(rs) > 0 && g.n(4) == 0 {
		r := rs[g.n(len(rs))]
		j.Reservation, j.User = r.Name, r.Users[0]
	}
	if err := w.q.Submit(j, g.n(10) == 0, now); err != nil {
		var re *RefusedError
		if j.Reservation != "" && errors.As(err, &re) {
			// Never runnable in its reservation: sbatch fails.
			return
		}
		t.Fatalf("submit %d: %v", id, err)
	}
}

// queueBefore reports whether a comes before b in sort_job_queue2's order
// (single-partition jobs): a job that may preempt the other first, then
// jobs naming a reservation. With preemption that order is not transitive
// and slurmctld's merge sort decides it, so a must also have been tested
// before b in the backfill pass (w.tested).
func (w *fuzzWorld) queueBefore(a, b *Job) bool {
	pa, pb := w.cl.Partitions[a.Partitions[0]], w.cl.Partitions[b.Partitions[0]]
	ta, tb := pa.PriorityTier, pb.PriorityTier
	if w.q.opt.Preempt.enabled() {
		if w.tested != nil && w.tested[a.ID] > w.tested[b.ID] {
			return false
		}
		// preempt_g_job_preempt_check: a job of a higher tier on shared
		// nodes goes before a reservation's job too, and may start on the
		// nodes that job is then planned on (lab/slurm/sched/resv,
		// resv-preempt.json p01).
		if ta != tb && pa.Nodes.Intersects(pb.Nodes) {
			return ta > tb
		}
	}
	if ra, rb := a.Reservation != "", b.Reservation != ""; ra != rb {
		return ra
	}
	if c := cmp.Or(cmp.Compare(tb, ta), cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID)); c != 0 {
		return c < 0
	}
	return false
}

// check asserts the invariants after a pass: no node over its CPUs, every
// pending job has a reason (after the main pass: backfill's own queue
// build clears the Dependency reason of a job whose dependency a job just
// started fulfilled, and leaves it None until the next main pass, as
// job_independent does in Slurm), and no job backfilled in this pass
// overlaps the reservation of a job ahead of it in the queue unless it
// ends by then. Only reservations inside the map are protected: the map
// ends at now+bf_window rounded down to bf_resolution, while a job may be
// reserved up to now+bf_window unrounded, as in backfill.c, where
// _add_reservation then finds no slot to take the nodes from.
func (w *fuzzWorld) check(t *testing.T, now int64, reasons bool, backfilled []uint32) {
	// Under GANG, cons_tres's test 4 places a job over another same-tier
	// partition's running jobs (lab gangcores.json, "same tier"): the
	// CPUs are counted per partition, whose row never holds a core twice.
	perPart := w.q.gangKeeps
	used := map[string][]int{}
	for _, j := range w.q.Jobs() {
		switch j.State {
		case Running:
			key := ""
			if perPart {
				key = j.Partition
			}
			if used[key] == nil {
				used[key] = make([]int, w.cl.N)
			}
			for _, na := range j.Alloc.PerNode {
				used[key][na.ID] += na.CPUs
				if !w.cl.Usable.Contains(na.ID) || !w.cl.Partitions[j.Partition].Nodes.Contains(na.ID) {
					t.Fatalf("job %d runs on unusable or foreign node %d", j.ID, na.ID)
				}
			}
		case Pending:
			if reasons && j.Reason == ReasonNone {
				t.Fatalf("at %d pending job %d has no reason (priority %d, deps %v, partition %s, begin %d, request %+v)", now, j.ID, j.Priority, j.Deps, j.Partition, j.Begin, *j.Request)
			}
		}
	}
	for _, u := range used {
		for id, c := range u {
			if c > w.cl.CPUs[id] {
				t.Fatalf("node %d holds %d CPUs of %d", id, c, w.cl.CPUs[id])
			}
		}
	}
	w.checkAdvanceReservations(t, false)
	res := int64(w.cfg.BFResolution / time.Second)
	windowEnd := (now + int64(w.cfg.BFWindow/time.Second)) / res * res
	for _, r := range w.q.Jobs() {
		if r.State != Pending || r.PlannedNodes == nil || r.Start <= now || r.Start/res*res >= windowEnd {
			continue
		}
		for _, bid := range backfilled {
			b, _ := w.q.Job(bid)
			if w.queueBefore(r, b) && b.Nodes.Intersects(r.PlannedNodes) && b.End > r.Start {
				t.Fatalf("backfilled job %d (ends %d) takes nodes reserved for job %d from %d", b.ID, b.End, r.ID, r.Start)
			}
		}
	}
}

// checkAdvanceReservations asserts that no job runs, or is planned by
// backfill, on a reservation's nodes during its window unless it is the
// reservation's own job or a job of a MAINT reservation (which may
// overlap others). plans checks backfill's plans too, right after a
// backfill pass that started from none.
func (w *fuzzWorld) checkAdvanceReservations(t *testing.T, plans bool) {
	for _, j := range w.q.Jobs() {
		var nodes *roaring.Bitmap
		var start, end int64
		switch {
		case j.State == Running:
			nodes, start, end = j.Nodes, j.Start, j.End
		case plans && j.State == Pending && j.PlannedNodes != nil:
			limit := int64(j.Request.TimeLimit / time.Second)
			if tm := int64(j.TimeMin / time.Second); tm > 0 && tm < limit {
				limit = tm
			}
			nodes, start, end = j.PlannedNodes, j.Start, j.Start+limit
		default:
			continue
		}
		if own, ok := w.q.Reservation(j.Reservation); ok && own.Flags&ResvMaint != 0 {
			continue
		}
		for _, r := range w.q.Reservations() {
			if r.Name != j.Reservation && r.overlaps(start, end) && nodes.Intersects(r.Nodes) {
				t.Fatalf("job %d (%s, reservation %q) on nodes %v from %d to %d crosses reservation %s on %v from %d to %d",
					j.ID, j.State, j.Reservation, nodes, start, end, r.Name, r.Nodes, r.Start, r.End)
			}
		}
	}
}

// checkReservations asserts that the reservations a backfill pass made do
// not share a node at overlapping times inside the map: each took its nodes
// out of the slots from its start to its end (rounded to bf_resolution).
func (w *fuzzWorld) checkReservations(t *testing.T, now int64, reserved []*Job) {
	res := int64(w.cfg.BFResolution / time.Second)
	windowEnd := (now + int64(w.cfg.BFWindow/time.Second)) / res * res
	span := func(j *Job) (int64, int64) {
		limit := int64(j.Request.TimeLimit / time.Second)
		if tm := int64(j.TimeMin / time.Second); tm > 0 && tm < limit {
			limit = tm
		}
		start := max(j.Start/res*res, now/res*res)
		end := (j.Start + limit + res - 1) / res * res
		return start, min(max(end, start+res), windowEnd)
	}
	for i, a := range reserved {
		as, ae := span(a)
		for _, b := range reserved[i+1:] {
			bs, be := span(b)
			if as < be && bs < ae && a.PlannedNodes.Intersects(b.PlannedNodes) {
				t.Fatalf("at %d the reservations of jobs %d [%d, %d) and %d [%d, %d) share nodes", now, a.ID, as, ae, b.ID, bs, be)
			}
		}
	}
}

// runPasses runs a random job stream from data through several passes on
// a random cluster, checks the invariants after each, and returns every
// job's outcome so that two runs can be compared; plain hides the select
// plugin's fast paths.
func runPasses(t *testing.T, data []byte, plain bool) string {
	g := &byteGen{b: data}
	w := newFuzzWorld(t, g, plain)
	now := int64(1000)
	id := uint32(0)
	if g.n(3) == 0 {
		// Drive the queue with Tick as a simulator would: events at
		// random seconds, jobs ending at their limits.
		for step := 0; step < 40; step++ {
			for k := g.n(3); k > 0; k-- {
				id++
				w.submit(t, g, id, now)
			}
			w.q.Tick(now)
			w.check(t, now, false, nil)
			now += int64(1 + g.n(90))
			for _, j := range w.q.Jobs() {
				if j.State == Running && j.End <= now {
					if err := w.q.Finish(j.ID, Completed, now); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		return w.outcomes()
	}
	// The rounds below clear plans outside the queue's methods, which
	// Options.ReusePasses rules out.
	w.q.opt.ReusePasses = false
	for round := 0; round < 4; round++ {
		for k := 2 + g.n(8); k > 0; k-- {
			id++
			w.submit(t, g, id, now)
		}
		main := &Pass{}
		w.q.MainPass(now, true, main)
		w.check(t, now, true, nil)
		bf := &Pass{}
		if _, ok := w.q.sched.(Backfill); ok {
			// Backfill never reads a plan; clearing them leaves this
			// pass's reservations.
			for _, j := range w.q.Jobs() {
				j.PlannedNodes = nil
			}
			w.q.BackfillPass(now, bf)
			w.tested = map[uint32]int{}
			for i, r := range w.q.recBuf {
				if _, ok := w.tested[r.e.j.ID]; !ok {
					w.tested[r.e.j.ID] = i
				}
			}
			var reserved []*Job
			for _, j := range w.q.Jobs() {
				if j.State == Pending && j.PlannedNodes != nil && j.Start > now {
					reserved = append(reserved, j)
				}
			}
			w.checkReservations(t, now, reserved)
			w.checkAdvanceReservations(t, true)
		} else {
			w.q.estimateStarts(now)
		}
		w.check(t, now, false, bf.Started)
		now += int64(60 * (1 + g.n(60)))
		for _, j := range w.q.Jobs() {
			if j.State == Running && j.End <= now {
				st := Completed
				if g.bool() {
					st = Failed
				}
				if err := w.q.Finish(j.ID, st, now); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return w.outcomes()
}

// outcomes is every job's state, times, nodes, plan and reason.
func (w *fuzzWorld) outcomes() string {
	var b strings.Builder
	for _, j := range w.q.Jobs() {
		fmt.Fprintf(&b, "%d %s %d %d %v %v %s\n", j.ID, j.State, j.Start, j.End, j.Nodes, j.PlannedNodes, j.ReasonText())
	}
	return b.String()
}

// FuzzSchedulePasses runs random job streams through several passes on
// random clusters and checks the invariants after each, with the select
// plugin's fast paths and without: the outcomes must be the same.
func FuzzSchedulePasses(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x05\x02\x07\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Add([]byte("backfill reserves the head job while short jobs fill the holes"))
	f.Add([]byte{10, 2, 1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 1, 1, 200, 3, 9, 9, 9, 9, 0, 0, 0, 4, 4, 4, 4, 100, 100, 100})
	f.Fuzz(func(t *testing.T, data []byte) {
		if fast, plain := runPasses(t, data, false), runPasses(t, data, true); fast != plain {
			t.Fatalf("the fast paths change the outcome:\n%s\nplain\n%s", fast, plain)
		}
	})
}

// TestRandomPassesKeepInvariants runs 2,000 seeded random inputs through
// runPasses twice each: the invariants hold after every pass (no node over
// its CPUs, no backfilled job on a reservation of a job ahead of it that it
// would delay, no two reservations sharing nodes at once, a reason for
// every pending job), and both runs end the same way, the second without
// the select plugin's fast paths (will-run on dense sets).
func TestRandomPassesKeepInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 29))
	for seed := 0; seed < 2000; seed++ {
		data := make([]byte, 64+r.IntN(400))
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		first := runPasses(t, data, false)
		if again := runPasses(t, data, true); again != first {
			t.Fatalf("input %d: two runs of the same input differ:\n%s\nthen\n%s", seed, first, again)
		}
	}
}

// FuzzParseJobFile: the jobs file reader never panics, and what it
// accepts has dependencies that parse or a clear error.
func FuzzParseJobFile(f *testing.F) {
	f.Add([]byte(`{"jobs": [{"id": 1, "request": "nodes=2", "time_limit": "1:00:00", "dependency": "afterok:3?afterany:4"}]}`))
	f.Add([]byte(`{"jobs": [{"id": 2, "state": "running", "nodes": "n[1-2]", "start": 10, "end": "2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"jobs": []}`))
	f.Add([]byte(`{"jobs": [{"id": 1,}]}`))
	f.Add([]byte(`{"jobs": [{"id": 1, "dependency": "singleton,after:1:2"}]} x`))
	f.Add([]byte(`{"jobs": [{"id": 1, "reservation": "r"}], "reservations": [{"name": "r", "nodes": "n[1-2]", "start": 0, "duration": "1:00:00", "users": "u", "flags": "MAINT"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if resvs, roffs, err := ParseReservations(data); err == nil && len(roffs) != len(resvs) {
			t.Fatalf("%d offsets for %d reservations", len(roffs), len(resvs))
		}
		jobs, offs, err := ParseJobFile(data)
		if err != nil {
			if fe, ok := err.(*JobFileError); !ok || fe.Offset < 0 || fe.Offset > len(data) {
				t.Fatalf("error %v has no offset inside the input", err)
			}
			return
		}
		if len(offs) != len(jobs) {
			t.Fatalf("%d offsets for %d jobs", len(offs), len(jobs))
		}
		for _, j := range jobs {
			deps, _, err := ParseDependency(j.Dependency)
			if err == nil {
				for _, d := range deps {
					if d.Kind != Singleton && d.Job == 0 {
						t.Fatalf("dependency on job 0 accepted: %q", j.Dependency)
					}
				}
			}
		}
	})
}
