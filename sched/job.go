package sched

import (
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/job"
)

// State is a job's state.
type State uint8

// Job states. Completed is Slurm's COMPLETE (exit code 0); Failed,
// Cancelled, Timeout and Preempted (killed by preemption) are the other
// finished states. Suspended is a job preemption stopped, holding its
// memory, until the gang scheduler resumes it.
const (
	Pending State = iota
	Running
	Completed
	Failed
	Cancelled
	Timeout
	Preempted
	Suspended
)

var stateNames = [...]string{"PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED", "SUSPENDED"}

// String is Slurm's name of the state.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "UNKNOWN"
}

// Finished reports whether the job has ended (Slurm's IS_JOB_COMPLETED).
func (s State) Finished() bool { return s >= Completed && s <= Preempted }

// DepKind is a dependency type of sbatch --dependency.
type DepKind uint8

// Dependency types.
const (
	// After: the other job has started (or was cancelled).
	After DepKind = iota
	// AfterAny: the other job has finished, whatever its state.
	AfterAny
	// AfterOK: the other job completed with exit code 0.
	AfterOK
	// AfterNotOK: the other job finished in another state.
	AfterNotOK
	// Singleton: no other job of the same name and user runs, nor an
	// earlier one of them pends.
	Singleton
)

var depNames = [...]string{"after", "afterany", "afterok", "afternotok", "singleton"}

// String is the sbatch spelling of the dependency type.
func (k DepKind) String() string {
	if int(k) < len(depNames) {
		return depNames[k]
	}
	return "unknown"
}

// Dependency is one term of a job's dependency list.
type Dependency struct {
	Kind DepKind
	// Job is the job depended on (none for Singleton).
	Job uint32
}

// Job is a job record.
type Job struct {
	// ID identifies the job; Name and User are what singleton compares.
	ID         uint32
	Name, User string
	// Account and QOS are handed to the Limits and Priority hooks.
	Account, QOS string
	// Reservation is the advance reservation the job runs in (sbatch
	// --reservation), empty for none.
	Reservation string
	// Partitions are the partitions the job may run in; Submit orders
	// them as slurmctld does (highest PriorityTier first, else as
	// given). The queue has one record per partition.
	Partitions []string
	// Priority orders the queue; 0 means held. HeldByUser says a held
	// job's reason is JobHeldUser rather than JobHeldAdmin.
	Priority   uint32
	HeldByUser bool
	// Nice is sbatch --nice, for the Priority hook.
	Nice int32
	// Submit is the submit time; Begin the earliest start (sbatch
	// --begin), 0 for none; Eligible when the job last became eligible
	// (Slurm's details->begin_time), set by the queue.
	Submit, Begin, Eligible int64
	// TimeLimit is the wall-clock limit (0: its first partition's
	// DefaultTime, and without one the partition it runs in decides:
	// DefaultTime or MaxTime from the main pass, MaxTime from backfill;
	// job.Unlimited: none); TimeMin the least it accepts (sbatch
	// --time-min), 0 for none.
	TimeLimit, TimeMin time.Duration
	// Deps are the dependencies; DepsAny joins them with "?" (any one
	// suffices) instead of "," (all must hold).
	Deps    []Dependency
	DepsAny bool
	// Request is the resource request with its constraints. Its Partition
	// is set per queue record.
	Request *job.Request

	// State is the job's state; Reason and ReasonDetail why it pends
	// (ReasonDetail is Slurm's state_desc, printed in place of the reason
	// when set).
	State        State
	Reason       Reason
	ReasonDetail string
	// Partition is where the job runs or last was considered.
	Partition string
	// Start and End are when a running job started and will end at its
	// limit; for a pending job Start is the expected start (0 unknown).
	Start, End int64
	// Nodes are a running job's nodes; PlannedNodes the nodes backfill
	// reserved for a pending one (Slurm's sched_nodes).
	Nodes, PlannedNodes *roaring.Bitmap
	// Alloc is the running job's allocation.
	Alloc *job.Allocation
	// NoRequeue is sbatch --no-requeue: preemption in REQUEUE mode kills
	// the job instead. Restarts counts its requeues (Slurm's restart_cnt).
	NoRequeue bool
	Restarts  int
	// PreemptTime is when preemption signalled the running job (0: not
	// preempted); it ends at End, after its grace time.
	PreemptTime int64

	// preemptStart is when the pending job last preempted jobs (Slurm's
	// preempt_start_time); preemptInProgress says it did in this pass, so
	// its other partitions are skipped.
	preemptStart      int64
	preemptInProgress bool

	// deps tracks the state of each dependency.
	depState []depState
	// reasonSets are the reason change counts of the queue holding the
	// job (Queue.reasonSets), nil before it joins one.
	reasonSets *reasonCounts
}

// ReasonText is the reason as squeue prints it: the detail when set, else
// the reason's name.
func (j *Job) ReasonText() string {
	if j.ReasonDetail != "" {
		return j.ReasonDetail
	}
	return j.Reason.String()
}

// setReason sets the job's reason and counts a change in its queue.
func (j *Job) setReason(r Reason, detail string) {
	if j.Reason == r && j.ReasonDetail == detail {
		return
	}
	j.Reason, j.ReasonDetail = r, detail
	if c := j.reasonSets; c != nil {
		c.changes++
		if r == ReasonReqNodeNotAvail {
			c.notAvail++
		}
	}
}

// reasonCounts counts the changes of a queue's jobs' reasons, and those
// to ReqNodeNotAvail, a reason the main pass reads (reuseMain).
type reasonCounts struct {
	changes, notAvail uint64
}
