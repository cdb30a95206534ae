package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
)

// labEvent is one event of slurmctld's log kept by siftlab record
// -events (lab/slurm/siftlab/events.go): MS after the start of the
// release's second.
type labEvent struct {
	MS    int64  `json:"ms"`
	Kind  string `json:"kind"`
	Job   uint32 `json:"job"`
	By    uint32 `json:"by"`
	Mode  string `json:"mode"`
	Nodes string `json:"nodes"`
}

// epilogRelease replays a case in slurmctld's recorded order instead of
// sched's timers: from the release on, a main pass where slurmctld's log
// began one, a backfill cycle where it began one, and a killed or
// requeued victim's node coming free where its epilog completed
// (Options.ReportEpilogs, Queue.EpilogComplete).
type epilogRelease struct {
	q        *sched.Queue
	cl       *job.Cluster
	events   []labEvent
	released int64
	next     int // first event not replayed
	// epilogs are the jobs whose epilogs the log shows.
	epilogs map[uint32]bool
	// unmatched counts the victims of the replay slurmctld did not stop:
	// their nodes come free at once.
	unmatched int
	// debug prints each event and what the replay's passes did.
	debug bool
}

func newEpilogRelease(c schedCase) *epilogRelease {
	r := &epilogRelease{events: c.Events, released: c.Released, epilogs: map[uint32]bool{}}
	for _, e := range c.Events {
		if e.Kind == "epilog" {
			r.epilogs[e.Job] = true
		}
	}
	return r
}

func (r *epilogRelease) configure(opt *sched.Options) { opt.ReportEpilogs = true }

func (r *epilogRelease) attach(q *sched.Queue, cl *job.Cluster) { r.q, r.cl = q, cl }

// second is the second of the release an event falls in.
func (r *epilogRelease) second(e labEvent) int64 {
	s := e.MS / 1000
	if e.MS < 0 && e.MS%1000 != 0 {
		s--
	}
	return r.released + s
}

// tick replays the events of second now, in order.
func (r *epilogRelease) tick(now int64) *sched.Pass {
	p := &sched.Pass{}
	for ; r.next < len(r.events); r.next++ {
		e := r.events[r.next]
		if r.second(e) > now {
			break
		}
		m0, s0 := len(p.Preempted), len(p.Started)
		switch e.Kind {
		case "read":
			// Slurm's answer was read here: later events are not in it.
			r.next = len(r.events)
			return p
		case "main":
			nodes := r.running()
			r.q.MainPass(now, e.Mode == "full", p)
			r.stopped(p.Preempted[m0:], nodes, now)
		case "backfill":
			nodes := r.running()
			r.q.BackfillPass(now, p)
			p.BackfillStarted += len(p.Started) - s0
			r.stopped(p.Preempted[m0:], nodes, now)
		case "epilog":
			if id, ok := r.cl.Snap.ID(e.Nodes); ok {
				// An error is a job sift did not stop.
				_ = r.q.EpilogComplete(e.Job, id, now)
			}
		}
		if r.debug {
			fmt.Printf("%5d %-8s %d %s", e.MS, e.Kind, e.Job, e.Nodes)
			if e.Kind == "preempt" {
				fmt.Printf(" for %d", e.By)
			}
			if e.Kind == "main" || e.Kind == "backfill" {
				fmt.Printf(" | sift started %v preempted", p.Started[s0:])
				for _, pe := range p.Preempted[m0:] {
					fmt.Printf(" %d for %d", pe.Victim, pe.Preemptor)
				}
			}
			fmt.Println()
		}
	}
	return p
}

// running are the nodes of each running job.
func (r *epilogRelease) running() map[uint32]*roaring.Bitmap { return runningNodes(r.q) }

// runningNodes are the nodes of each running job of q.
func runningNodes(q *sched.Queue) map[uint32]*roaring.Bitmap {
	out := map[uint32]*roaring.Bitmap{}
	for _, j := range q.Jobs() {
		if j.State == sched.Running {
			out[j.ID] = j.Nodes
		}
	}
	return out
}

// stopped frees at once the victims a pass killed or requeued that
// slurmctld did not stop (no epilog of theirs in its log).
func (r *epilogRelease) stopped(ev []sched.PreemptEvent, nodes map[uint32]*roaring.Bitmap, now int64) {
	for _, pe := range ev {
		if pe.Mode != sched.PreemptCancel && pe.Mode != sched.PreemptRequeue || pe.End > now || r.epilogs[pe.Victim] || nodes[pe.Victim] == nil {
			continue
		}
		r.unmatched++
		for _, n := range nodes[pe.Victim].ToArray() {
			_ = r.q.EpilogComplete(pe.Victim, n, now)
		}
	}
}

