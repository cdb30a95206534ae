package job

import (
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// Mode is what a select call is asked to decide (Slurm's SELECT_MODE_*).
type Mode uint8

// The job_test modes.
const (
	// RunNow chooses nodes for the job to start now.
	RunNow Mode = iota
	// TestOnly asks whether the job could ever run on the candidates,
	// ignoring current load.
	TestOnly
	// WillRun estimates the earliest start and the nodes the job would get,
	// as sbatch --test-only asks (job_start_data): a job with a node list
	// is tested on those nodes only, and one with ntasks and no maximum
	// node count asks for ntasks nodes.
	WillRun
	// Plan is the plain will-run of the select plugin, as backfill's
	// _try_sched asks it: on every candidate, for the minimum node count.
	Plan
)

// String names the mode as the CLI spells it.
func (m Mode) String() string {
	switch m {
	case RunNow:
		return "run-now"
	case TestOnly:
		return "test-only"
	case WillRun:
		return "will-run"
	case Plan:
		return "plan"
	}
	return "unknown"
}

// ParseMode reads a mode as the CLI spells it.
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "run-now":
		return RunNow, true
	case "test-only":
		return TestOnly, true
	case "will-run":
		return WillRun, true
	}
	return 0, false
}

// Distribution is how a job's CPUs are spread over a node's sockets.
type Distribution uint8

// Core distributions (Slurm's second -m field).
const (
	// Cyclic takes cores round-robin across sockets (Slurm's default).
	Cyclic Distribution = iota
	// Block fills each socket before the next.
	Block
)

// Unlimited is a TimeLimit with no end.
const Unlimited time.Duration = -1

// Request is a job's resource request, with Slurm's meaning for each field.
// Zero means "not given" for every count.
type Request struct {
	// ID identifies the job in a plugin's state.
	ID uint32
	// MinNodes, MaxNodes and ReqNodes are the minimum, maximum and desired
	// node counts; nodes=2-4 gives 2, 4, 4.
	MinNodes, MaxNodes, ReqNodes int
	// NTasks is the number of tasks; CPUsPerTask the CPUs of each.
	NTasks, CPUsPerTask int
	// NTasksPerNode fixes the tasks on every node.
	NTasksPerNode int
	// NTasksPerCore caps the tasks on each core (srun's
	// --ntasks-per-core): a core then offers at most NTasksPerCore x
	// cpus-per-task of its threads to the job.
	NTasksPerCore int
	// NTasksPerSocket caps the tasks on each socket (srun's
	// --ntasks-per-socket).
	NTasksPerSocket int
	// SocketsPerNode, CoresPerSocket and ThreadsPerCore are srun's
	// --sockets-per-node, --cores-per-socket and --threads-per-core: a node
	// must have that many of each, the job uses only sockets with that
	// many free cores, on nodes with that many such sockets, and at most
	// ThreadsPerCore CPUs of each core.
	SocketsPerNode, CoresPerSocket, ThreadsPerCore int
	// MinCPUsPerNode is slurmctld's pn_min_cpus when a memory limit raised
	// it above cpus-per-task x ntasks-per-node (job_mgr.c
	// _valid_pn_min_mem); 0 otherwise.
	MinCPUsPerNode int
	// MinCPUsTotal is slurmctld's min_cpus when that same rule set it
	// below ntasks x cpus-per-task (the raised cpus-per-task's CPUs over
	// the minimum node count); 0 otherwise.
	MinCPUsTotal int
	// MemPerNode and MemPerCPU are in MB; MemPerNodeSet distinguishes an
	// explicit mem=0 (the whole node) from no request.
	MemPerNode, MemPerCPU uint64
	MemPerNodeSet         bool
	// GPUsPerNode and GPUsPerJob count GPUs, of GPUType if it is not empty.
	GPUsPerNode, GPUsPerJob int
	GPUType                 string
	// Contiguous asks for consecutive node ids.
	Contiguous bool
	// Exclusive asks for whole nodes with no other job.
	Exclusive bool
	// OverSubscribe lets the job share cores or nodes with other jobs, up to
	// the partition's OverSubscribe count.
	OverSubscribe bool
	// Required and Excluded are node lists as the user wrote them.
	Required, Excluded string
	// RequiredSet and ExcludedSet are the node ids they resolve to (Resolve).
	RequiredSet, ExcludedSet *roaring.Bitmap
	// TimeLimit is the wall-clock limit; 0 means not given, Unlimited none.
	TimeLimit time.Duration
	// PlanEnd, when not zero, bounds a Plan answer (the end of backfill's
	// will_run_data_t, its later_start): cons_tres looks only at running
	// jobs ending by then, so a job that cannot start by then gets no
	// answer and backfill retries it from there.
	PlanEnd int64
	// Partition names the job's partition.
	Partition string
	// Priority orders jobs; higher is more important.
	Priority uint32
	// Preemptable lets higher-priority jobs preempt this one.
	Preemptable bool
	// PreemptCandidates, when not nil, are the running jobs this request
	// may preempt, in the order to try them (Slurm's preemptee_candidates
	// from the preempt plugin); the plugin then uses them instead of its
	// own rule (Preemptable jobs of lower priority). PreemptSuspend says
	// the candidates are suspended, keeping their memory, rather than
	// cancelled or requeued.
	PreemptCandidates []uint32
	PreemptSuspend    bool
	// Completing, when not nil, are nodes still completing (a preempted
	// job's epilog pending): a will-run on the nodes free now takes them
	// last, after every other node of the same weight (cons_tres
	// _set_sched_weight).
	Completing *roaring.Bitmap
	// PreemptAll makes a run-now test take every candidate out at once
	// and fit the job on what is left (the test of a preemption plan),
	// instead of taking them out one at a time until it fits.
	PreemptAll bool
	// Constraints are the node constraints; a node must satisfy all.
	Constraints []Constraint
	// Distribution is the core distribution inside a node (the second
	// field of Slurm's -m); CoreDistSet says the job gave one.
	Distribution Distribution
	CoreDistSet  bool
	// PlaneSize is the tasks per plane of -m plane=N; 0 for other node
	// distributions.
	PlaneSize int
}

