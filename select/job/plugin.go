package job

import (
	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
)

// Plugin is what every select plugin (linear, cons_tres) offers: Slurm's
// select_p_job_test and the job lifecycle, over one cluster.
type Plugin interface {
	// Select chooses nodes for req among cand (the nodes its constraint and
	// partition allow, in any state; the plugin removes unusable ones) at
	// time now (Unix seconds). Failures are *Unsatisfied.
	Select(req *Request, cand *roaring.Bitmap, mode Mode, now int64) (*Allocation, error)
	// Begin records that req starts on a, preempting a.Preempted first.
	Begin(req *Request, a *Allocation) error
	// Fini releases everything job id holds.
	Fini(id uint32) error
	// Suspend and Resume stop and restart job id, releasing and taking back
	// its CPUs.
	Suspend(id uint32) error
	Resume(id uint32) error
	// Expand gives all of job from's resources to job to.
	Expand(from, to uint32) error
	// Resize removes node from job id.
	Resize(id, node uint32) error
	// Reserve chooses n nodes among cand for an advance reservation.
	Reserve(n int, cand *roaring.Bitmap) (*roaring.Bitmap, error)
	// Jobs lists the ids of the jobs the plugin holds, in increasing order.
	Jobs() []uint32
	// Held describes the jobs the plugin holds, in increasing id order.
	Held() []Held
	// SaveState writes the plugin's jobs to its state file in dir.
	SaveState(dir string, now int64) error
	// LoadState replaces the plugin's jobs with those of its state file in
	// dir; on any error the current state is left untouched. A missing file
	// is reported with fs.ErrNotExist.
	LoadState(dir string) error
}

// NodeSharer is offered by plugins that let jobs share a node
// (cons_tres): a node a sharing job holds stays shareable (Slurm's
// share_node_bitmap), so it does not make another sharing job's nodes busy.
type NodeSharer interface {
	SharesNodes() bool
}

// GangPlugin is offered by plugins that hold resources as Slurm's does
// under PreemptMode=SUSPEND,GANG with preempt/partition_prio: once
// SetGang(true) is called, Begin takes a job whose cores (select/linear:
// nodes) overlap jobs of other partitions (the gang scheduler suspends or
// preempts those of lower tiers), and the caller does not call Suspend or
// Resume for a job the gang scheduler suspends, which keeps its resources,
// as select_p_job_suspend keeps them for a suspension that is not
// indefinite.
type GangPlugin interface {
	SetGang(on bool)
}

// DenseWillRun is offered by plugins that answer a will-run test on dense
// candidates without building an Allocation, for backfill's many tests:
// the Start and Nodes of Select(req, cand, Plan, now), or its error.
// cand is not changed; nodes belong to the plugin and are valid until its
// next call. The plugin keeps no pointer to req after the call (backfill
// reuses one request for its retries).
type DenseWillRun interface {
	WillRunDense(req *Request, cand bitset.Set, now int64) (start int64, nodes bitset.Set, err error)
}

// AbsolutePlans is offered by plugins whose Plan answers (Select in
// job.Plan mode, WillRunDense) depend on now only as max(start, now) while
// every job they hold ends after now: the start is otherwise the end of a
// held job, so it is the same for any now before it. Backfill then reuses
// a pass the clock alone cannot change (sched.Options.ReusePasses).
type AbsolutePlans interface {
	AbsolutePlans() bool
}

// Held is one job a plugin holds, as its state file records it.
type Held struct {
	ID uint32
	// Nodes are the job's node ids, increasing.
	Nodes []uint32
	// Start and End are Unix seconds.
	Start, End int64
	Suspended  bool
}
