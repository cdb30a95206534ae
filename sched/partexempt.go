package sched

// PartitionExempt is implemented by a Limits hook that knows a job's QOS:
// which of a partition's limits the job's own QOS lifts with its flags
// PartitionTimeLimit, PartitionMaxNodes and PartitionMinNodes, as
// _qos_part_check does in job_limits_check (the partition's QOS is not
// asked there).
type PartitionExempt interface {
	PartitionExempt(j *Job) (time, maxNodes, minNodes bool)
}
