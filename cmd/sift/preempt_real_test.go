package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
)

// preemptRecordDir holds the preemption scenarios recorded from a running
// Slurm (lab/slurm/sched/preempt).
const preemptRecordDir = "../../lab/slurm/sched/preempt/recorded"

// preemptRecord is a siftlab recording of scheduling steps.
type preemptRecord struct {
	SlurmConf string        `json:"slurm_conf"`
	Sacctmgr  string        `json:"sacctmgr"`
	Cases     []preemptCase `json:"cases"`
}

type preemptCase struct {
	Name string        `json:"name"`
	Jobs []preemptStep `json:"jobs"`
	// Events are slurmctld's log events from the first step on (siftlab
	// record -events), for stepEpilogs.
	Events []labEvent `json:"events"`
	After  *struct {
		Jobs []preemptOutcome `json:"jobs"`
	} `json:"after"`
}

type preemptStep struct {
	Spec     string           `json:"spec"`
	Action   string           `json:"action"`
	Slurm    preemptOutcome   `json:"slurm"`
	Snapshot []preemptOutcome `json:"snapshot"`
}

type preemptOutcome struct {
	State    string `json:"state"`
	Reason   string `json:"reason"`
	Nodes    string `json:"nodes"`
	Restarts int    `json:"restarts"`
}

// preemptKnown are the scenarios where sift differs from Slurm, keyed
// "file/case", with the cause; each is in docs/COMPATIBILITY.md.
var preemptKnown = map[string]string{
	"partition_prio/cancel: a 3-node and a 1-node victim for a 2-node job":              batchHostRace,
	"partition_prio/grace: a cancel victim runs on for GraceTime":                       batchHostKillWait,
	"partition_prio/grace: a requeue victim runs on for GraceTime":                      batchHostKillWait,
	"partition_prio/grace: a second preemptor waits for the same victim":                batchHostKillWait,
	"qos/qos: grace time of the victim's QOS":                                           batchHostKillWait,
	"exempt/exempt: the spared job is preempted at a later pass":                        batchHostRace,
	"exempt/youngest_first: a 2-node victim started last goes before older 1-node ones": batchHostRace,
}

// Causes of the known differences, each confirmed from slurmctld's log:
// the scenario recorded again with its events (recorded-events, siftlab
// record -events) agrees replayed with each victim's nodes freed where
// the log shows their epilogs (TestPreemptionHandEpilogReplay), where
// sift's timers free a victim whole within the second.
const (
	// batchHostKillWait: the victim's script ignores SIGTERM (the
	// GraceTime scenarios); at the end of its grace time its other nodes'
	// epilogs report within 15 ms, its batch host's 4.7 s later (the
	// batch script ends after KillWait), and a backfill cycle between
	// them starts the preemptor on the nodes free. Recorded again, Slurm
	// answered alike.
	batchHostKillWait = "the victim's script ignores SIGTERM: after its grace time its batch host's epilog reports 4.7 s after its other nodes' (KillWait), and a backfill cycle between them starts the preemptor on the nodes free; sift frees the victim whole and takes the lowest"
	// batchHostRace: the batch host's epilog reports 14-29 ms after the
	// victim's other nodes'; in the committed recording a pass ran between
	// them. Recorded again, the main pass at the last epilog started the
	// preemptor on the lowest nodes, as sift does: a race.
	batchHostRace = "the victim's batch host's epilog reports 14-29 ms after its other nodes' and a pass ran between them, starting the preemptor on the nodes free (a race: recorded again, Slurm answered as sift)"
)

// TestPreemptionMatchesRealSlurm replays the recorded preemption scenarios
// through sched: every job's state, pending reason, nodes and restart count
// at each snapshot and at the end must be Slurm's.
func TestPreemptionMatchesRealSlurm(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(preemptRecordDir, "*.json"))
	if len(files) == 0 {
		t.Skip("no recorded preemption scenarios")
	}
	total, agree := 0, 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var rec preemptRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, c := range rec.Cases {
			key := base + "/" + c.Name
			total++
			if agreesOrKnown(t, key, replayPreempt(t, rec, c, nil), preemptKnown, "preemptKnown") {
				agree++
			}
		}
	}
	t.Logf("%d preemption scenarios: %d agree, %d known differences", total, agree, len(preemptKnown))
	fmt.Printf("%d preemption scenarios: %d agree, %d known differences\n", total, agree, len(preemptKnown))
}

