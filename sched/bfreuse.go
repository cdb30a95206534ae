package sched

import (
	"math"

	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// bfReuse is what a backfill pass leaves for the next ones to reuse
// (Options.ReusePasses): while nothing changes (clock.changes), the queue's
// records are the same and the clock stays before until, every decision
// of a pass at a later now is the one this pass made, so the pass stands
// for it: its planned starts are absolute times and stay on the jobs.
type bfReuse struct {
	ok      bool
	at      int64
	until   int64
	changes uint64
	recs    []record
	exit    string
	tested  int
	// reserved counts the pass's reservations; each one is a change of
	// the pass's own (last_job_update), which reuse repeats.
	reserved int
	// reused counts the passes the queue did not run again.
	reused int
}

// reuseAllowed reports whether the queue's settings let a pass's decisions
// depend on now only through the comparisons BackfillPass bounds with
// until: no hook reads the clock, no advance reservation or preemption,
// bf_min_age_reserve off (it compares a job's age with now), the wall
// clock unused (bf_max_time then counts tests), and a select plugin whose
// will-run starts are absolute (job.AbsolutePlans).
func (q *Queue) reuseAllowed() bool {
	if !q.opt.ReusePasses || q.opt.Limits != nil || q.opt.Priority != nil || q.opt.WallClock != nil || q.opt.Yield != nil ||
		q.opt.Preempt.enabled() || q.traced != nil || len(q.resvs) > 0 || q.cfg.BFMinAgeReserve > 0 {
		return false
	}
	a, ok := q.plugin.(job.AbsolutePlans)
	return ok && a.AbsolutePlans()
}

// reuseBackfill stands the last pass in for a backfill pass at now when it
// may (bfReuse), and reports whether it did. The queue is built as the
// pass would build it (its reasons and eligibility are set the same way),
// and must give the last pass's records.
func (q *Queue) reuseBackfill(now int64, p *Pass) bool {
	r := &q.bfLast
	if !r.ok || now <= r.at || now >= r.until || q.clock.changes != r.changes || !q.reuseAllowed() {
		return false
	}

	recs := q.buildQueue(now, false, true)
	if len(recs) != len(r.recs) {
		r.ok = false
		return false
	}
	for i, rec := range recs {
		if rec != r.recs[i] {
			r.ok = false
			return false
		}
	}
	q.passNow = now
	r.reused++
	p.BackfillExit = r.exit
	p.BackfillTested += r.tested
	p.Reserved += r.reserved
	if r.reserved > 0 {
		q.clock.update = now
	}
	return true
}

// reuseTrack follows a backfill pass for bfReuse: until is lowered to the
// first later now at which one of the pass's comparisons with the clock
// could go the other way; nowDep marks a decision that depends on now
// itself (a job tested to start now).
type reuseTrack struct {
	on     bool
	until  int64
	nowDep bool
}

// startTrack begins following a pass at now over a map of resolution res
// and window seconds. Will-run answers are the ends of running jobs, the
// same until the first of them; with bf_running_job_reserve the running
// jobs are reserved from the map's begin, now rounded down to res. The
// pass itself lowers until where it compares with now (BackfillPass).
func (q *Queue) startTrack(now, window, res int64) reuseTrack {
	if !q.reuseAllowed() {
		return reuseTrack{}
	}
	t := reuseTrack{on: true, until: math.MaxInt64}
	if q.cfg.BFRunningJobReserve {
		// The running jobs are reserved from the map's first slot, which
		// begins at now rounded down to res.
		t.lower((now/res + 1) * res)
	}
	re := q.runningByEnd()
	if len(re) > 0 {
		if re[0].End <= now {
			// A job past its end: will-run answers move with now.
			return reuseTrack{}
		}
		t.lower(re[0].End)
	}
	return t
}

// answerBegin is the first begin after end of a slot that would change
// what a backfill round reads of usable's answer (avail, later) for a
// window ending there instead of at end, 0 if none. The slots beginning
// after end, as the window's end reaches them, narrow avail, which they do
// not if they hold all of it; a short round (too few nodes in avail, or
// not its required ones) stays short as avail narrows, and reads only
// later. later is the end of the first slot from the window's start after
// which a node frees, else the end of the one after the first slot past the
// window: it does not move when the first was found by then, or when no
// slot follows the first past the window.
func (ns *nodeSpace) answerBegin(avail bitset.Set, end, later int64, short bool) int64 {
	ns.ordered()
	k := ns.from(end)
	for k < len(ns.order) && ns.s[ns.order[k]].begin <= end {
		k++
	}
	if k == len(ns.order) {
		return 0
	}
	found := later != 0 && later <= ns.s[ns.order[k]].end
	lo, hi := avail.Span()
	for ; k < len(ns.order); k++ {
		s := &ns.s[ns.order[k]]
		if (!found && k+1 < len(ns.order)) || (!short && !avail[lo:hi].SubsetOf(s.avail[lo:hi])) {
			return s.begin
		}
	}
	return 0
}

// lower makes until at most t.
func (t *reuseTrack) lower(at int64) {
	if t.on {
		t.until = min(t.until, at)
	}
}

// finishTrack records the pass at now for reuse: tested and reserved are
// its counts, exit why it stopped, starts the jobs it started.
func (q *Queue) finishTrack(t *reuseTrack, now int64, recs []record, exit string, tested, reserved, starts int) {
	r := &q.bfLast
	r.ok = t.on && !t.nowDep && starts == 0 && t.until > now
	if !r.ok {
		return
	}
	r.at, r.until, r.changes = now, t.until, q.clock.changes
	r.recs = append(r.recs[:0], recs...)
	r.exit, r.tested, r.reserved = exit, tested, reserved
}
