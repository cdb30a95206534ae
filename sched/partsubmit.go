package sched

import "github.com/nodesift/sift/select/job"

// slurmMessage is an error whose text is Slurm's own message.
type slurmMessage string

func (m slurmMessage) Error() string { return string(m) }

// ErrBadTaskCount refuses a job with fewer tasks than nodes, after its
// minimum node count was raised to its partition's MinNodes (Slurm's
// ESLURM_BAD_TASK_COUNT, worded as sbatch prints it).
var ErrBadTaskCount error = slurmMessage("Task count specification invalid")

// ErrNodeConfigUnavailable refuses a job that can never run
// (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, worded as sbatch prints it).
var ErrNodeConfigUnavailable error = slurmMessage("Requested node configuration is not available")

// fitsNodeLimit is the submit-time test-only selection of job_allocate
// under the limits' node clamp: false when a NodeLimiter bounds the job's
// nodes and in none of its partitions does the job fit on that many,
// however idle. A job the limits hold before selection, or whose minimum
// is already above the bound, is not refused here (it pends with the
// limit's reason).
func (q *Queue) fitsNodeLimit(e *entry, now int64) bool {
	nl, ok := q.opt.Limits.(NodeLimiter)
	if !ok {
		return true
	}
	limit := nl.MaxNodes(e.j)
	if limit <= 0 {
		return true
	}
	// select_nodes checks the limits before the node counts: a job they
	// hold pends (ESLURM_ACCOUNTING_POLICY) instead.
	if ok, _, _ := q.opt.Limits.PreSelect(e.j, now); !ok {
		return true
	}
	for _, p := range e.j.Partitions {
		pr := e.parts[p]
		if pr == nil || pr.err != nil {
			return true
		}
		rq := *pr.req
		minN, _, _ := rq.NodeCounts(0)
		if minN > limit {
			return true
		}
		if rq.MaxNodes <= 0 || rq.MaxNodes > limit {
			rq.MaxNodes = limit
		}
		if _, err := q.plugin.Select(&rq, pr.cands.Clone(), job.TestOnly, now); err == nil {
			return true
		}
	}
	return false
}

// raiseMinNodes is _valid_job_part's node-count adjustment at submit,
// without EnforcePartLimits: a job that gave no minimum node count gets
// its partitions' MinNodes (the least of them), and one whose minimum is
// below it gets it when its maximum allows, unless its QOS has the
// PartitionMinNodes flag.
func (q *Queue) raiseMinNodes(j *Job) {
	partMin := 0
	for i, p := range j.Partitions {
		m := q.opt.Partitions[p].MinNodes
		if i == 0 || m < partMin {
			partMin = m
		}
	}
	if partMin <= 1 || j.Request == nil {
		return
	}
	if pe, ok := q.opt.Limits.(PartitionExempt); ok {
		if _, _, exMin := pe.PartitionExempt(j); exMin {
			return
		}
	}
	r := j.Request
	if r.MinNodes < partMin && (r.MaxNodes <= 0 || r.MaxNodes >= partMin) {
		r.MinNodes = partMin
	}
}

// taskCountValid is _job_create's test after the limits: a job may not
// have fewer tasks than its minimum node count.
func taskCountValid(j *Job) bool {
	r := j.Request
	return r == nil || r.NTasks <= 0 || r.NTasks >= r.MinNodes
}
