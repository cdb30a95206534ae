package sched

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/job"
)

// preemptFixture is four nodes in partitions lo (tier 0) and hipart
// (tier 10), with preemption configured by pc and partition lo's settings.
func preemptFixture(t *testing.T, s Scheduler, pc Preemption, lo Partition, cons bool) *fixture {
	t.Helper()
	if pc.KillWait == 0 {
		pc.KillWait = DefaultKillWait
	}
	f := newFixture(t, nodesN("n", 1, 4, "lo", "hipart"), s, DefaultConfig(), map[string]Partition{"lo": lo}, cons)
	f.q.opt.Preempt = pc
	return f
}

// runLo adds a running job of partition lo on nodes.
func (f *fixture) runLo(id uint32, nodes string, start int64, mut ...func(*Job)) *Job {
	j := f.running(id, "lo", nodes, start, start+36000)
	for _, m := range mut {
		m(j)
	}
	return j
}

// TestPreemptPartitionPrioModes is preempt/partition_prio with each
// PreemptMode: the preemptor waits (Resources) while its victims are
// cancelled (PREEMPTED) or requeued (pending, BeginTime after
// requeue_delay), and starts in the next pass; SUSPEND,GANG starts it at
// once beside the suspended victim.
func TestPreemptPartitionPrioModes(t *testing.T) {
	for _, c := range []struct {
		name                string
		mode                PreemptMode
		gang, noRequeue     bool
		wantVictim1         string
		wantHi1, wantHi2    string
		wantVictim2         string
		wantPreemptedEvents int
	}{
		{"cancel", PreemptCancel, false, false, "PREEMPTED None", "PENDING Resources", "RUNNING n1,n2", "PREEMPTED None", 1},
		{"requeue", PreemptRequeue, false, false, "PENDING BeginTime", "PENDING Resources", "RUNNING n1,n2", "PENDING BeginTime", 1},
		{"requeue refused by --no-requeue kills", PreemptRequeue, false, true, "PREEMPTED None", "PENDING Resources", "RUNNING n1,n2", "PREEMPTED None", 1},
		{"suspend gang", PreemptSuspend, true, false, "SUSPENDED None", "RUNNING n1,n2", "RUNNING n1,n2", "SUSPENDED None", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := preemptFixture(t, Builtin{}, Preemption{Type: PreemptPartitionPrio, Mode: c.mode, Flags: PreemptModeFlags{Gang: c.gang}}, Partition{}, false)
			v := f.runLo(1, "n1,n2", 100, func(j *Job) { j.NoRequeue = c.noRequeue })
			other := f.runLo(2, "n3,n4", 100)
			hi := f.submit(3, 10, "nodes=2,partition=hipart,time=10")
			p := f.pass(1000)
			if got := f.outcome(v); got != c.wantVictim1 {
				t.Errorf("victim after pass 1: %s, want %s", got, c.wantVictim1)
			}
			if got := f.outcome(hi); got != c.wantHi1 {
				t.Errorf("preemptor after pass 1: %s, want %s", got, c.wantHi1)
			}
			if got := f.outcome(other); got != "RUNNING n3,n4" {
				t.Errorf("bystander: %s", got)
			}
			if len(p.Preempted) != c.wantPreemptedEvents || p.Preempted[0].Victim != 1 || p.Preempted[0].Preemptor != 3 {
				t.Errorf("events %+v", p.Preempted)
			}
			if c.mode == PreemptRequeue && !c.noRequeue {
				if v.Begin != 1000+121 || v.Restarts != 1 {
					t.Errorf("requeued: begin %d restarts %d, want 1121 and 1", v.Begin, v.Restarts)
				}
			}
			f.pass(1001)
			if got := f.outcome(hi); got != c.wantHi2 {
				t.Errorf("preemptor after pass 2: %s, want %s", got, c.wantHi2)
			}
			if got := f.outcome(v); got != c.wantVictim2 {
				t.Errorf("victim after pass 2: %s, want %s", got, c.wantVictim2)
			}
		})
	}
}

// TestPreemptSuspendedJobResumesWhenPreemptorEnds is the gang scheduler's
// resume: once the preemptor ends, the suspended victim runs again.
func TestPreemptSuspendedJobResumesWhenPreemptorEnds(t *testing.T) {
	f := preemptFixture(t, Builtin{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptSuspend, Flags: PreemptModeFlags{Gang: true}}, Partition{}, false)
	v := f.runLo(1, "n1,n2,n3,n4", 100)
	hi := f.submit(2, 10, "nodes=2,partition=hipart,time=10")
	f.pass(1000)
	if v.State != Suspended || hi.State != Running {
		t.Fatalf("victim %s, preemptor %s", f.outcome(v), f.outcome(hi))
	}
	if err := f.q.Finish(2, Completed, 1500); err != nil {
		t.Fatal(err)
	}
	if v.State != Running {
		t.Errorf("victim after the preemptor ended: %s, want RUNNING", f.outcome(v))
	}
}

