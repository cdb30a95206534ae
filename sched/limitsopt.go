package sched

// Optional interfaces a Limits hook may implement, for what the limits
// know beyond the three acct_policy call sites.

// PartitionExempt is implemented by a Limits hook that knows a job's QOS:
// which of a partition's limits the job's own QOS lifts with its flags
// PartitionTimeLimit, PartitionMaxNodes and PartitionMinNodes, as
// _qos_part_check does in job_limits_check (the partition's QOS is not
// asked there).
type PartitionExempt interface {
	PartitionExempt(j *Job) (time, maxNodes, minNodes bool)
}

// Accruer is implemented by a Limits hook that counts the pending jobs
// accruing age priority (GrpJobsAccrue, MaxJobsAccrue...). At the start
// of each pass the queue calls HandleAccrue for every job in queue order,
// as build_job_queue calls acct_policy_handle_accrue_time: pending says
// the job is pending, eligible that it may accrue (not held, dependencies
// met, begin time reached; it became so at Job.Eligible).
type Accruer interface {
	HandleAccrue(j *Job, pending, eligible bool, now int64)
}

// PrioThresholder is implemented by a Limits hook that knows a job's
// MinPrioThreshold (acct_policy_get_prio_thresh): when it is not 0 it
// replaces bf_min_prio_reserve for the job.
type PrioThresholder interface {
	PrioThreshold(j *Job) uint32
}

// NodeLimiter is implemented by a Limits hook that knows the most nodes a
// job's limits let it use (acct_policy_get_max_nodes; 0: no limit).
// select_nodes clamps the job's maximum node count to it (get_node_cnts),
// so at submit a job that cannot fit within it is refused as one that
// can never run.
type NodeLimiter interface {
	MaxNodes(j *Job) int
}

// prioReserve is the job's priority reserve: its MinPrioThreshold, else
// bf_min_prio_reserve (def).
func (q *Queue) prioReserve(j *Job, def uint32) uint32 {
	if pt, ok := q.opt.Limits.(PrioThresholder); ok {
		if v := pt.PrioThreshold(j); v > 0 {
			return v
		}
	}
	return def
}

// accrue hands a job to the hook's accrue counting, if it has one.
func (q *Queue) accrue(j *Job, eligible bool, now int64) {
	if a, ok := q.opt.Limits.(Accruer); ok {
		a.HandleAccrue(j, j.State == Pending, eligible, now)
	}
}
