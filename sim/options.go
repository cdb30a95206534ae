package sim

import (
	"fmt"
	"time"

	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
)

// Policy is the scheduler a simulation runs.
type Policy string

// The policies.
const (
	// FIFO is slurmctld's main pass alone: jobs start in strict priority
	// (here submit) order per partition, and a partition's first job that
	// does not fit blocks it. It is sched/builtin without the start-time
	// estimates, which change no decision and are skipped for speed.
	FIFO Policy = "fifo"
	// Builtin is sched/builtin: the main pass and its start-time estimates
	// every interval.
	Builtin Policy = "builtin"
	// Backfill is sched/backfill: the main pass and a backfill pass every
	// bf_interval when something changed.
	Backfill Policy = "backfill"
)

// Policies lists the policies by name.
var Policies = []Policy{FIFO, Builtin, Backfill}

// ParsePolicy reads a policy name.
func ParsePolicy(s string) (Policy, error) {
	for _, p := range Policies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown policy %q, expected fifo, builtin or backfill", s)
}

// Overrun is what happens to a job whose recorded run time is longer than
// its time limit.
type Overrun uint8

// The overrun rules.
const (
	// OverrunKill ends the job at its time limit (state TIMEOUT), as slurmctld
	// does with OverTimeLimit=0, hence as Slurm's own simulator does (it
	// runs the real slurmctld), and as Batsim does with a job's walltime.
	OverrunKill Overrun = iota
	// OverrunRun lets the job run its recorded time, as simulators that trust the
	// log's run time do: RLScheduler's HPCSim (DIR-LAB
	// deep-batch-scheduler) ends a job at scheduled_time + run_time and
	// uses the request only as the backfill estimate. sift's scheduler
	// still plans with the limit, so a reservation behind such a job may
	// start late.
	OverrunRun
)

// ParseOverrun reads "kill" or "run".
func ParseOverrun(s string) (Overrun, error) {
	switch s {
	case "kill":
		return OverrunKill, nil
	case "run":
		return OverrunRun, nil
	}
	return 0, fmt.Errorf("unknown overrun rule %q, expected kill or run", s)
}

// String is the rule's name.
func (o Overrun) String() string {
	if o == OverrunRun {
		return "run"
	}
	return "kill"
}

// Allocation is how a job's processors become a resource request.
type Allocation uint8

// The allocation rules.
const (
	// WholeNode gives a job whole nodes: its node count when the source
	// records one, else its processors over the CPUs of the partition's
	// first node, rounded up (sbatch --nodes=N --exclusive).
	WholeNode Allocation = iota
	// PerCPU asks for the job's processors as tasks of one CPU (sbatch
	// --ntasks=P, with --nodes=N when the source records it), so jobs
	// share nodes under select/cons_tres.
	PerCPU
)

// ParseAllocation reads "node" or "cpu".
func ParseAllocation(s string) (Allocation, error) {
	switch s {
	case "node":
		return WholeNode, nil
	case "cpu":
		return PerCPU, nil
	}
	return 0, fmt.Errorf("unknown allocation %q, expected node or cpu", s)
}

// String is the rule's name.
func (a Allocation) String() string {
	if a == PerCPU {
		return "cpu"
	}
	return "node"
}

// NodeEvent takes nodes down or brings them back up at Time (seconds from
// the trace's start). Jobs running on a node that goes down end in state
// NODE_FAIL, as slurmctld ends them without requeue.
type NodeEvent struct {
	Time  int64
	Nodes []string
	Down  bool
}

// Reservation is an advance reservation during a run (a maintenance
// window, say): from Start to End (seconds from the trace's start) no trace
// job runs on Nodes, or is planned there, as slurmctld keeps a reservation's
// nodes from the jobs that do not name it.
type Reservation struct {
	Name       string
	Start, End int64
	Nodes      []string
	Flags      sched.ResvFlags
}

// Options configure a simulation.
type Options struct {
	// Cluster and Plugin are the nodes and the select plugin over them;
	// the simulation changes both (they hold its running jobs), so each
	// run needs its own.
	Cluster *job.Cluster
	Plugin  job.Plugin
	// Partitions are the partitions' scheduling settings (as for
	// sched.Options); Partition is where every job is submitted.
	Partitions map[string]sched.Partition
	Partition  string
	// DefMemPerCPU and MaxMemPerCPU are the cluster's memory defaults.
	DefMemPerCPU, MaxMemPerCPU uint64
	// Policy is the scheduler; Config its SchedulerParameters.
	Policy Policy
	Config sched.Config
	// Allocation says how processors become a request; Overrun what
	// happens to a job that ran past its limit.
	Allocation Allocation
	Overrun    Overrun
	// NodeEvents take nodes down and up during the run.
	NodeEvents []NodeEvent
	// Reservations are made before the first job.
	Reservations []Reservation
	// Priority, when set, is the queue's priority plugin (see
	// sched.Options); without it jobs keep FIFO priorities.
	Priority sched.Priority
	// Preempt is the preemption configuration (as for sched.Options):
	// victims are cancelled, requeued or suspended as the queue says.
	Preempt sched.Preemption
	// WallClock, when set, times the run and every scheduler pass (for the
	// metrics only; no decision reads it). Tests leave it nil or pass a
	// fake so that every output is deterministic.
	WallClock func() time.Time
	// Observe, when set, is called before every Tick (p nil) and after it,
	// with the queue: how a test compares the passes with sift schedule.
	Observe func(now int64, q *sched.Queue, p *sched.Pass)
	// Progress, when set, is called now and then with the share of the
	// trace's jobs submitted so far (0 to 1).
	Progress func(done float64)
}
