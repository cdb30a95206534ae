package sched

import "time"

// budget is one pass's share of a time Slurm measures on the wall clock
// (max_sched_time, bf_max_time, bf_yield_interval). With the queue's
// WallClock (live use) it is that clock's time since the pass began; without
// one (simulation) it is counted: each unit of work adds its configured
// cost (SchedTestCost, BFTestCost) and each yield BFYieldSleep, so the same
// queue stops at the same point on every run. A cost of 0 counts nothing.
type budget struct {
	wall  func() time.Time
	start time.Time
	used  time.Duration // counted time, without a wall clock
	// yielded is the time at the last yield.
	yielded time.Duration
}

// newBudget starts a pass's budget.
func (q *Queue) newBudget() *budget {
	b := &budget{wall: q.opt.WallClock}
	if b.wall != nil {
		b.start = b.wall()
	}
	return b
}

// elapsed is the pass's time so far.
func (b *budget) elapsed() time.Duration {
	if b.wall != nil {
		return b.wall().Sub(b.start)
	}
	return b.used
}

// charge counts d of work (only without a wall clock, which measures it).
func (b *budget) charge(d time.Duration) {
	if b.wall == nil {
		b.used += d
	}
}

// over reports whether limit (0: none) is used up.
func (b *budget) over(limit time.Duration) bool {
	return limit > 0 && b.elapsed() >= limit
}

// yieldDue reports whether interval has passed since the last yield, and
// if so starts the next interval after sleep (counted, as Slurm's
// bf_max_time counts the time it sleeps with its locks released).
func (b *budget) yieldDue(interval, sleep time.Duration) bool {
	if interval <= 0 || b.elapsed()-b.yielded < interval {
		return false
	}
	b.charge(sleep)
	b.yielded = b.elapsed()
	return true
}