// preemptEventsDir holds cases of preemptRandomDir recorded again with
// slurmctld's log events (siftlab record -events -cases): those whose
// first recording sift's timers do not reproduce.
const preemptEventsDir = "../../lab/slurm/sched/preempt/random-events"

// preemptEventsKnown are the cases of preemptEventsDir that differ from
// Slurm even replayed in its recorded order, keyed "FILE.json/CASE", with
// the cause; each is in docs/COMPATIBILITY.md.
var preemptEventsKnown = map[string]string{
	"preempt-2-03.json/p2-03-08": backfillCores,
}

// eventsReplay is what TestPreemptionEpilogOrderReplay found for one case
// recorded again.
type eventsReplay struct {
	agrees    bool // replayed in slurmctld's recorded order
	timers    int  // differences replayed by sched's own timers
	changed   int  // jobs Slurm answered otherwise than in the first recording
	unmatched int  // victims of the replay slurmctld did not stop
}

// TestPreemptionEpilogOrderReplay replays each case recorded again with
// slurmctld's log events in the order the log shows (epilogRelease):
// every job must agree with Slurm but the cases of preemptEventsKnown.
// It also counts how many Slurm answered otherwise than in the first
// recording of the same input and how many sched's timers (Queue.Tick,
// a victim freed whole within the second) get wrong, and checks that each
// case of preemptRandomKnown labelled epilogOrder is one this replay
// reproduces and where Slurm's answer or sift's timers moved.
// SIFT_EPILOG_TRACE=CASE prints that case's events with what each pass
// did in the replay.
func TestPreemptionEpilogOrderReplay(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(preemptEventsDir, "*.json.gz"))
	if len(paths) == 0 {
		t.Skip("no preemption scenario recorded with events")
	}
	got := map[string]eventsReplay{}
	agree, known := 0, 0
	for _, path := range paths {
		var rec, first schedRecording
		readLab(t, path, &rec)
		readLab(t, filepath.Join(preemptRandomDir, filepath.Base(path)), &first)
		firstCase := byName(first.Cases, func(c schedCase) string { return c.Name })
		for _, c := range rec.Cases {
			key := strings.TrimSuffix(filepath.Base(path), ".gz") + "/" + c.Name
			r := newEpilogRelease(c)
			r.debug = os.Getenv("SIFT_EPILOG_TRACE") == c.Name
			diffs, err := replaySchedCase(rec, c, r)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			plain, err := replaySchedCase(rec, c, nil)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			cause, isKnown := preemptEventsKnown[key]
			if judgeKnown(t, key, diffs, cause, isKnown, "preemptEventsKnown") {
				if isKnown {
					known++
				} else {
					agree++
				}
			}
			// A case recorded several times is named NAME-layoutN.
			name, _, _ := strings.Cut(c.Name, "-layout")
			got[key] = eventsReplay{agrees: len(diffs) == 0, timers: len(plain), changed: slurmAnswersDiffer(firstCase[name], c), unmatched: r.unmatched}
		}
	}
	changed, timers := 0, 0
	for key, g := range got {
		if g.changed > 0 {
			changed++
		}
		if g.timers > 0 {
			timers++
		}
		t.Logf("%s: in Slurm's order %v (%d victims of sift's not stopped by Slurm); %d differences by sched's timers; %d jobs answered otherwise than in the first recording", key, g.agrees, g.unmatched, g.timers, g.changed)
	}
	for key, cause := range preemptRandomKnown {
		if cause != epilogOrder {
			continue
		}
		switch g, ok := got[key]; {
		case !ok:
			t.Errorf("%s: labelled epilogOrder but not recorded again with events", key)
		case !g.agrees:
			t.Errorf("%s: labelled epilogOrder but the replay in Slurm's recorded order differs", key)
		case g.changed == 0 && g.timers == 0:
			t.Errorf("%s: labelled epilogOrder but Slurm answered as before and sift's timers agree", key)
		}
	}
	t.Log(epilogOrderStats(paths, t))
	msg := fmt.Sprintf("%d preemption scenarios recorded again with slurmctld's events: %d agree replayed in its order, %d known differences; %d answered otherwise than their first recording, %d differ replayed by sched's timers", len(got), agree, known, changed, timers)
	t.Log(msg)
	fmt.Println(msg)
}

// byName maps a recording's cases by their names.
func byName[C any](cases []C, name func(C) string) map[string]C {
	out := make(map[string]C, len(cases))
	for _, c := range cases {
		out[name(c)] = c
	}
	return out
}

