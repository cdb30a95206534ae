package sched

// slurmMessage is an error whose text is Slurm's own message.
type slurmMessage string

func (m slurmMessage) Error() string { return string(m) }

// ErrBadTaskCount refuses a job with fewer tasks than nodes, after its
// minimum node count was raised to its partition's MinNodes (Slurm's
// ESLURM_BAD_TASK_COUNT, worded as sbatch prints it).
var ErrBadTaskCount error = slurmMessage("Task count specification invalid")

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
