package sched

import "time"

// passClock is the state of slurmctld's pass timers (controller.c
// _slurmctld_background, job_scheduler.c _sched_agent, backfill.c
// backfill_agent, builtin.c builtin_agent).
type passClock struct {
	started                    bool
	lastFull, lastMain, lastBF int64
	lastEstimate               int64
	update                     int64 // last job, node or partition change
	// changes counts the changes of jobs, nodes, reservations and
	// configuration (not backfill's own plans): a backfill pass is reused
	// only while it stays the same.
	changes uint64
	// submitted counts the changes submissions made (continueBackfill),
	// ran those jobs starting and ending made (walkLogs.takeOver).
	submitted, ran uint64
	queued         int  // job_sched_cnt: passes asked with a delay
	immediate      bool // schedule(false) asked
	lastTick       int64
}

// resourceChanges counts the changes other than submissions: a submission
// adds a pending job and changes no running job, node, reservation or
// configuration, so no other job's selection.
func (c *passClock) resourceChanges() uint64 { return c.changes - c.submitted }

// otherChanges counts the changes other than submissions, starts and ends.
func (c *passClock) otherChanges() uint64 { return c.changes - c.submitted - c.ran }

func seconds(d time.Duration) int64 { return int64(d / time.Second) }

// Tick runs the passes slurmctld would have run by now, so a simulator
// calling it at every event and at least once a second runs the same
// passes: a full main pass every sched_interval (the first one interval
// after the first Tick, as after slurmctld starts); a main pass over
// default_queue_depth jobs when a submission has waited batch_sched_delay
// or a job ended; then, for backfill, a backfill pass every bf_interval if
// anything changed since the last one (_more_work), or for builtin its
// start-time estimates every interval. sched_min_interval (microseconds)
// is below the clock's resolution.
// maxEpilogPasses bounds the main passes one Tick runs for its victims'
// epilogs (a chain of preemptors, each waiting for the last one's
// victims).
const maxEpilogPasses = 64

func (q *Queue) Tick(now int64) *Pass {
	c := &q.clock
	p := &Pass{}
	q.releaseCompleting(now)
	q.graceEnds(now, p)
	if !c.started {
		c.started = true
		c.lastFull, c.lastMain, c.lastBF, c.lastEstimate = now, now, now, now
	}
	if q.resvBoundary(c.lastTick, now) {
		// A reservation started or ended: its nodes changed state.
		q.touch(now)
	}
	c.lastTick = now
	call, full := false, false
	if now-c.lastFull >= seconds(q.cfg.SchedInterval) {
		call, full = true, true
		c.queued = 0
		c.lastFull = now
	} else if c.queued > 0 && now-c.lastMain >= seconds(q.cfg.BatchSchedDelay) {
		call = true
		c.queued = 0
	}
	if c.immediate {
		call = true
		c.immediate = false
	}
	if call {
		c.lastMain = now
		q.MainPass(now, full, p)
	}
	// The victims a pass killed or requeued end within the second: each
	// epilog queues a main pass, which runs before the next backfill cycle
	// and starts their waiting preemptor (and may preempt for the next).
	for i := 0; i < maxEpilogPasses && len(q.completing) > 0 && !q.opt.ReportEpilogs; i++ {
		q.releaseCompleting(now + 1)
		c.immediate = false
		q.MainPass(now, false, p)
	}
	switch q.sched.(type) {
	case Backfill:
		if now-c.lastBF >= seconds(q.cfg.BFInterval) && c.update >= c.lastBF {
			n := len(p.Started)
			q.BackfillPass(now, p)
			p.BackfillStarted = len(p.Started) - n
			c.lastBF = now
		}
	case Builtin:
		if now-c.lastEstimate >= seconds(q.cfg.BuiltinInterval) {
			q.estimateStarts(now)
			c.lastEstimate = now
		}
	}
	return p
}

// NextTick is the earliest time after now at which Tick would run a pass if
// nothing changed meanwhile (no submission, end or node change; a
// reservation starting or ending is a change it foresees), so that a
// simulator can jump from event to event instead of ticking every second
// and still run the same passes. It is now+1 before the first Tick.
func (q *Queue) NextTick(now int64) int64 {
	c := &q.clock
	if !c.started || c.immediate {
		return now + 1
	}
	next := c.lastFull + seconds(q.cfg.SchedInterval)
	if c.queued > 0 {
		next = min(next, c.lastMain+seconds(q.cfg.BatchSchedDelay))
	}
	switch q.sched.(type) {
	case Backfill:
		if c.update >= c.lastBF {
			next = min(next, c.lastBF+seconds(q.cfg.BFInterval))
		}
	case Builtin:
		next = min(next, c.lastEstimate+seconds(q.cfg.BuiltinInterval))
	}
	if g := q.nextGraceEnd(); g > 0 {
		next = min(next, g)
	}
	if b := q.nextResvBoundary(now); b > now {
		next = min(next, b)
	}
	return max(next, now+1)
}

// NodesChanged notes that nodes changed state at now (slurmctld's
// last_node_update), which makes the next backfill pass due; the caller
// has updated the cluster's Usable and Down sets.
func (q *Queue) NodesChanged(now int64) { q.touch(now) }

// touch notes a change of jobs, nodes or reservations at now: it makes the
// next backfill pass due (_more_work) and ends the reuse of the last one.
func (q *Queue) touch(now int64) {
	q.clock.update = now
	q.clock.changes++
}