// TestPreemptGraceTimeDelaysTheVictimsEnd is GraceTime: the victim runs on
// until now+GraceTime, and the tick at that time preempts it.
func TestPreemptGraceTimeDelaysTheVictimsEnd(t *testing.T) {
	f := preemptFixture(t, Backfill{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{GraceTime: 30 * time.Second}, false)
	v := f.runLo(1, "n1,n2,n3,n4", 100)
	hi := f.submit(2, 10, "nodes=4,partition=hipart,time=10")
	p := f.pass(1000)
	if v.State != Running || v.End != 1030 || v.PreemptTime != 1000 {
		t.Fatalf("victim %s end %d preempt %d, want RUNNING until 1030", f.outcome(v), v.End, v.PreemptTime)
	}
	if len(p.Preempted) != 1 || p.Preempted[0].End != 1030 {
		t.Errorf("events %+v", p.Preempted)
	}
	if got := f.outcome(hi); got != "PENDING Resources" {
		t.Errorf("preemptor %s", got)
	}
	f.q.Tick(1001)
	if next := f.q.NextTick(1001); next > 1030 {
		t.Errorf("NextTick %d, want <= 1030 (the grace end)", next)
	}
	f.q.Tick(1029)
	if v.State != Running {
		t.Errorf("victim at 1029: %s", f.outcome(v))
	}
	f.q.Tick(1030)
	if v.State != Preempted || v.End != 1030 {
		t.Errorf("victim at 1030: %s end %d, want PREEMPTED at 1030", f.outcome(v), v.End)
	}
	f.q.Tick(1031)
	if hi.State != Running {
		t.Errorf("preemptor after the grace time: %s", f.outcome(hi))
	}
}

// TestGraceEndedVictimCompletesByEpilog is a victim whose grace time ends
// under Options.ReportEpilogs: its nodes stay completing until their
// epilogs, as any stopped victim's, so a preemptor waiting for it starts on
// the nodes reported free (recorded: partition_prio's GraceTime scenarios
// in lab/slurm/sched/preempt/recorded-events, whose batch host reports
// 4.7 s after the other nodes and job 2 runs on n[2-3]).
func TestGraceEndedVictimCompletesByEpilog(t *testing.T) {
	f := preemptFixture(t, Backfill{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{GraceTime: 30 * time.Second}, false)
	f.q.opt.ReportEpilogs = true
	v := f.runLo(1, "n1,n2,n3,n4", 100)
	hi := f.submit(2, 10, "nodes=2,partition=hipart,time=10")
	f.pass(1000)
	p := f.q.Tick(1030)
	if v.State != Preempted || len(p.Preempted) != 1 || p.Preempted[0].End != 1030 {
		t.Fatalf("victim at 1030: %s, events %+v", f.outcome(v), p.Preempted)
	}
	f.q.Tick(1031)
	if got := f.outcome(hi); got != "PENDING Resources" {
		t.Errorf("before any epilog: preemptor %s, want PENDING Resources", got)
	}
	for _, name := range []string{"n2", "n3", "n4"} {
		id, _ := f.cl.Snap.ID(name)
		if err := f.q.EpilogComplete(1, id, 1031); err != nil {
			t.Fatal(err)
		}
	}
	for now := int64(1032); now < 1035 && hi.State != Running; now++ {
		f.q.Tick(now)
	}
	if got := f.outcome(hi); got != "RUNNING n2,n3" {
		t.Errorf("batch host n1 still completing: preemptor %s, want RUNNING n2,n3", got)
	}
}

// TestPreemptRules is who may preempt whom: tiers, PreemptMode=OFF on the
// victim's partition, PreemptExemptTime, min_exempt_priority, the PRIORITY
// flag, and preempt/qos with its Preempt lists and WITHIN.
func TestPreemptRules(t *testing.T) {
	qos := map[string]QOSPreempt{
		"high":   {Priority: 100, Preempt: []string{"normal"}},
		"normal": {Priority: 10},
		"within": {Priority: 5, Flags: PreemptModeFlags{Within: true}},
	}
	for _, c := range []struct {
		name      string
		pc        Preemption
		lo        Partition
		part      string
		victimQOS string
		hiQOS     string
		hiPrio    uint32
		victimPri uint32
		start     int64
		want      bool
	}{
		{name: "higher tier preempts", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, part: "hipart", want: true},
		{name: "same tier does not", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, part: "lo"},
		{name: "preempt/none does not", pc: Preemption{Type: PreemptNone, Mode: PreemptCancel}, part: "hipart"},
		{name: "cluster mode OFF does not", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptOff}, part: "hipart"},
		{name: "victim partition PreemptMode=OFF is spared", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, lo: Partition{PreemptMode: PreemptOff}, part: "hipart"},
		{name: "PreemptExemptTime spares a young job", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel, ExemptTime: time.Hour}, part: "hipart", start: 900},
		{name: "PreemptExemptTime over", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel, ExemptTime: time.Minute}, part: "hipart", start: 900, want: true},
		{name: "min_exempt_priority spares a high-priority job", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel, MinExemptPriority: 50}, part: "hipart", victimPri: 51},
		{name: "PRIORITY flag needs a higher job priority", pc: Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel, Flags: PreemptModeFlags{Priority: true}}, part: "hipart", hiPrio: 1, victimPri: 5},
		{name: "qos listed preempts", pc: Preemption{Type: PreemptQOS, Mode: PreemptCancel, QOS: qos}, part: "lo", hiQOS: "high", victimQOS: "normal", want: true},
		{name: "qos not listed does not", pc: Preemption{Type: PreemptQOS, Mode: PreemptCancel, QOS: qos}, part: "lo", hiQOS: "normal", victimQOS: "high"},
		{name: "same qos does not", pc: Preemption{Type: PreemptQOS, Mode: PreemptCancel, QOS: qos}, part: "lo", hiQOS: "normal", victimQOS: "normal"},
		{name: "same qos WITHIN by priority", pc: Preemption{Type: PreemptQOS, Mode: PreemptCancel, QOS: qos}, part: "lo", hiQOS: "within", victimQOS: "within", hiPrio: 10, victimPri: 5, want: true},
		{name: "qos exempt time", pc: Preemption{Type: PreemptQOS, Mode: PreemptCancel, QOS: map[string]QOSPreempt{"high": qos["high"], "normal": {ExemptTime: time.Hour, ExemptSet: true}}}, part: "lo", hiQOS: "high", victimQOS: "normal", start: 900},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := preemptFixture(t, Builtin{}, c.pc, c.lo, false)
			start := c.start
			if start == 0 {
				start = 100
			}
			vp := c.victimPri
			if vp == 0 {
				vp = 1
			}
			v := f.runLo(1, "n1,n2,n3,n4", start, func(j *Job) { j.QOS, j.Priority = c.victimQOS, vp })
			hp := c.hiPrio
			if hp == 0 {
				hp = 10
			}
			f.submit(2, hp, "nodes=2,time=10,partition="+c.part, func(j *Job) { j.QOS = c.hiQOS })
			f.pass(1000)
			if got := v.State != Running; got != c.want {
				t.Errorf("preempted %v (victim %s), want %v", got, f.outcome(v), c.want)
			}
		})
	}
}

