package sched

import "github.com/nodesift/sift/select/job"

// Limits is where [limits] plugs in: the three acct_policy call sites of
// slurmctld. With no Limits set, every job passes.
type Limits interface {
	// Validate is acct_policy_validate at submit: an error refuses the job.
	Validate(j *Job) error
	// PreSelect is acct_policy_job_runnable_pre_select, before nodes are
	// chosen: false keeps the job pending with the reason and detail.
	PreSelect(j *Job, now int64) (ok bool, r Reason, detail string)
	// PostSelect is acct_policy_job_runnable_post_select, with the nodes
	// chosen: false keeps the job pending with the reason and detail. A
	// nil allocation means no nodes could be chosen now: select_nodes
	// still checks the limits, with the request's counts, and a limit's
	// reason replaces Resources.
	PostSelect(j *Job, a *job.Allocation, now int64) (ok bool, r Reason, detail string)
	// Begin tells the limits a job started (or was added running, at its
	// start); End that a job left the queue: it ended, or was cancelled
	// while pending (usage and submit counts).
	Begin(j *Job, now int64)
	End(j *Job, now int64)
}

// Priority is where [priority] plugs in: it sets a new job's priority and
// refreshes pending ones. With none set, a job keeps the priority its
// record holds (or the scheduler's InitialPriority when it has none).
type Priority interface {
	// Set returns the priority of a job being submitted; last is the
	// priority the scheduler would give it (FIFO's max-1).
	Set(j *Job, last uint32, now int64) uint32
	// Refresh recomputes the priorities of pending jobs before a pass.
	Refresh(jobs []*Job, now int64)
}
