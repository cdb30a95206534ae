package priority

import "github.com/nodesift/sift/limits"

// Job is what priority needs of a job.
type Job struct {
	ID            uint32
	User, Account string
	// Partitions are the job's partitions in its order; the first is the
	// one its priority (job_ptr->priority) is computed for, and sprio
	// prints a row for each.
	Partitions []string
	// QOS is the job's QOS name ("" for its association's default).
	QOS string
	// Submit is the submit time; Eligible when it became eligible
	// (details->begin_time: submit, its --begin, or when its dependencies
	// were satisfied; 0 while it is not).
	Submit, Eligible int64
	// Accrue is when its age starts counting (details->accrue_time; 0:
	// not accruing). Accrue.Update sets it as slurmctld does.
	Accrue int64
	// Held jobs (priority 0) and Dependent ones do not start accruing;
	// Running jobs are not pending.
	Held, Dependent, Running bool
	// Nice is sbatch --nice (may be negative); Site the site factor.
	Nice int32
	Site int64
	// Direct is a priority an administrator set (0: none): it is the
	// job's priority and its factors are not computed.
	Direct uint32
	// MinNodes is the minimum node count (0 taken as 1); CPUs the CPU
	// count Slurm sizes the job by (total_cpus once known, else
	// max_cpus, else min_cpus).
	MinNodes, CPUs uint32
	// TimeLimit is the time limit in minutes (limits.NoVal: none given).
	TimeLimit uint32
	// TRES is the job's TRES (allocated, else requested), for the TRES
	// factors.
	TRES limits.Vector

	assoc *limits.Assoc
	qos   *limits.QOS
	// node and part are the job's fair-share node and first partition,
	// looked up once by Bind.
	node *Node
	part *Partition
	// bound is the scheduler partition the hook last built the job for.
	bound string
	// accrueHeld marks the job as counted against accrue limits.
	accrueHeld bool
}