// preemptQueue builds the queue a recording's slurm.conf and sacctmgr
// lines describe, as the scheduling replay does; with epilogs the caller
// reports each victim's node epilogs (Options.ReportEpilogs).
func preemptQueue(t *testing.T, rec preemptRecord, epilogs bool) (*sched.Queue, *index.Snapshot, string) {
	t.Helper()
	var race *epilogRelease
	if epilogs {
		race = &epilogRelease{}
	}
	q, cl, _, defPart, err := schedReplayQueue(rec.SlurmConf, rec.Sacctmgr, "", race)
	if err != nil {
		t.Fatal(err)
	}
	return q, cl.Snap, defPart
}

// sacctmgrQOS reads the QOS of "add qos NAME key=value ..." and "modify
// qos NAME set key=value ..." lines.
func sacctmgrQOS(text string) (map[string]sched.QOSPreempt, error) {
	out := map[string]sched.QOSPreempt{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[1] != "qos" || (f[0] != "add" && f[0] != "modify") {
			continue
		}
		qp := out[f[2]]
		for _, kv := range f[3:] {
			k, v, _ := strings.Cut(kv, "=")
			var err error
			switch strings.ToLower(k) {
			case "priority":
				var n uint64
				n, err = strconv.ParseUint(v, 10, 32)
				qp.Priority = uint32(n)
			case "preempt":
				qp.Preempt = strings.Split(v, ",")
			case "preemptmode":
				qp.Mode, qp.Flags, err = sched.ParsePreemptMode(v)
			case "gracetime":
				var n int
				n, err = strconv.Atoi(v)
				qp.GraceTime = time.Duration(n) * time.Second
			}
			if err != nil {
				return nil, fmt.Errorf("sacctmgr %q: %w", line, err)
			}
		}
		out[f[2]] = qp
	}
	return out, nil
}