// slurmAnswersDiffer counts the jobs whose state, pending reason, nodes or
// restarts differ between two recordings of one case.
func slurmAnswersDiffer(a, b schedCase) int {
	n := 0
	for i := range min(len(a.Jobs), len(b.Jobs)) {
		x, y := a.Jobs[i].Slurm, b.Jobs[i].Slurm
		if x.State != y.State || x.Nodes != y.Nodes || x.Restarts != y.Restarts || (x.State == "PENDING" && x.Reason != y.Reason) {
			n++
		}
	}
	return n + max(len(a.Jobs), len(b.Jobs)) - min(len(a.Jobs), len(b.Jobs))
}

// epilogOrderStats says what the recorded epilogs show of slurmctld's
// order: whether a victim's batch host (its first node) comes free last,
// and whether the victims' last epilogs come in the order they were
// stopped.
func epilogOrderStats(paths []string, t *testing.T) string {
	victims, several, hostLast, cases, inOrder := 0, 0, 0, 0, 0
	for _, path := range paths {
		var rec schedRecording
		readLab(t, path, &rec)
		for _, c := range rec.Cases {
			nodes := map[uint32]string{}
			for i, st := range c.Started {
				if i < len(c.Jobs) {
					nodes[c.Jobs[i].Slurm.JobID] = st.Nodes
				}
			}
			last := map[uint32]labEvent{}
			for _, e := range c.Events {
				if e.Kind == "epilog" {
					last[e.Job] = e
				}
			}
			var stopped []uint32
			for _, e := range c.Events {
				if e.Kind != "preempt" {
					continue
				}
				l, ok := last[e.Job]
				if !ok {
					continue
				}
				victims++
				stopped = append(stopped, e.Job)
				hl, err := hostlist.Parse(hostlist.Slurm, nodes[e.Job])
				if err != nil {
					continue
				}
				names, err := hl.Expand(1 << 16)
				if err != nil || len(names) < 2 {
					continue
				}
				several++
				if names[0] == l.Nodes {
					hostLast++
				}
			}
			cases++
			if slices.IsSortedFunc(stopped, func(a, b uint32) int { return cmp.Compare(last[a].MS, last[b].MS) }) {
				inOrder++
			}
		}
	}
	return fmt.Sprintf("%d victims in slurmctld's logs: %d of the %d of several nodes came free batch host last; in %d of %d cases the victims' last epilogs came in the order they were stopped", victims, hostLast, several, inOrder, cases)
}

// stepEpilogs frees the nodes of the victims of a hand-written
// preemption scenario (steps, snapshots) when slurmctld's log shows their
// epilogs: each node of a victim sift stops at second End comes free
// after the replay's pass of second End + d, d the whole seconds from
// slurmctld's preemption of that victim to the node's epilog (its passes
// run about a second apart from there: backfill's bf_interval=1, a main
// pass at a job's last epilog). A victim sift stops that slurmctld's log
// does not show comes free whole at once.
type stepEpilogs struct {
	// rounds are, per replay job id, each of its preemptions' node
	// epilogs in slurmctld's log.
	rounds map[uint32][][]nodeEpilog
	used   map[uint32]int
	due    []dueEpilog
	// unmatched counts the victims of the replay slurmctld did not stop.
	unmatched int
}

// nodeEpilog is a node's epilog, ms after its job's preemption.
type nodeEpilog struct {
	node string
	ms   int64
}

type dueEpilog struct {
	at     int64
	victim uint32
	node   string
}

// newStepEpilogs reads a step case's events: Slurm's job ids are mapped
// to the replay's (the submissions' order, refused ones included) by the
// submit events.
func newStepEpilogs(c preemptCase) *stepEpilogs {
	ep := &stepEpilogs{rounds: map[uint32][][]nodeEpilog{}, used: map[uint32]int{}}
	var submits []uint32
	for _, e := range c.Events {
		if e.Kind == "submit" {
			submits = append(submits, e.Job)
		}
	}
	ids := map[uint32]uint32{}
	n := 0
	for _, st := range c.Jobs {
		if st.Action != "" {
			continue
		}
		n++
		if st.Slurm.State != "REJECTED" && len(submits) > 0 {
			ids[submits[0]] = uint32(n)
			submits = submits[1:]
		}
	}
	stoppedAt := map[uint32]int64{}
	for _, e := range c.Events {
		id, ok := ids[e.Job]
		if !ok {
			continue
		}
		switch e.Kind {
		case "preempt":
			stoppedAt[id] = e.MS
			ep.rounds[id] = append(ep.rounds[id], nil)
		case "epilog":
			if r := ep.rounds[id]; len(r) > 0 {
				r[len(r)-1] = append(r[len(r)-1], nodeEpilog{node: e.Nodes, ms: e.MS - stoppedAt[id]})
			}
		}
	}
	return ep
}