// Constraint is one node constraint text in a sift language.
type Constraint struct {
	// Lang is "slurm" (extra=), "requires" (requires=) or "flux" (jobspec=).
	Lang string
	// Text is the constraint as the user wrote it.
	Text string
}

// MultiCore reports whether the job gives any of Slurm's per-socket,
// per-core or per-thread options (a multi_core_data record).
func (r *Request) MultiCore() bool {
	return r.NTasksPerCore > 0 || r.NTasksPerSocket > 0 || r.SocketsPerNode > 0 || r.CoresPerSocket > 0 || r.ThreadsPerCore > 0
}

// CPUsPerTaskOr1 is CPUsPerTask, at least 1.
func (r *Request) CPUsPerTaskOr1() int {
	if r.CPUsPerTask > 0 {
		return r.CPUsPerTask
	}
	return 1
}

// NodeCounts returns Slurm's (min, max, req) node counts for candidates
// nodes available: min is at least 1 and at least the nodes that
// ntasks/ntasks-per-node imply; max defaults to every candidate, or ntasks
// when fewer; req is the
// desired count, max when a range was given.
func (r *Request) NodeCounts(available int) (min, max, req int) {
	min = r.MinNodes
	if min < 1 {
		min = 1
	}
	if r.NTasks > 0 && r.NTasksPerNode > 0 {
		if n := (r.NTasks + r.NTasksPerNode - 1) / r.NTasksPerNode; n > min {
			min = n
		}
	}
	if r.RequiredSet != nil {
		if n := int(r.RequiredSet.GetCardinality()); n > min {
			min = n
		}
	}
	max = r.MaxNodes
	if max <= 0 {
		// job_mgr.c: without a maximum, a job with ntasks spans at most
		// one node per task.
		max = available
		if r.NTasks > 0 && r.NTasks < max {
			max = r.NTasks
		}
		if max < min {
			max = min
		}
	}
	req = r.ReqNodes
	if req < min {
		req = min
	}
	if req > max {
		req = max
	}
	return min, max, req
}

// MinCPUs is the fewest CPUs the job needs in all (Slurm's min_cpus).
func (r *Request) MinCPUs(minNodes int) int {
	if r.MinCPUsTotal > 0 {
		return r.MinCPUsTotal
	}
	cpt := r.CPUsPerTaskOr1()
	switch {
	case r.NTasks > 0:
		return r.NTasks * cpt
	case r.NTasksPerNode > 0:
		return r.NTasksPerNode * minNodes * cpt
	}
	return minNodes * cpt
}