// replayPreempt runs a case's steps on a fresh queue, ticking every second,
// and returns how the first differing job differs from Slurm ("" when all
// agree). With ep, each victim's nodes come free when slurmctld's log
// shows their epilogs (stepEpilogs), not whole within the second.
func replayPreempt(t *testing.T, rec preemptRecord, c preemptCase, ep *stepEpilogs) string {
	q, snap, defPart := preemptQueue(t, rec, ep != nil)
	now := int64(1_000_000)
	// slurmctld's pass timers decide when passes run (a job that
	// becomes eligible waits for the next one), as Tick models them.
	tick := func() {
		nodes := runningNodes(q)
		p := q.Tick(now)
		if ep != nil {
			ep.stopped(p.Preempted, nodes, now)
			ep.release(q, snap, now)
		}
	}
	// slurmctld has been up before the case: its timers run.
	tick()
	var ids []uint32 // per submission; 0 when Slurm refused it
	for _, st := range c.Jobs {
		switch {
		case st.Action == "snapshot":
			if d := comparePreempt(q, snap, ids, st.Snapshot); d != "" {
				return "snapshot: " + d
			}
			continue
		case strings.HasPrefix(st.Action, "sleep:"):
			s, _ := strconv.ParseFloat(strings.TrimPrefix(st.Action, "sleep:"), 64)
			for range int(s + 0.5) {
				now++
				tick()
			}
			continue
		case strings.HasPrefix(st.Action, "cancel:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(st.Action, "cancel:"))
			if id := ids[n-1]; id != 0 {
				if err := q.Finish(id, sched.Cancelled, now); err != nil {
					t.Fatal(err)
				}
			}
			tick()
			continue
		}
		id := uint32(len(ids) + 1)
		if st.Slurm.State == "REJECTED" {
			ids = append(ids, 0)
			continue
		}
		ids = append(ids, id)
		// slurmctld tries each submission at once (job_allocate) and
		// the recorder waits for its decision: a second for each.
		now++
		j, err := preemptJob(id, st.Spec, defPart)
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Submit(j, false, now); err != nil {
			return fmt.Sprintf("job %d: Slurm accepted it, sift refused: %v", id, err)
		}
		nodes := runningNodes(q)
		p := &sched.Pass{}
		q.AllocateAtSubmit(id, now, p)
		if ep != nil {
			ep.stopped(p.Preempted, nodes, now)
		}
		tick()
	}
	if c.After == nil {
		return "no after block"
	}
	return comparePreempt(q, snap, ids, c.After.Jobs)
}

// preemptJob is a case step's job: the spec of sift select with qos=,
// account= and no-requeue taken out.
func preemptJob(id uint32, spec, defPart string) (*sched.Job, error) {
	j := &sched.Job{ID: id, User: "lab", Name: "wrap"}
	var keep []string
	for _, item := range strings.Split(spec, ",") {
		switch {
		case strings.HasPrefix(item, "qos="):
			j.QOS = strings.TrimPrefix(item, "qos=")
		case strings.HasPrefix(item, "account="):
			j.Account = strings.TrimPrefix(item, "account=")
		case item == "no-requeue":
			j.NoRequeue = true
		default:
			keep = append(keep, item)
		}
	}
	req, err := job.ParseSpec(strings.Join(keep, ","))
	if err != nil {
		return nil, err
	}
	j.Request, j.TimeLimit = req, req.TimeLimit
	part := req.Partition
	if part == "" {
		part = defPart
	}
	j.Partitions = []string{part}
	return j, nil
}

// comparePreempt compares the submitted jobs with Slurm's view of them.
func comparePreempt(q *sched.Queue, snap *index.Snapshot, ids []uint32, want []preemptOutcome) string {
	k := 0
	for _, id := range ids {
		if id == 0 {
			continue
		}
		if k >= len(want) {
			return fmt.Sprintf("Slurm shows %d jobs, sift more", len(want))
		}
		w := want[k]
		k++
		j, _ := q.Job(id)
		got := preemptView(j, snap)
		exp := preemptWant(w)
		if got != exp {
			return fmt.Sprintf("job %d: sift %s, Slurm %s", id, got, exp)
		}
	}
	return ""
}

// preemptView is what the replay compares of a sift job.
func preemptView(j *sched.Job, snap *index.Snapshot) string {
	s := j.State.String()
	switch j.State {
	case sched.Pending:
		s += " " + j.ReasonText()
	case sched.Running, sched.Suspended, sched.Preempted:
		s += " " + hostlist.Compress(hostlist.Slurm, namesOf(snap, j.Nodes))
	}
	if j.Restarts > 0 {
		s += fmt.Sprintf(" restarts=%d", j.Restarts)
	}
	return s
}

// preemptWant is the same view of Slurm's answer.
func preemptWant(o preemptOutcome) string {
	s := o.State
	switch o.State {
	case "PENDING":
		s += " " + o.Reason
	case "RUNNING", "SUSPENDED", "PREEMPTED":
		s += " " + o.Nodes
	}
	if o.Restarts > 0 {
		s += fmt.Sprintf(" restarts=%d", o.Restarts)
	}
	return s
}

// preemptRandomDir holds the random preemption scenarios (siftlab
// preemptgen): jobs started one by one, then a queue released at once.
const preemptRandomDir = "../../lab/slurm/sched/preempt/random"

// preemptRandomKnown are the random preemption scenarios where sift
// differs from Slurm, keyed "FILE.json/CASE", with the cause; each is in
// docs/COMPATIBILITY.md.
var preemptRandomKnown = map[string]string{
	"preempt-1-01.json/p1-01-01": epilogOrder,
	"preempt-1-01.json/p1-01-02": epilogOrder,
	"preempt-1-01.json/p1-01-04": epilogOrder,
	"preempt-1-01.json/p1-01-05": epilogOrder,
	"preempt-1-01.json/p1-01-06": epilogOrder,
	"preempt-1-01.json/p1-01-07": epilogOrder,
	"preempt-1-01.json/p1-01-08": epilogOrder,
	"preempt-1-01.json/p1-01-09": epilogOrder,
	"preempt-1-01.json/p1-01-10": epilogOrder,
	"preempt-1-02.json/p1-02-07": epilogOrder,
	"preempt-1-04.json/p1-04-01": epilogOrder,
	"preempt-1-04.json/p1-04-03": epilogOrder,
	"preempt-1-04.json/p1-04-04": epilogOrder,
	"preempt-1-05.json/p1-05-01": epilogOrder,
	"preempt-1-05.json/p1-05-02": epilogOrder,
	"preempt-1-05.json/p1-05-03": epilogOrder,
	"preempt-1-05.json/p1-05-04": epilogOrder,
	"preempt-1-05.json/p1-05-06": epilogOrder,
	"preempt-1-05.json/p1-05-07": epilogOrder,
	"preempt-1-05.json/p1-05-10": epilogOrder,
	"preempt-1-06.json/p1-06-01": epilogOrder,
	"preempt-1-06.json/p1-06-02": epilogOrder,
	"preempt-1-06.json/p1-06-03": epilogOrder,
	"preempt-1-06.json/p1-06-06": epilogOrder,
	"preempt-1-06.json/p1-06-07": epilogOrder,
	"preempt-1-06.json/p1-06-09": epilogOrder,
	"preempt-1-08.json/p1-08-09": epilogOrder,
	"preempt-1-10.json/p1-10-06": epilogOrder,
	"preempt-1-10.json/p1-10-10": epilogOrder,
	"preempt-1-11.json/p1-11-01": epilogOrder,
	"preempt-1-11.json/p1-11-02": epilogOrder,
	"preempt-1-11.json/p1-11-05": epilogOrder,
	"preempt-1-11.json/p1-11-06": epilogOrder,
	"preempt-1-11.json/p1-11-07": epilogOrder,
	"preempt-1-11.json/p1-11-08": epilogOrder,
	"preempt-1-11.json/p1-11-09": epilogOrder,
	"preempt-1-11.json/p1-11-10": epilogOrder,
	"preempt-2-01.json/p2-01-07": epilogOrder,
	"preempt-2-02.json/p2-02-04": epilogOrder,
	"preempt-2-02.json/p2-02-09": epilogOrder,
	"preempt-2-03.json/p2-03-01": epilogOrder,
	"preempt-2-03.json/p2-03-02": epilogOrder,
	"preempt-2-03.json/p2-03-03": epilogOrder,
	"preempt-2-03.json/p2-03-06": epilogOrder,
	"preempt-2-03.json/p2-03-07": epilogOrder,
	"preempt-2-03.json/p2-03-08": backfillCores,
	"preempt-2-03.json/p2-03-09": epilogOrder,
	"preempt-2-03.json/p2-03-10": epilogOrder,
	"preempt-2-04.json/p2-04-02": epilogOrder,
	"preempt-2-04.json/p2-04-03": epilogOrder,
	"preempt-2-04.json/p2-04-05": epilogOrder,
	"preempt-2-04.json/p2-04-06": epilogOrder,
	"preempt-2-04.json/p2-04-08": epilogOrder,
	"preempt-2-05.json/p2-05-01": epilogOrder,
	"preempt-2-05.json/p2-05-02": epilogOrder,
	"preempt-2-05.json/p2-05-03": epilogOrder,
	"preempt-2-05.json/p2-05-04": epilogOrder,
	"preempt-2-05.json/p2-05-05": epilogOrder,
	"preempt-2-05.json/p2-05-06": epilogOrder,
	"preempt-2-05.json/p2-05-10": epilogOrder,
	"preempt-3-48.json/p3-48-06": epilogOrder,
}

// Causes of the known random preemption differences.
const (
	// epilogOrder: without GANG, a killed or requeued victim's nodes
	// come free one by one as their epilogs report (its batch host
	// last), a main pass runs when a job's last epilog has, and the other
	// passes run between them: which nodes are free at each pass is a
	// race, where sift's timers free a victim whole within the second and
	// run one main pass (batchHostKillWait and batchHostRace in the hand-written
	// scenarios). Each of these cases was recorded again with
	// slurmctld's log (siftlab record -events, preemptEventsDir): replayed
	// in the order the log shows, every job agrees with Slurm, and Slurm's
	// answer to the same input changed from this recording's, or sift's
	// timers get that recording wrong too
	// (TestPreemptionEpilogOrderReplay checks both).
	epilogOrder = "victims' nodes come free one by one as their epilogs report and slurmctld's passes run between them (a race): recorded again with its log, replayed in its order, every job agrees"
	// backfillCores: p2-03-08 (cons_tres, CR_Core): recorded again,
	// Slurm answered otherwise (a race), but replayed in its recorded
	// order sift still differs: every main pass agrees up to the first
	// backfill cycle, where job 677 (ntasks=1) goes on n18 in sift and on
	// n1 in Slurm, both with free cores, and the cycle's later jobs follow
	// (615 on n[35,39-40] in sift, pending in Slurm). Cause not found: in
	// sift n18 has one core left, so best fit takes it; if Slurm laid the
	// 16 tasks of 637 out otherwise on n[16-18], n18 was full; but
	// recorded three more times with every running job's cores per
	// node (p2-03-08-layout1..3), Slurm answered three other ways and
	// sift agrees with each, to the core, so the layout is not it.
	backfillCores = "cons_tres backfill places a one-task job on another node than Slurm after the preemptions (recorded again: a race, but its order does not reproduce it; three more recordings with each job's cores per node agree to the core; cause not found)"
)

// TestPreemptionMatchesRealSlurmRandom replays the random preemption
// scenarios as the scheduling replay does (TestSchedulingRecordingsReplay),
// the jobs started before the queue's release included: which jobs run,
// are suspended or were preempted, on which nodes, each pending job's
// reason and each job's restarts must be Slurm's.
func TestPreemptionMatchesRealSlurmRandom(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(preemptRandomDir, "*.json.gz"))
	if len(paths) == 0 {
		t.Skip("no random preemption recording present")
	}
	cases, agree, known := replaySchedFiles(t, paths, preemptRandomKnown, "preemptRandomKnown")
	t.Logf("%d random preemption scenarios: %d agree, %d known differences", cases, agree, known)
	fmt.Printf("%d random preemption scenarios: %d agree, %d known differences\n", cases, agree, known)
}