// TestPreemptVictimOrder is slurm_find_preemptable_jobs' order: lowest
// preemption priority first (tier, then fewer nodes), or with
// youngest_first the latest start; the select plugin takes victims in that
// order until the job fits.
func TestPreemptVictimOrder(t *testing.T) {
	for _, c := range []struct {
		name     string
		youngest bool
		want     uint32
	}{
		{"smallest job of the lowest tier first", false, 2},
		{"youngest first", true, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := preemptFixture(t, Builtin{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel, YoungestFirst: c.youngest}, Partition{}, false)
			f.runLo(1, "n1,n2", 100)
			f.runLo(2, "n3", 200)
			f.runLo(3, "n4", 300)
			f.submit(4, 10, "nodes=1,partition=hipart,time=10")
			p := f.pass(1000)
			if len(p.Preempted) != 1 || p.Preempted[0].Victim != c.want {
				t.Errorf("victims %+v, want job %d", p.Preempted, c.want)
			}
		})
	}
}

// TestPreemptLinearReordersByNodesFreed is select/linear's _run_now: once
// taking out jobs in order fits the preemptor, the list is re-sorted with
// the enabling job first and the jobs taken out before it by how many
// nodes each gave back (usable_nodes), not by how many of the chosen nodes
// it holds (cons_tres's key), and walked again. Here 1 (n1), 3 (n5) and 2
// (n3-n4) fit a 3-node job on n[3-5]; walked again as 2, 1, 3 it fits on
// n[1,3-4], so 2 and 1 are the victims (recorded: p1-01-04 of
// lab/slurm/sched/preempt/random-events, 104 and 100 preempted for 321).
func TestPreemptLinearReordersByNodesFreed(t *testing.T) {
	for _, gang := range []bool{false, true} {
		mode := PreemptCancel
		if gang {
			mode = PreemptSuspend
		}
		f := newFixture(t, nodesN("n", 1, 5, "lo", "hipart"), Builtin{}, DefaultConfig(), nil, false)
		f.q.opt.Preempt = Preemption{Type: PreemptPartitionPrio, Mode: mode, Flags: PreemptModeFlags{Gang: gang}, KillWait: DefaultKillWait}
		f.runLo(1, "n1", 100)
		f.runLo(2, "n3,n4", 100)
		f.runLo(3, "n5", 100)
		f.running(4, "hipart", "n2", 100, 36100)
		f.submit(5, 10, "nodes=3,partition=hipart,time=10")
		p := f.pass(1000)
		var got []uint32
		for _, e := range p.Preempted {
			got = append(got, e.Victim)
		}
		if len(got) != 2 || got[0] != 2 || got[1] != 1 {
			t.Errorf("gang %v: victims %v, want [2 1]", gang, got)
		}
	}
}

