package sched

import (
	"fmt"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/candidate"
)

// Explanation is one test of a traced job by a pass: the candidate chain
// with the pass's own stages after node state, and what came of it.
type Explanation struct {
	// Pass is "main" or "backfill"; Partition the queue record's.
	Pass, Partition string
	// From and To are the window a backfill round tested (0 for main).
	From, To int64
	// Chain is the job's candidate chain with the pass's masks.
	Chain *candidate.Result
	// Outcome is the job's state and reason after the test.
	Outcome string
}

// Trace makes the passes record an Explanation each time they test job
// id (see Explanations). It costs one chain build per test of that job.
func (q *Queue) Trace(id uint32) {
	if q.traced == nil {
		q.traced = map[uint32][]Explanation{}
	}
	if _, ok := q.traced[id]; !ok {
		q.traced[id] = []Explanation{}
	}
}

// Explanations are the tests recorded for a traced job, oldest first.
func (q *Queue) Explanations(id uint32) []Explanation { return q.traced[id] }

// explain records a test of e's job in part with mask, if it is traced;
// it returns the index of the record, -1 when not traced.
func (q *Queue) explain(e *entry, pass, part string, from, to int64, mask candidate.Mask) int {
	list, ok := q.traced[e.j.ID]
	if !ok {
		return -1
	}
	pr := e.part(part)
	masks := []candidate.Mask{mask}
	if m, ok := q.resvMask(e, part, from, to); ok {
		masks = []candidate.Mask{m, mask}
	}
	res, err := candidate.Build(candidate.Input{Cluster: q.cl, Request: pr.req, Programs: e.progs, Masks: masks})
	if err != nil {
		return -1
	}
	q.traced[e.j.ID] = append(list, Explanation{Pass: pass, Partition: part, From: from, To: to, Chain: res})
	return len(list)
}

// explainMain is explain for the main pass's test of e's job in part on
// the nodes avail. Most queues trace no job: the mask, built for every
// record of every pass, is built only when one is.
func (q *Queue) explainMain(e *entry, part string, avail *roaring.Bitmap) int {
	if q.traced == nil {
		return -1
	}
	return q.explain(e, "main", part, 0, 0, mainMask(avail))
}

// explained sets the outcome of record i of job j.
func (q *Queue) explained(j *Job, i int) {
	if i < 0 {
		return
	}
	out := j.State.String()
	switch {
	case j.State == Running:
		out += fmt.Sprintf(" on %d nodes", j.Nodes.GetCardinality())
	case j.Start > 0:
		out += fmt.Sprintf(" (%s), expected start %s", j.ReasonText(), clockText(j.Start))
	default:
		out += " (" + j.ReasonText() + ")"
	}
	q.traced[j.ID][i].Outcome = out
}

// mainMask is the main pass's availability stage.
func mainMask(avail *roaring.Bitmap) candidate.Mask {
	return candidate.Mask{Name: "availability", Reason: "withheld this pass for higher-priority jobs (blocked partitions, node lists)", Nodes: avail}
}

// slotMask is a backfill round's stage: the nodes free in every time slot
// of the window.
func slotMask(avail *roaring.Bitmap, from, to int64) candidate.Mask {
	return candidate.Mask{Name: "time slots", Detail: clockText(from) + " to " + clockText(to), Reason: "reserved for higher-priority jobs in the window", Nodes: avail}
}

// clockText is a Unix time as squeue prints it (UTC).
func clockText(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02T15:04:05") }

// explainRest fills the outcomes a pass left open: a job's last open test
// gets its state after the pass, earlier ones were retried later.
func (q *Queue) explainRest() {
	for id, list := range q.traced {
		last := -1
		for i := range list {
			if list[i].Outcome == "" {
				list[i].Outcome = "retried later"
				last = i
			}
		}
		if last >= 0 {
			if e, ok := q.jobs[id]; ok {
				q.explained(e.j, last)
			}
		}
	}
}

// resvMask is the advance reservations' stage of a test of e's job in part
// over [from, to] (the main pass: from the pass's time for the job's
// limit): the nodes job_test_resv leaves it; false when no reservation
// concerns it.
func (q *Queue) resvMask(e *entry, part string, from, to int64) (candidate.Mask, bool) {
	if len(q.resvs) == 0 {
		return candidate.Mask{}, false
	}
	start, dur := from, to-from
	if from == 0 {
		start, dur = q.passNow, limitSeconds(e.part(part).req.TimeLimit)
	}
	allowed, _, rc, _ := q.resvTest(e, part, start, dur, false)
	m := candidate.Mask{Name: "reservations", Detail: clockText(start) + " to " + clockText(start+dur), Nodes: allowed}
	switch {
	case e.j.Reservation != "" && rc != resvOK:
		m.Reason, m.Nodes = "reservation "+e.j.Reservation+" not usable then", roaring.New()
	case e.j.Reservation != "":
		m.Reason = "outside reservation " + e.j.Reservation + ", or held by another one then"
	case rc == resvMaint:
		m.Reason, m.Nodes = "a MAINT reservation covers the partition then", roaring.New()
	case rc == resvBusy:
		m.Reason, m.Nodes = "the node list meets a reservation then", roaring.New()
	case allowed == nil:
		return candidate.Mask{}, false
	default:
		m.Reason = "held by advance reservations then"
	}
	return m, true
}
