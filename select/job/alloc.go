package job

import (
	"errors"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
)

// NodeAlloc is what a job holds on one node.
type NodeAlloc struct {
	// ID is the node id.
	ID uint32
	// CPUs is the CPUs allocated; Cores the core numbers
	// (socket*cores_per_socket + core).
	CPUs  int
	Cores []int
	// MemoryMB is the memory allocated.
	MemoryMB uint64
	// GPUs is the GPUs allocated.
	GPUs int
}

// Allocation is a select plugin's answer for one job.
type Allocation struct {
	// Nodes are the chosen node ids.
	Nodes *roaring.Bitmap
	// PerNode details each chosen node in id order (cons_tres; linear gives
	// all CPUs and the memory of each node).
	PerNode []NodeAlloc
	// TotalCPUs is the CPUs the job holds in all.
	TotalCPUs int
	// Start is the start time (Unix seconds): now for RunNow, the estimate
	// for WillRun.
	Start int64
	// Preempted are the jobs that must be preempted for this allocation.
	Preempted []uint32
	// WholeNode is Slurm's job_resrcs whole_node WHOLE_NODE_REQUIRED: the
	// job holds its nodes whole (cons_tres with --exclusive or an
	// OverSubscribe=EXCLUSIVE partition; select/linear leaves it unset, as
	// Slurm's does).
	WholeNode bool
}

// Reasons a job cannot be satisfied.
var (
	// ErrBusy means the job could run on these nodes, but not now.
	ErrBusy = errors.New("resources are busy")
	// ErrNever means the job can never run on these nodes.
	ErrNever = errors.New("job can never run on the candidate nodes")
)

// Unsatisfied explains why a job got no nodes; it matches ErrBusy or
// ErrNever with errors.Is.
type Unsatisfied struct {
	// Never is true when no amount of waiting helps.
	Never bool
	// Reason says which requirement failed.
	Reason string
}

// Error says whether the job is busy now or never runnable, and why.
func (e *Unsatisfied) Error() string {
	if e.Never {
		return fmt.Sprintf("never runnable: %s", e.Reason)
	}
	return fmt.Sprintf("busy now: %s", e.Reason)
}

// Is makes errors.Is(err, ErrBusy or ErrNever) work.
func (e *Unsatisfied) Is(target error) bool {
	return (target == ErrNever && e.Never) || (target == ErrBusy && !e.Never)
}

// PreemptMode is how a preempted job gives its resources back.
type PreemptMode uint8

// Preemption modes.
const (
	// Requeue and Cancel free everything the victim holds.
	Requeue PreemptMode = iota
	Cancel
	// Suspend frees the victim's CPUs but keeps its memory.
	Suspend
)

// ErrNoJob is returned for a job id a plugin does not hold.
var ErrNoJob = errors.New("no such job")

// LifecycleError is a lifecycle call that would break a plugin's
// accounting, such as allocating a node or core twice; it changed nothing.
type LifecycleError struct {
	Plugin string // linear or cons_tres
	Op     string // begin, fini, suspend, resume, expand or resize
	Job    uint32
	Err    error
}

// Error names the plugin, the call, the job and the problem.
func (e *LifecycleError) Error() string {
	return fmt.Sprintf("%s: %s job %d: %v", e.Plugin, e.Op, e.Job, e.Err)
}

// Unwrap returns the problem.
func (e *LifecycleError) Unwrap() error { return e.Err }

// Preempts reports whether r may preempt running jobs: a plugin's own
// Preempt setting (enabled), or candidates the caller named.
func (r *Request) Preempts(enabled bool) bool {
	return enabled || r.PreemptCandidates != nil
}

// VictimsFreeMemory reports whether r's victims give their memory back
// (cancelled or requeued) rather than keep it (suspended); mode is the
// plugin's own setting, used when the caller named no candidates.
func (r *Request) VictimsFreeMemory(mode PreemptMode) bool {
	if r.PreemptCandidates != nil {
		return !r.PreemptSuspend
	}
	return mode != Suspend
}