// TestPreemptQueueOrderPutsPreemptorsFirst is sort_job_queue2's first
// test: a job whose QOS may preempt another's sorts before it whatever
// their priorities.
func TestPreemptQueueOrderPutsPreemptorsFirst(t *testing.T) {
	qos := map[string]QOSPreempt{"high": {Preempt: []string{"normal"}}, "normal": {}}
	f := preemptFixture(t, Builtin{}, Preemption{Type: PreemptQOS, Mode: PreemptCancel, QOS: qos}, Partition{}, false)
	f.submit(1, 500, "nodes=4,partition=lo", func(j *Job) { j.QOS = "normal" })
	f.submit(2, 5, "nodes=4,partition=lo", func(j *Job) { j.QOS = "high" })
	var got []string
	for _, r := range f.q.buildQueue(1000, false, false) {
		got = append(got, itoa(r.e.j.ID))
	}
	if s := join(got); s != "2 1" {
		t.Errorf("queue %s, want 2 1", s)
	}
}

// TestPreemptKillWaitPreemptsNoMoreMeanwhile is preempt_start_time: while
// its victims are going (KillWait+MessageTimeout), a preemptor preempts no
// more jobs.
func TestPreemptKillWaitPreemptsNoMoreMeanwhile(t *testing.T) {
	f := preemptFixture(t, Builtin{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{GraceTime: 100 * time.Second}, false)
	v := f.runLo(1, "n1,n2,n3,n4", 100)
	f.submit(2, 10, "nodes=4,partition=hipart,time=10")
	p1 := f.pass(1000)
	p2 := f.pass(1010)
	if len(p1.Preempted) != 1 || len(p2.Preempted) != 0 || v.End != 1100 {
		t.Errorf("pass 1 %+v, pass 2 %+v, victim end %d", p1.Preempted, p2.Preempted, v.End)
	}
}

// TestPreemptInBackfill is backfill's _try_sched with preemptee
// candidates: a job the main pass did not reach preempts from backfill.
func TestPreemptInBackfill(t *testing.T) {
	for _, cons := range []bool{false, true} {
		f := preemptFixture(t, Backfill{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptRequeue}, Partition{}, cons)
		v := f.runLo(1, "n1,n2,n3,n4", 100)
		hi := f.submit(2, 10, "nodes=2,partition=hipart,time=10")
		p := &Pass{}
		f.q.BackfillPass(1000, p)
		if v.State != Pending || v.Reason != ReasonBeginTime || len(p.Preempted) != 1 {
			t.Errorf("cons=%v: victim %s, events %+v", cons, f.outcome(v), p.Preempted)
		}
		if got := f.outcome(hi); got != "PENDING Resources" {
			t.Errorf("cons=%v: preemptor %s", cons, got)
		}
	}
}

// TestParsePreemptSettings reads PreemptType and PreemptMode as slurm.conf
// writes them.
func TestParsePreemptSettings(t *testing.T) {
	if ty, err := ParsePreemptType("preempt/partition_prio"); err != nil || ty != PreemptPartitionPrio {
		t.Errorf("partition_prio: %v %v", ty, err)
	}
	if ty, err := ParsePreemptType("preempt/qos"); err != nil || ty != PreemptQOS {
		t.Errorf("qos: %v %v", ty, err)
	}
	if _, err := ParsePreemptType("preempt/bogus"); err == nil {
		t.Error("bogus type accepted")
	}
	m, fl, err := ParsePreemptMode("SUSPEND,GANG")
	if err != nil || m != PreemptSuspend || !fl.Gang {
		t.Errorf("SUSPEND,GANG: %v %+v %v", m, fl, err)
	}
	if m, _, _ := ParsePreemptMode("GANG"); m != PreemptOff {
		t.Errorf("GANG alone: %v", m)
	}
	if _, _, err := ParsePreemptMode("SOMETIMES"); err == nil {
		t.Error("bad mode accepted")
	}
	bad := Preemption{Type: PreemptPartitionPrio, Mode: PreemptSuspend}
	if bad.Validate() == nil {
		t.Error("SUSPEND without GANG accepted")
	}
}

// FuzzParsePreemptSettings: PreemptType and PreemptMode readers never
// panic, and what they accept prints back as something they accept alike.
func FuzzParsePreemptSettings(f *testing.F) {
	for _, s := range []string{"preempt/partition_prio", "qos", "none", "", "preempt/x", "SUSPEND,GANG", "REQUEUE", "CANCEL,WITHIN,PRIORITY", "GANG", "off", ",,", "suspend , gang"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ty, err := ParsePreemptType(s); err == nil {
			if again, err := ParsePreemptType(ty.String()); err != nil || again != ty {
				t.Fatalf("%q read as %v, which reads back as %v (%v)", s, ty, again, err)
			}
		}
		m, fl, err := ParsePreemptMode(s)
		if err != nil {
			return
		}
		if m == PreemptModeUnset {
			t.Fatalf("%q read as no mode", s)
		}
		text := m.String()
		if fl.Gang {
			text += ",GANG"
		}
		if fl.Within {
			text += ",WITHIN"
		}
		if fl.Priority {
			text += ",PRIORITY"
		}
		if m2, fl2, err := ParsePreemptMode(text); err != nil || m2 != m || fl2 != fl {
			t.Fatalf("%q read as %v %+v, printed %q, read back as %v %+v (%v)", s, m, fl, text, m2, fl2, err)
		}
	})
}

