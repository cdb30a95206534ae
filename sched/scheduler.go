package sched

// Scheduler is the seed's sched plugin API in Go: slurm_sched_plugin_schedule,
// _initial_priority, _job_is_pending, _partition_change and _reconfig, with
// typed errors in place of errno and strerror.
type Scheduler interface {
	// Name is the plugin's minor type: builtin, backfill or external.
	Name() string
	// Schedule runs one scheduling pass over q at now: the main pass, then
	// the plugin's own work (start-time estimates, backfill).
	Schedule(q *Queue, now int64) (*Pass, error)
	// InitialPriority is the priority of a new job. The seed calls its
	// argument max_prio; slurmctld really passes the lowest priority given
	// so far (job_mgr.c lowest_prio, starting at 0xffff0000), which is what
	// the queue passes. 0 holds the job.
	InitialPriority(maxPrio uint32) uint32
	// JobIsPending notes that some job is pending.
	JobIsPending(q *Queue)
	// PartitionChange notes that partitions changed.
	PartitionChange(q *Queue)
	// Reconfig re-reads q's configuration.
	Reconfig(q *Queue) error
}

// Pass is what one scheduling pass did.
type Pass struct {
	// Started are the jobs started, in order.
	Started []uint32
	// MainTested and BackfillTested count the queue records the main pass
	// and the backfill pass examined; Reserved the jobs backfill reserved.
	MainTested, BackfillTested, Reserved int
	// MainExit and BackfillExit say why each pass stopped.
	MainExit, BackfillExit string
	// BackfillStarted counts the last jobs of Started, those the backfill
	// pass started (the main pass's come first).
	BackfillStarted int
	// Preempted are the jobs preemption stopped, suspended or signalled
	// (a grace time began), in order.
	Preempted []PreemptEvent
}

// topPriority is job_mgr.c's TOP_PRIORITY, where FIFO priorities start.
const topPriority = 0xffff0000

// fifoPriority is priority/basic's FIFO rule (priority_p_set): one below
// the lowest priority so far, never below 1.
func fifoPriority(last uint32) uint32 {
	if last >= 2 {
		return last - 1
	}
	return 1
}

// Builtin is sched/builtin: the main pass starts jobs in strict priority
// order per partition; the plugin itself only estimates start times.
type Builtin struct{}

// Name implements Scheduler.
func (Builtin) Name() string { return "builtin" }

// Schedule implements Scheduler: a full main pass, then _compute_start_times.
func (Builtin) Schedule(q *Queue, now int64) (*Pass, error) {
	p := &Pass{}
	q.MainPass(now, true, p)
	q.estimateStarts(now)
	return p, nil
}

// InitialPriority implements Scheduler with FIFO priorities.
func (Builtin) InitialPriority(maxPrio uint32) uint32 { return fifoPriority(maxPrio) }

// JobIsPending implements Scheduler; sift runs passes when asked.
func (Builtin) JobIsPending(*Queue) {}

// PartitionChange implements Scheduler.
func (Builtin) PartitionChange(*Queue) {}

// Reconfig implements Scheduler.
func (Builtin) Reconfig(*Queue) error { return nil }

// Backfill is sched/backfill: the main pass, then _attempt_backfill.
type Backfill struct{}

// Name implements Scheduler.
func (Backfill) Name() string { return "backfill" }

// Schedule implements Scheduler.
func (Backfill) Schedule(q *Queue, now int64) (*Pass, error) {
	p := &Pass{}
	q.MainPass(now, true, p)
	n := len(p.Started)
	q.BackfillPass(now, p)
	p.BackfillStarted = len(p.Started) - n
	return p, nil
}

// InitialPriority implements Scheduler with FIFO priorities.
func (Backfill) InitialPriority(maxPrio uint32) uint32 { return fifoPriority(maxPrio) }

// JobIsPending implements Scheduler.
func (Backfill) JobIsPending(*Queue) {}

// PartitionChange implements Scheduler.
func (Backfill) PartitionChange(*Queue) {}

// Reconfig implements Scheduler.
func (Backfill) Reconfig(*Queue) error { return nil }

// External is the seed's wiki model: every job enters held (priority 0)
// and starts only when an outside controller releases it with
// Queue.Release, optionally naming its nodes.
type External struct{}

// Name implements Scheduler.
func (External) Name() string { return "external" }

// Schedule implements Scheduler: a main pass over the released jobs.
func (External) Schedule(q *Queue, now int64) (*Pass, error) {
	p := &Pass{}
	q.MainPass(now, true, p)
	return p, nil
}

// InitialPriority implements Scheduler: every job is held.
func (External) InitialPriority(uint32) uint32 { return 0 }

// JobIsPending implements Scheduler.
func (External) JobIsPending(*Queue) {}

// PartitionChange implements Scheduler.
func (External) PartitionChange(*Queue) {}

// Reconfig implements Scheduler.
func (External) Reconfig(*Queue) error { return nil }

// Schedule runs one pass of the queue's scheduler at now (its Schedule).
func (q *Queue) Schedule(now int64) (*Pass, error) { return q.sched.Schedule(q, now) }

// Scheduler is the queue's scheduler plugin.
func (q *Queue) Scheduler() Scheduler { return q.sched }