// stopped schedules the epilogs of the victims a pass killed or requeued
// at now (nodes: each running job's nodes before it); a victim given a
// grace time is stopped by a later pass.
func (ep *stepEpilogs) stopped(ev []sched.PreemptEvent, nodes map[uint32]*roaring.Bitmap, now int64) {
	for _, pe := range ev {
		if pe.Mode != sched.PreemptCancel && pe.Mode != sched.PreemptRequeue || pe.End > now || nodes[pe.Victim] == nil {
			continue
		}
		k := ep.used[pe.Victim]
		ep.used[pe.Victim]++
		if k >= len(ep.rounds[pe.Victim]) {
			ep.unmatched++
			for _, n := range nodes[pe.Victim].ToArray() {
				ep.due = append(ep.due, dueEpilog{at: pe.End, victim: pe.Victim, node: fmt.Sprint(n)})
			}
			continue
		}
		for _, ne := range ep.rounds[pe.Victim][k] {
			ep.due = append(ep.due, dueEpilog{at: pe.End + ne.ms/1000, victim: pe.Victim, node: ne.node})
		}
	}
}

// release reports the epilogs due by now.
func (ep *stepEpilogs) release(q *sched.Queue, snap *index.Snapshot, now int64) {
	keep := ep.due[:0]
	for _, d := range ep.due {
		if d.at > now {
			keep = append(keep, d)
			continue
		}
		id, ok := snap.ID(d.node)
		if !ok {
			// A victim slurmctld did not stop: its node ids.
			n, _ := strconv.ParseUint(d.node, 10, 32)
			id = uint32(n)
		}
		// An error is a victim whose grace time has not ended in sift.
		if err := q.EpilogComplete(d.victim, id, now); err != nil {
			keep = append(keep, d)
		}
	}
	ep.due = keep
}

// preemptEventsRecordDir holds hand-written preemption scenarios recorded
// again with slurmctld's log events (siftlab record -events -cases).
const preemptEventsRecordDir = "../../lab/slurm/sched/preempt/recorded-events"

// TestPreemptionHandEpilogReplay replays the hand-written preemption
// scenarios recorded again with slurmctld's events with each victim's
// nodes freed as the log shows their epilogs (stepEpilogs), against that
// recording's answers: every job must agree. It also says which of them
// Slurm answered otherwise than in the committed recording, and checks
// that each scenario of preemptKnown was recorded again and agrees so.
func TestPreemptionHandEpilogReplay(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(preemptEventsRecordDir, "*.json"))
	if len(files) == 0 {
		t.Skip("no hand-written preemption scenario recorded with events")
	}
	agree, alike := map[string]bool{}, map[string]bool{}
	for _, file := range files {
		var rec, first preemptRecord
		readLab(t, file, &rec)
		readLab(t, filepath.Join(preemptRecordDir, filepath.Base(file)), &first)
		firstCase := byName(first.Cases, func(c preemptCase) string { return c.Name })
		base := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, c := range rec.Cases {
			key := base + "/" + c.Name
			ep := newStepEpilogs(c)
			d := replayPreempt(t, rec, c, ep)
			plain := replayPreempt(t, rec, c, nil)
			if d != "" {
				t.Errorf("%s: replayed with its epilogs: %s", key, d)
			}
			agree[key], alike[key] = d == "", preemptAnswersAlike(firstCase[c.Name], c)
			t.Logf("%s: agrees with its epilogs %v (%d victims of sift's not stopped by Slurm); sift's timers: %q; Slurm answered as in the committed recording: %v", key, d == "", ep.unmatched, plain, alike[key])
		}
	}
	for key, cause := range preemptKnown {
		if cause != batchHostKillWait && cause != batchHostRace {
			continue
		}
		if ok, found := agree[key]; !found || !ok {
			t.Errorf("%s: labelled %q but not recorded again with events, or differs replayed with them", key, cause)
		}
		if cause == batchHostRace && alike[key] {
			t.Errorf("%s: labelled batchHostRace but Slurm answered as in the committed recording", key)
		}
	}
	n := 0
	for _, ok := range agree {
		if ok {
			n++
		}
	}
	msg := fmt.Sprintf("%d hand-written preemption scenarios recorded again with slurmctld's events: %d agree with each victim's nodes freed at its epilogs", len(agree), n)
	t.Log(msg)
	fmt.Println(msg)
}

// preemptAnswersAlike says whether two recordings of a step case show
// every job alike at every snapshot and at the end.
func preemptAnswersAlike(a, b preemptCase) bool {
	if len(a.Jobs) != len(b.Jobs) || (a.After == nil) != (b.After == nil) {
		return false
	}
	alike := func(x, y []preemptOutcome) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if preemptWant(x[i]) != preemptWant(y[i]) {
				return false
			}
		}
		return true
	}
	for i := range a.Jobs {
		if !alike(a.Jobs[i].Snapshot, b.Jobs[i].Snapshot) {
			return false
		}
	}
	return a.After == nil || alike(a.After.Jobs, b.After.Jobs)
}