// TestPreemptorChainEndsWithinTheSecond: under Tick, victims killed in a
// main pass come free at their epilogs within the second, and each epilog's
// main pass starts the waiting preemptor and lets the next one preempt; a
// backfill pass in the same second as the kill does not see their nodes
// free.
func TestPreemptorChainEndsWithinTheSecond(t *testing.T) {
	f := preemptFixture(t, Backfill{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{}, false)
	v1 := f.runLo(1, "n1,n2", 100)
	v2 := f.runLo(2, "n3,n4", 100)
	hi1 := f.submit(3, 20, "nodes=2,partition=hipart,time=10")
	hi2 := f.submit(4, 10, "nodes=2,partition=hipart,time=10")
	f.q.Tick(990) // the timers start
	f.q.Tick(1000)
	for _, c := range []struct {
		j    *Job
		want string
	}{{v1, "PREEMPTED None"}, {v2, "PREEMPTED None"}, {hi1, "RUNNING n1,n2"}, {hi2, "RUNNING n3,n4"}} {
		if got := f.outcome(c.j); got != c.want {
			t.Errorf("job %d after one Tick: %s, want %s", c.j.ID, got, c.want)
		}
	}
	if hi1.Start != 1000 || hi2.Start != 1000 {
		t.Errorf("preemptors started at %d and %d, want 1000", hi1.Start, hi2.Start)
	}

	g := preemptFixture(t, Backfill{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{}, false)
	g.runLo(1, "n1,n2,n3,n4", 100)
	hi := g.submit(2, 10, "nodes=2,partition=hipart,time=10")
	lo := g.submit(3, 5, "nodes=1,partition=lo,time=10")
	p := &Pass{}
	g.q.MainPass(1000, true, p)
	g.q.BackfillPass(1000, p)
	if got, got2 := g.outcome(hi), g.outcome(lo); got != "PENDING Resources" || strings.HasPrefix(got2, "RUNNING") {
		t.Errorf("same second: preemptor %s, low job %s; want the victim's nodes still busy", got, got2)
	}
	g.q.MainPass(1001, true, p)
	if got := g.outcome(hi); got != "RUNNING n1,n2" {
		t.Errorf("next second: preemptor %s", got)
	}
}

// TestTakesFromIsCoreOverlap: under the gang scheduler a job preempts only
// the jobs whose cores it takes on a shared node; a job holding its nodes
// whole, or one without core numbers (select/linear), overlaps by nodes.
func TestTakesFromIsCoreOverlap(t *testing.T) {
	alloc := func(whole bool, perNode ...job.NodeAlloc) *job.Allocation {
		a := &job.Allocation{Nodes: roaring.New(), PerNode: perNode, WholeNode: whole}
		for _, n := range perNode {
			a.Nodes.Add(n.ID)
		}
		return a
	}
	victim := func(a *job.Allocation) *Job { return &Job{Nodes: a.Nodes, Alloc: a} }
	for _, c := range []struct {
		name string
		a, v *job.Allocation
		want bool
	}{
		{"other cores of a shared node", alloc(false, job.NodeAlloc{ID: 3, Cores: []int{7}}), alloc(false, job.NodeAlloc{ID: 3, Cores: []int{1, 2}}), false},
		{"a core the victim holds", alloc(false, job.NodeAlloc{ID: 3, Cores: []int{0}}), alloc(false, job.NodeAlloc{ID: 2, Cores: []int{5}}, job.NodeAlloc{ID: 3, Cores: []int{0}}), true},
		{"other nodes", alloc(false, job.NodeAlloc{ID: 1, Cores: []int{0}}), alloc(false, job.NodeAlloc{ID: 3, Cores: []int{0}}), false},
		{"a whole node", alloc(true, job.NodeAlloc{ID: 3, Cores: []int{7}}), alloc(false, job.NodeAlloc{ID: 3, Cores: []int{1}}), true},
		{"no core numbers", alloc(false, job.NodeAlloc{ID: 3}), alloc(false, job.NodeAlloc{ID: 3}), true},
	} {
		if got := takesFrom(c.a, victim(c.v)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// gangFixture is four 4-core nodes under cons_tres in partitions lo and
// lo2 (tier 0), mid (tier 5) and hipart (tier 10), PreemptMode=SUSPEND,GANG
// with preempt/partition_prio.
func gangFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, nodesN("n", 1, 4, "lo", "lo2", "mid", "hipart"), Builtin{}, DefaultConfig(), nil, true)
	f.cl.Partitions["mid"].PriorityTier = 5
	f.q = NewQueue(Options{Cluster: f.cl, Plugin: f.q.plugin, Scheduler: Builtin{}, Config: DefaultConfig(),
		Preempt: Preemption{Type: PreemptPartitionPrio, Mode: PreemptSuspend, Flags: PreemptModeFlags{Gang: true}, KillWait: DefaultKillWait}})
	return f
}

// TestGangSuspendedJobKeepsItsCores is the lab's "keep: a suspended
// whole-cluster job's cores stay closed to its tier, open to higher ones"
// (lab/slurm/sched/preempt/gangcores.json): the suspended job's cores are
// not idle and stay in its partition's row, so a job of its tier pends,
// while jobs of higher tiers take them, best fit, without another victim.
func TestGangSuspendedJobKeepsItsCores(t *testing.T) {
	f := gangFixture(t)
	v := f.runLo(1, "n1,n2,n3,n4", 100)
	steps := []struct {
		spec, want string
	}{
		{"ntasks=1,partition=hipart,time=60", "RUNNING n1"},
		{"ntasks=1,partition=lo,time=60", "PENDING Resources"},
		{"ntasks=1,partition=mid,time=60", "RUNNING n1"},
		{"ntasks=2,partition=hipart,time=60", "RUNNING n1"},
	}
	now := int64(1000)
	for i, s := range steps {
		j := f.submit(uint32(2+i), 10, s.spec)
		f.pass(now)
		if got := f.outcome(j); got != s.want {
			t.Errorf("%s: %s, want %s", s.spec, got, s.want)
		}
		if v.State != Suspended {
			t.Errorf("after %s the victim is %s, want SUSPENDED", s.spec, f.outcome(v))
		}
		now++
	}
}

// TestGangLinearSuspendedJobKeepsItsNodes is select/linear under
// SUSPEND,GANG as p1-09-05 recorded it (lab/slurm/sched/preempt/random): a
// job the gang scheduler suspends keeps its place in the plugin's counts
// (select_p_job_suspend does nothing for a suspension that is not
// indefinite), so its free node is not idle to the next preemptor, which
// suspends the smallest running candidate instead.
func TestGangLinearSuspendedJobKeepsItsNodes(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 4, "lo", "hipart"), Builtin{}, DefaultConfig(), nil, false)
	f.q = NewQueue(Options{Cluster: f.cl, Plugin: f.q.plugin, Scheduler: Builtin{}, Config: DefaultConfig(),
		Preempt: Preemption{Type: PreemptPartitionPrio, Mode: PreemptSuspend, Flags: PreemptModeFlags{Gang: true}, KillWait: DefaultKillWait}})
	small := f.runLo(1, "n1", 100)
	big := f.runLo(2, "n2,n3,n4", 100)
	h1 := f.submit(3, 10, "nodes=2,exclusive,nodelist=n3,partition=hipart,time=60")
	f.pass(1000)
	if got := f.outcome(h1); got != "RUNNING n3,n4" || big.State != Suspended || small.State != Running {
		t.Fatalf("first preemptor %s, 3-node job %s, 1-node job %s", got, f.outcome(big), f.outcome(small))
	}
	h2 := f.submit(4, 10, "nodes=1,partition=hipart,time=60")
	f.pass(1001)
	if got := f.outcome(h2); got != "RUNNING n1" || small.State != Suspended {
		t.Errorf("second preemptor %s, 1-node job %s: want RUNNING n1 and the 1-node job suspended", got, f.outcome(small))
	}
}

// TestGangSameTierPartitionsShareCores is the lab's "same tier" cases
// (gangcores.json): cons_tres's test 4 leaves out only the job's own
// partition's row, so a job of another tier-0 partition runs over the
// cores of running jobs that share their nodes, exclusive or not, and
// both run on (the gang scheduler shadows lower tiers only).
func TestGangSameTierPartitionsShareCores(t *testing.T) {
	for _, spec := range []string{"ntasks=1,partition=lo2,time=60", "nodes=1,exclusive,partition=lo2,time=60"} {
		t.Run(spec, func(t *testing.T) {
			f := gangFixture(t)
			var lo []*Job
			for i := range 4 {
				lo = append(lo, f.submit(uint32(1+i), 10, "ntasks=4,partition=lo,time=60"))
				f.pass(int64(1000 + i))
			}
			j := f.submit(5, 10, spec)
			f.pass(1010)
			if got := f.outcome(j); got != "RUNNING n1" {
				t.Errorf("%s, want RUNNING n1", got)
			}
			for _, l := range lo {
				if l.State != Running {
					t.Errorf("job %d: %s, want RUNNING", l.ID, f.outcome(l))
				}
			}
		})
	}
}

// TestPreemptVictimNodesCompleteByEpilog is Options.ReportEpilogs: a
// killed victim's nodes are completing until each node's epilog is
// reported (EpilogComplete), and no job starts on a completing node but
// one that names it under select/linear (_get_req_features starts from
// the required nodes as they are); the last epilog asks for a main pass.
func TestPreemptVictimNodesCompleteByEpilog(t *testing.T) {
	f := preemptFixture(t, Builtin{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{}, false)
	f.q.opt.ReportEpilogs = true
	n1, _ := f.cl.Snap.ID("n1")
	n2, _ := f.cl.Snap.ID("n2")
	v := f.runLo(1, "n1,n2", 100)
	f.runLo(2, "n3,n4", 100)
	hi := f.submit(3, 10, "nodes=2,partition=hipart,time=10")
	p := &Pass{}
	f.q.MainPass(1000, false, p)
	if v.State != Preempted || len(p.Preempted) != 1 {
		t.Fatalf("victim %s, events %+v", f.outcome(v), p.Preempted)
	}
	f.q.MainPass(1001, false, &Pass{})
	if got := f.outcome(hi); got != "PENDING Resources" {
		t.Errorf("before any epilog: preemptor %s, want PENDING Resources", got)
	}
	if err := f.q.EpilogComplete(1, n2, 1001); err != nil {
		t.Fatal(err)
	}
	if err := f.q.EpilogComplete(1, n2, 1001); err == nil {
		t.Error("a node reported twice: no error")
	}
	named := f.submit(4, 20, "nodes=1,nodelist=n1,partition=hipart,time=10")
	f.q.MainPass(1001, false, &Pass{})
	if got := f.outcome(hi); got != "PENDING Resources" {
		t.Errorf("n1 still completing: preemptor %s, want PENDING Resources", got)
	}
	if got := f.outcome(named); got != "RUNNING n1" {
		t.Errorf("a job that names the completing n1: %s, want RUNNING n1", got)
	}
	f.q.Finish(4, Completed, 1001)
	if err := f.q.EpilogComplete(1, n1, 1002); err != nil {
		t.Fatal(err)
	}
	if !f.q.clock.immediate {
		t.Error("the last epilog asks for no main pass")
	}
	f.q.MainPass(1002, false, &Pass{})
	if got := f.outcome(hi); got != "RUNNING n1,n2" {
		t.Errorf("after the epilogs: preemptor %s, want RUNNING n1,n2", got)
	}
	if err := f.q.EpilogComplete(9, n1, 1002); !errors.Is(err, ErrNoJob) {
		t.Errorf("a job not completing: %v, want ErrNoJob", err)
	}
}

// TestBackfillWaitsForCompletingNodes is _attempt_backfill's check of
// completing nodes: a killed victim gives its nodes back to the select
// plugin at once, so a job's will-run may choose them, but while one is
// completing the job cannot start there before the next second
// (start_time now+1; recorded: p1-05-05 of
// lab/slurm/sched/preempt/random-events, job 577 planned on n7 at now+1
// while n7's victim completed).
func TestBackfillWaitsForCompletingNodes(t *testing.T) {
	f := preemptFixture(t, Backfill{}, Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel}, Partition{}, false)
	f.q.opt.ReportEpilogs = true
	f.runLo(1, "n1", 100)
	f.running(2, "hipart", "n2,n3,n4", 100, 36100)
	hi := f.submit(3, 10, "nodes=1,partition=hipart,time=10")
	f.q.MainPass(1000, false, &Pass{})
	p := &Pass{}
	f.q.BackfillPass(1001, p)
	if hi.State != Pending || hi.Start != 1002 || len(p.Started)+len(p.Preempted) != 0 {
		t.Errorf("preemptor %s planned at %d (started %v, preempted %+v), want pending from 1002", f.outcome(hi), hi.Start, p.Started, p.Preempted)
	}
}

// TestGangLinearRequeueVictimIsWaitedFor is select/linear under
// SUSPEND,GANG with a REQUEUE victim, as p3-08-06 recorded it (siftlab
// record -events: the victim requeued at +1.000 s, the preemptor started by
// the main pass after its epilogs, at +1.036 s): _run_now's victims go to
// _preempt_jobs, which leaves only those to suspend to the gang scheduler,
// so the preemptor waits for the requeued one.
func TestGangLinearRequeueVictimIsWaitedFor(t *testing.T) {
	f := newFixture(t, nodesN("n", 1, 4, "lo", "hipart"), Builtin{}, DefaultConfig(), map[string]Partition{"lo": {PreemptMode: PreemptRequeue}}, false)
	f.q = NewQueue(Options{Cluster: f.cl, Plugin: f.q.plugin, Scheduler: Builtin{}, Config: DefaultConfig(), Partitions: map[string]Partition{"lo": {PreemptMode: PreemptRequeue}},
		Preempt: Preemption{Type: PreemptPartitionPrio, Mode: PreemptSuspend, Flags: PreemptModeFlags{Gang: true}, KillWait: DefaultKillWait}})
	v := f.runLo(1, "n1,n2,n3,n4", 100)
	hi := f.submit(2, 10, "nodes=2,partition=hipart,time=60")
	f.pass(1000)
	if got, want := f.outcome(hi)+" / "+f.outcome(v), "PENDING Resources / PENDING BeginTime"; got != want {
		t.Fatalf("after the preempting pass: %s, want %s", got, want)
	}
	f.q.Tick(1001)
	if got := f.outcome(hi); got != "RUNNING n1,n2" {
		t.Errorf("after the victim's epilog: %s, want RUNNING n1,n2", got)
	}
}

// TestPreemptQueueOrderPutsHigherTierBeforeReservationJob is
// sort_job_queue2 with preempt/partition_prio: preempt_g_job_preempt_check
// comes before the reservation test, so a job of a higher tier on shared
// nodes is tested before a lower tier's job naming a reservation, and may
// run on the nodes that job waits for, delaying it; a job of the same tier
// stays behind it. Recorded: lab/slurm/sched/resv/recorded/resv-preempt.json
// (p01, p02: a FLEX reservation on n1, n2 busy for 10 minutes, the
// reservation's 3-node job pending, then n3 comes free). FuzzSchedulePasses
// found it (seed 5b5fd5a3f3eb286b: a tier-1 job without a reservation
// backfilled over the node a tier-0 FLEX reservation job was then planned
// on); its invariant exempts it.
func TestPreemptQueueOrderPutsHigherTierBeforeReservationJob(t *testing.T) {
	for _, c := range []struct {
		name    string
		part    string
		wantB   string
		wantRes int64
	}{
		{"a higher tier's job runs on the nodes the reservation job waits for", "hipart", "RUNNING n3", 1000 + 1800},
		{"a same tier's job stays behind the reservation job", "lo", "PENDING Priority", 1600},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nodesN("n", 1, 3, "lo", "hipart"), Backfill{}, DefaultConfig(), map[string]Partition{"lo": {PreemptMode: PreemptOff}}, true)
			f.q.opt.Preempt = Preemption{Type: PreemptPartitionPrio, Mode: PreemptCancel, KillWait: DefaultKillWait}
			f.resv("r1", "n1", 0, 0, 3600, ResvFlex)
			f.running(10, "hipart", "n2", 0, 1600)
			a := f.submit(2, 100, "nodes=3,exclusive,partition=lo,time=10", inResv("r1"))
			b := f.submit(3, 100, "nodes=1,exclusive,partition="+c.part+",time=30")
			f.pass(1000)
			if got := f.outcome(b); got != c.wantB {
				t.Errorf("job B: %s, want %s", got, c.wantB)
			}
			if got := f.outcome(a); got != "PENDING Resources" || a.Start != c.wantRes {
				t.Errorf("reservation job: %s from %d, want PENDING Resources from %d", got, a.Start, c.wantRes)
			}
		})
	}
}
