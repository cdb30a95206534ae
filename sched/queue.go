package sched

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/candidate"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/vm"
)

// PartitionState is a partition's State= in slurm.conf.
type PartitionState uint8

// Partition states.
const (
	// PartUp schedules and accepts jobs; PartDrain schedules but accepts
	// none; PartDown accepts but does not schedule; PartInactive neither.
	PartUp PartitionState = iota
	PartDrain
	PartDown
	PartInactive
)

// Partition is the scheduling part of a partition's configuration; its
// nodes, sharing and PriorityTier are in the select cluster.
type Partition struct {
	State PartitionState
	// MaxTime and DefaultTime are MaxTime= and DefaultTime= (0: none).
	MaxTime, DefaultTime time.Duration
	// MinNodes and MaxNodes are MinNodes= and MaxNodes= (0: none).
	MinNodes, MaxNodes int
	// PreemptMode is the partition's PreemptMode= (unset: the cluster's);
	// GraceTime its GraceTime= (preempt/partition_prio).
	PreemptMode PreemptMode
	GraceTime   time.Duration
}

// Options configures a Queue.
type Options struct {
	// Cluster and Plugin are the nodes and the select plugin over them.
	Cluster *job.Cluster
	Plugin  job.Plugin
	// Scheduler is the scheduler plugin (Builtin, Backfill or External);
	// nil means Builtin.
	Scheduler Scheduler
	// Config holds the SchedulerParameters knobs.
	Config Config
	// Partitions holds each partition's scheduling settings; a partition
	// not listed is up with no limits.
	Partitions map[string]Partition
	// DefMemPerCPU and MaxMemPerCPU are the cluster's memory defaults
	// (slurm.conf), applied per partition as slurmctld does.
	DefMemPerCPU, MaxMemPerCPU uint64
	// Preempt is the preemption configuration (PreemptType none: off).
	Preempt Preemption
	// PartitionOrder is the partitions in slurm.conf order, which breaks
	// ties of PriorityTier where preemption walks partitions (default:
	// by name).
	PartitionOrder []string
	// Limits and Priority are the optional hooks.
	Limits   Limits
	Priority Priority
	// WallClock, when set, is the live clock that max_sched_time,
	// bf_max_time, bf_yield_interval and cons_tres will-run's 2 s cap are
	// measured on (a live back end passes time.Now; the select plugin takes
	// its own). Scheduling decisions never read it; without it (simulation)
	// those times are counted (Config.SchedTestCost, BFTestCost).
	WallClock func() time.Time
	// Yield, when set, is called where slurmctld's backfill releases its
	// locks and sleeps (every bf_yield_interval of the pass's time): a live
	// back end serves its requests there, queueing their changes to the
	// Queue for after the pass (the pass is running), and reports what
	// changed. As in _yield_locks, the pass ends on changed partitions,
	// configuration or reservations, and on changed jobs or nodes unless
	// bf_continue.
	Yield func() YieldChanges
	// ReusePasses lets a backfill pass stand for the next one when nothing
	// changed in between and no decision of the pass depends on how far
	// the clock moved (see Queue.BackfillPass): a simulator, whose passes
	// mostly find the queue as the last one left it, sets it. Every change
	// must then come through the Queue's methods (NodesChanged for the
	// cluster's nodes).
	ReusePasses bool
	// ReportEpilogs says the caller reports, node by node, when the
	// epilog of a killed or requeued victim completes (EpilogComplete), as
	// slurmd reports each node's to slurmctld. Until then the node is
	// completing: no job starts on it. Unset, a pass's victims come free
	// whole within the second, before the main pass that follows them
	// (Tick).
	ReportEpilogs bool
}

// YieldChanges is what changed while a backfill pass yielded.
type YieldChanges struct {
	Jobs, Nodes, Partitions, Config, Reservations bool
}

// stops is _yield_locks' answer: whether the pass must end.
func (c YieldChanges) stops(bfContinue bool) bool {
	return (!bfContinue && (c.Jobs || c.Nodes)) || c.Partitions || c.Config || c.Reservations
}

// Queue is the controller's job table: every job, the select plugin
// holding the running ones, and the scheduler that runs the passes.
type Queue struct {
	opt    Options
	cl     *job.Cluster
	plugin job.Plugin
	sched  Scheduler
	cfg    Config
	jobs   map[uint32]*entry
	ids    []uint32 // in submit order
	// ents are the entries of ids, in the same order: the passes walk
	// them without a map lookup per job.
	ents []*entry
	// lowest is job_mgr.c's lowest_prio: the lowest priority given.
	lowest uint32
	// clock is what Tick knows of slurmctld's pass timers.
	clock passClock
	// partOverlap remembers which partitions share nodes (preemption).
	partOverlap map[[2]string]bool
	// traced are the jobs whose tests the passes record (Trace).
	traced map[uint32][]Explanation
	// resvs are the advance reservations, in the order they were made.
	resvs []*resvState
	// passNow is the time of the pass running, for explanations.
	passNow int64
	// bfSpace is the backfill map and recBuf the last pass's queue
	// records, kept between passes for their storage; sortBuf is the
	// queue sort's scratch under preemption.
	bfSpace *nodeSpace
	recBuf  []record
	sortBuf []record
	built   builtQueue
	// reasonSets counts the changes of the jobs' reasons, mainLast is the
	// last main pass (reuseMain).
	reasonSets reasonCounts
	mainLast   mainReuse
	// plainBuild turns builtQueue off, and plainMain startNowMemo, for
	// the differential tests.
	plainBuild, plainMain bool
	bfEnds                runEnds
	bfReq                 job.Request
	bfLast                bfReuse
	bfWalks               walkLogs
	// completing are the preempted jobs whose nodes stay completing until
	// the next pass (releaseCompleting) or, with ReportEpilogs, until
	// their epilogs complete.
	completing []completingJob
	// partSize is each partition's CPUs and nodes, counted once.
	partSize map[string][2]int
	// gangKeeps says a job the gang scheduler suspends keeps its
	// resources in the select plugin (job.GangPlugin, under GANG with
	// preempt/partition_prio): select_p_job_suspend does nothing unless
	// the suspension is indefinite (scontrol suspend). With cons_tres the
	// cores stay in the job's partition row, closed to the jobs of its
	// tier and to test 1's idle cores; jobs of higher tiers take them as
	// they take a running lower-tier job's (_job_test's test 3). With
	// select/linear the job keeps its place in the node counts. Either
	// way it is a preemption candidate, as in
	// slurm_find_preemptable_jobs.
	gangKeeps bool
}

// entry is a job with what the queue derives from it once.
type entry struct {
	j     *Job
	progs []*vm.Program
	parts map[string]*partReq
	// limit is Slurm's job time_limit: the job's own, else its first
	// partition's DefaultTime, else 0 (NO_VAL), which each partition
	// resolves in its own way when the job is planned or started.
	limit time.Duration
	// planned is plannedRef, the PlannedNodes backfill last gave the
	// job, in dense form.
	planned    bitset.Set
	plannedRef *roaring.Bitmap
	// first is parts[firstPart], the job's first partition's: most jobs
	// have one, and the passes look it up per record.
	firstPart string
	first     *partReq
	// busyAt is the queue's change count but submissions'
	// (resourceChanges) plus one when a main pass last found the job busy
	// in busyPart on every usable node, 0 if it did not (startNowMemo).
	busyAt   uint64
	busyPart string
}

// partReq is a job's request in one partition and the candidates the chain
// gives it there (nil when the partition refuses it).
// part is the job's request in partition p.
func (e *entry) part(p string) *partReq {
	if p == e.firstPart {
		return e.first
	}
	return e.parts[p]
}

type partReq struct {
	// req asks for the limit the job starts with in the partition
	// (select_nodes).
	req *job.Request
	// planLimit is the limit backfill plans it with there, in seconds
	// (_set_backfill_timelimits).
	planLimit int64
	// refused is why the partition's size refuses the job for good
	// (PartitionConfig, PartitionNodeLimit), ReasonNone if it does not:
	// the tests of _part_access_check that job_limits_check makes and
	// that need no clock (it passes no node list).
	refused Reason
	cands   *roaring.Bitmap
	// candBits is cands in dense form, made by the first backfill pass
	// that tests the job.
	candBits bitset.Set
	err      error
}

// Errors of the queue's API (the seed's errno values as typed errors).
var (
	// ErrDuplicateJob is a job id already in the queue.
	ErrDuplicateJob = errors.New("duplicate job id")
	// ErrNoJob is a job id the queue does not hold.
	ErrNoJob = errors.New("no such job")
	// ErrInvalidJob is a job record the queue cannot accept.
	ErrInvalidJob = errors.New("invalid job")
	// ErrNotPending is an operation on a job that is not pending.
	ErrNotPending = errors.New("job is not pending")
)

// JobError says which job a queue error concerns.
type JobError struct {
	Job uint32
	Err error
}

// Error names the job and the problem.
func (e *JobError) Error() string { return fmt.Sprintf("job %d: %v", e.Job, e.Err) }

// Unwrap returns the problem.
func (e *JobError) Unwrap() error { return e.Err }

// RefusedError is the Limits hook refusing a job at submit (slurmctld's
// acct_policy_validate, or an invalid account or QOS), or ErrBadTaskCount:
// the job is not queued, as sbatch's submission fails.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }

// Unwrap returns the hook's error.
func (e *RefusedError) Unwrap() error { return e.Err }

// NewQueue makes an empty queue over opt.Cluster and opt.Plugin.
func NewQueue(opt Options) *Queue {
	if opt.Scheduler == nil {
		opt.Scheduler = Builtin{}
	}
	q := &Queue{opt: opt, cl: opt.Cluster, plugin: opt.Plugin, sched: opt.Scheduler, cfg: opt.Config, jobs: map[uint32]*entry{}, lowest: topPriority}
	if g, ok := opt.Plugin.(job.GangPlugin); ok && opt.Preempt.Flags.Gang && opt.Preempt.Type == PreemptPartitionPrio {
		g.SetGang(true)
		q.gangKeeps = true
	}
	return q
}

// Config is the queue's current configuration.
func (q *Queue) Config() Config { return q.cfg }

// Reconfigure replaces the knobs and tells the scheduler (Reconfig).
func (q *Queue) Reconfigure(c Config) error {
	q.cfg = c
	q.clock.changes++
	return q.sched.Reconfig(q)
}

// ReasonChanges counts the changes of the jobs' reasons so far: a caller
// reading every pending job's reason after each pass need not read them
// again while it stays the same (and no job was added).
func (q *Queue) ReasonChanges() uint64 { return q.reasonSets.changes }

// Job returns job id.
func (q *Queue) Job(id uint32) (*Job, bool) {
	e, ok := q.jobs[id]
	if !ok {
		return nil, false
	}
	return e.j, true
}

// Jobs returns every job in submit order.
func (q *Queue) Jobs() []*Job {
	out := make([]*Job, 0, len(q.ids))
	for _, id := range q.ids {
		out = append(out, q.jobs[id].j)
	}
	return out
}

func (q *Queue) fail(id uint32, format string, args ...any) error {
	return &JobError{Job: id, Err: fmt.Errorf("%w: %s", ErrInvalidJob, fmt.Sprintf(format, args...))}
}

// add checks j and derives its per-partition requests.
func (q *Queue) add(j *Job) (*entry, error) {
	if _, dup := q.jobs[j.ID]; dup {
		return nil, &JobError{Job: j.ID, Err: ErrDuplicateJob}
	}
	if j.ID == 0 {
		return nil, q.fail(j.ID, "job id 0")
	}
	if j.Request == nil {
		return nil, q.fail(j.ID, "no resource request")
	}
	if len(j.Partitions) == 0 {
		return nil, q.fail(j.ID, "no partition")
	}
	e := &entry{j: j, parts: map[string]*partReq{}, limit: j.TimeLimit}
	j.reasonSets = &q.reasonSets
	if e.limit == 0 {
		// _valid_job_part gives the job its first partition's
		// DefaultTime at submit, and none if that one has none, even
		// when another of its partitions has one.
		e.limit = q.opt.Partitions[j.Partitions[0]].DefaultTime
	}
	for _, c := range j.Request.Constraints {
		prog, err := compiler.Compile(compiler.Lang(c.Lang), c.Text)
		if err != nil {
			return nil, &JobError{Job: j.ID, Err: fmt.Errorf("%w: constraint %q: %w", ErrInvalidJob, c.Text, err)}
		}
		e.progs = append(e.progs, prog)
	}
	if err := j.Request.Resolve(q.cl); err != nil {
		return nil, &JobError{Job: j.ID, Err: fmt.Errorf("%w: %w", ErrInvalidJob, err)}
	}
	for _, p := range j.Partitions {
		if q.cl.Partitions[p] == nil {
			return nil, q.fail(j.ID, "unknown partition %q", p)
		}
		if _, dup := e.parts[p]; dup {
			return nil, q.fail(j.ID, "partition %q listed twice", p)
		}
		rq := *j.Request
		rq.ID, rq.Partition, rq.Priority = j.ID, p, j.Priority
		rq.TimeLimit = q.startLimit(e.limit, p)
		rq.ApplyMemoryPolicy(q.cl, q.opt.DefMemPerCPU, q.opt.MaxMemPerCPU)
		pr := &partReq{req: &rq, planLimit: q.planLimit(e.limit, p), refused: q.partRefuses(&rq, p)}
		pr.cands, pr.err = candidate.Candidates(candidate.Input{Cluster: q.cl, Request: &rq, Programs: e.progs})
		e.parts[p] = pr
	}
	e.firstPart, e.first = j.Partitions[0], e.parts[j.Partitions[0]]
	return e, nil
}

// startLimit is the limit a job whose time_limit is limit (0: NO_VAL)
// starts with in partition p (select_nodes): that limit, else p's
// DefaultTime, else its MaxTime, else none.
func (q *Queue) startLimit(limit time.Duration, p string) time.Duration {
	if limit != 0 {
		return limit
	}
	pc := q.opt.Partitions[p]
	if pc.DefaultTime > 0 {
		return pc.DefaultTime
	}
	if pc.MaxTime > 0 {
		return pc.MaxTime
	}
	return job.Unlimited
}

// planLimit is the limit, in seconds, backfill plans a job whose
// time_limit is limit (0: NO_VAL) with in partition p
// (_set_backfill_timelimits): p's MaxTime (a year when it has none) for
// NO_VAL or an unlimited job, whatever p's DefaultTime; else the limit,
// at most p's MaxTime.
func (q *Queue) planLimit(limit time.Duration, p string) int64 {
	part := int64(yearSeconds)
	if pc := q.opt.Partitions[p]; pc.MaxTime > 0 {
		part = int64(pc.MaxTime / time.Second)
	}
	if limit == 0 || limit == job.Unlimited {
		return part
	}
	return min(int64(limit/time.Second), part)
}

// Submit adds a pending job at now. A job without a priority (0, not Held)
// gets the Priority hook's, else the scheduler's InitialPriority; the
// Limits hook may refuse it.
func (q *Queue) Submit(j *Job, held bool, now int64) error {
	if j.Priority == 0 && !held {
		p := q.sched.InitialPriority(q.lowest)
		if q.opt.Priority != nil {
			p = q.opt.Priority.Set(j, p, now)
		}
		j.Priority = p
	}
	if held {
		j.Priority = 0
	}
	j.State, j.Start, j.End, j.Nodes = Pending, 0, 0, nil
	q.tierOrder(j.Partitions)
	if len(j.Partitions) > 0 {
		j.Partition = j.Partitions[0]
	}
	if j.Submit == 0 {
		j.Submit = now
	}
	q.raiseMinNodes(j)
	if j.Reservation != "" {
		// validate_job_resv: the reservation must exist and let the job in.
		s := q.resv(j.Reservation)
		if s == nil {
			return &JobError{Job: j.ID, Err: &RefusedError{Err: ErrReservationInvalid}}
		}
		if !resvAccess(s.r, j) {
			return &JobError{Job: j.ID, Err: &RefusedError{Err: ErrReservationAccess}}
		}
	}
	if q.opt.Limits != nil {
		if err := q.opt.Limits.Validate(j); err != nil {
			return &JobError{Job: j.ID, Err: &RefusedError{Err: err}}
		}
	}
	if !taskCountValid(j) {
		if q.opt.Limits != nil {
			q.opt.Limits.End(j, now)
		}
		return &JobError{Job: j.ID, Err: &RefusedError{Err: ErrBadTaskCount}}
	}
	e, err := q.add(j)
	if err != nil {
		return err
	}
	if !q.fitsReservation(e, now) {
		if q.opt.Limits != nil {
			q.opt.Limits.End(j, now)
		}
		return &JobError{Job: j.ID, Err: &RefusedError{Err: ErrNodeConfigUnavailable}}
	}
	if !q.fitsNodeLimit(e, now) {
		q.opt.Limits.End(j, now)
		return &JobError{Job: j.ID, Err: &RefusedError{Err: ErrNodeConfigUnavailable}}
	}
	c0 := q.clock.changes
	q.insert(e)
	q.clock.queued++
	q.touch(now)
	q.clock.submitted += q.clock.changes - c0
	q.sched.JobIsPending(q)
	return nil
}

func (q *Queue) insert(e *entry) {
	q.jobs[e.j.ID] = e
	q.ids = append(q.ids, e.j.ID)
	q.ents = append(q.ents, e)
	q.clock.changes++
	if p := e.j.Priority; p > 0 && p < q.lowest {
		q.lowest = p
	}
}

// AddRunning records a job that is already running: j.Partition, j.Start,
// j.End and j.Nodes must be set. The select plugin gets it on exactly those
// nodes: with j.Alloc when set (the cores, memory and GPUs the job holds on
// each, as a selection gave them), else with the resources a selection of
// its request on those nodes gives each.
func (q *Queue) AddRunning(j *Job) error {
	if j.Partition == "" && len(j.Partitions) > 0 {
		j.Partition = j.Partitions[0]
	}
	if len(j.Partitions) == 0 && j.Partition != "" {
		j.Partitions = []string{j.Partition}
	}
	if j.Nodes == nil || j.Nodes.IsEmpty() {
		return q.fail(j.ID, "a running job needs its nodes")
	}
	if j.End <= j.Start {
		return q.fail(j.ID, "a running job needs an end after its start")
	}
	e, err := q.add(j)
	if err != nil {
		return err
	}
	pr := e.parts[j.Partition]
	if pr == nil {
		return q.fail(j.ID, "partition %q is not among the job's", j.Partition)
	}
	rq := *pr.req
	rq.RequiredSet = j.Nodes
	rq.MinNodes = int(j.Nodes.GetCardinality())
	rq.ReqNodes, rq.MaxNodes = rq.MinNodes, rq.MinNodes
	rq.TimeLimit = time.Duration(j.End-j.Start) * time.Second
	a := j.Alloc
	if a == nil {
		if a, err = q.plugin.Select(&rq, j.Nodes.Clone(), job.RunNow, j.Start); err != nil {
			return &JobError{Job: j.ID, Err: fmt.Errorf("%w: does not fit on its nodes: %w", ErrInvalidJob, err)}
		}
	} else if a.Nodes == nil || !a.Nodes.Equals(j.Nodes) {
		return q.fail(j.ID, "a running job's allocation must be on its nodes")
	} else {
		c := *a
		a = &c
	}
	a.Start = j.Start
	if err := q.plugin.Begin(&rq, a); err != nil {
		return &JobError{Job: j.ID, Err: err}
	}
	j.State, j.Alloc = Running, a
	j.setReason(ReasonNone, "")
	q.insert(e)
	if q.opt.Limits != nil {
		q.opt.Limits.Begin(j, j.Start)
	}
	return nil
}

// AddFinished records a job that has ended (j.State a finished state), so
// that dependencies on it resolve.
func (q *Queue) AddFinished(j *Job) error {
	if !j.State.Finished() {
		return q.fail(j.ID, "state %s is not a finished state", j.State)
	}
	e, err := q.add(j)
	if err != nil {
		return err
	}
	q.insert(e)
	return nil
}

// Finish ends running job id at now in state st (Completed, Failed,
// Cancelled or Timeout); a pending job may be Cancelled.
func (q *Queue) Finish(id uint32, st State, now int64) error {
	e, ok := q.jobs[id]
	if !ok {
		return &JobError{Job: id, Err: ErrNoJob}
	}
	if !st.Finished() {
		return q.fail(id, "state %s is not a finished state", st)
	}
	j := e.j
	wasRunning := j.State == Running || j.State == Suspended
	switch j.State {
	case Running, Suspended:
		if err := q.plugin.Fini(id); err != nil {
			return &JobError{Job: id, Err: err}
		}
		if q.opt.Limits != nil {
			q.opt.Limits.End(j, now)
		}
	case Pending:
		if st != Cancelled {
			return &JobError{Job: id, Err: ErrNotPending}
		}
		j.Start = now
		if q.opt.Limits != nil {
			// A cancelled pending job leaves the submit counts
			// (acct_policy_remove_job_submit).
			q.opt.Limits.End(j, now)
		}
	default:
		return &JobError{Job: id, Err: fmt.Errorf("already %s", j.State)}
	}
	j.State, j.End = st, now
	if wasRunning {
		// A cancelled pending job keeps the reason it waited for, as
		// scontrol shows it (CANCELLED, Reason=AssocGrpMemLimit).
		j.setReason(ReasonNone, "")
		q.resumeSuspended(now)
	}
	q.touch(now)
	if wasRunning {
		q.clock.ran++
		// An ended job's epilog asks for a pass at once (schedule(false)).
		q.clock.immediate = true
	} else {
		q.clock.queued++
	}
	return nil
}

// Release sets a pending job's priority (releasing a held one) and, when
// nodes is not empty, the nodes it must run on: how an external scheduler
// starts a job.
func (q *Queue) Release(id uint32, priority uint32, nodes *roaring.Bitmap) error {
	e, ok := q.jobs[id]
	if !ok {
		return &JobError{Job: id, Err: ErrNoJob}
	}
	if e.j.State != Pending {
		return &JobError{Job: id, Err: ErrNotPending}
	}
	e.j.Priority = priority
	for _, pr := range e.parts {
		pr.req.Priority = priority
		if nodes != nil && !nodes.IsEmpty() {
			pr.req.RequiredSet = nodes.Clone()
			if n := int(nodes.GetCardinality()); pr.req.MinNodes < n {
				pr.req.MinNodes = n
			}
		}
	}
	if e.j.Reason == ReasonHeld || e.j.Reason == ReasonHeldUser {
		e.j.setReason(ReasonNone, "")
	}
	q.clock.changes++
	return nil
}

// record is one queue record: a job in one partition (§3.1).
type record struct {
	e    *entry
	part string
	tier uint32
	prio uint32
}

// buildQueue is build_job_queue: every pending job that is runnable
// (held, dependency and begin-time tests) gets one record per partition
// that passes job_limits_check, sorted in sort_job_queue2's order.
func (q *Queue) buildQueue(now int64, clearStart, backfill bool) []record {
	q.releaseCompleting(now)
	if q.builtStands(now, backfill) {
		if clearStart {
			for _, e := range q.built.pending {
				e.j.Start = 0
			}
		}
		return q.recBuf
	}
	b := &q.built
	b.gen++
	if q.builtExtends(now, backfill) {
		// The records of the jobs started since go, those of the jobs
		// submitted since are added.
		if len(b.begun) > 0 {
			q.recBuf = slices.DeleteFunc(q.recBuf, func(r record) bool { return slices.Contains(b.begun, r.e) })
			b.pending = slices.DeleteFunc(b.pending, func(e *entry) bool { return slices.Contains(b.begun, e) })
		}
		if clearStart {
			for _, e := range b.pending {
				e.j.Start = 0
			}
		}
		old := len(q.recBuf)
		out := q.buildEntries(q.recBuf, q.ents[b.ents:], now, clearStart, backfill)
		// The last build's records are in order; the new ones mostly
		// come after them (FIFO priorities). Only the job's own records
		// compare equal, and they come in the same order either way, so
		// the stable sort gives a fresh build's order.
		if !slices.IsSortedFunc(out[max(old-1, 0):], recordOrder) {
			slices.SortStableFunc(out, recordOrder)
		}
		return q.built_(out, now, backfill)
	}
	// The records of the last pass are done with: their storage is reused.
	b.pending, b.until, b.timeMin, b.settled, b.depWait = b.pending[:0], math.MaxInt64, false, true, false
	out := q.buildEntries(q.recBuf[:0], q.ents, now, clearStart, backfill)
	var preempts func(a, b record) bool
	if q.opt.Preempt.enabled() {
		preempts = q.preemptsInQueue
	}
	if preempts != nil && cap(q.sortBuf) < len(out) {
		q.sortBuf = make([]record, 0, cap(out))
	}
	sortQueue(out, preempts, q.sortBuf)
	// Drop the purged jobs that the last pass's longer list still held.
	if n := len(q.recBuf); n > len(out) {
		clear(out[len(out):n])
	}
	return q.built_(out, now, backfill)
}

// built_ notes that out are the records of a build at now.
func (q *Queue) built_(out []record, now int64, backfill bool) []record {
	b := &q.built
	q.recBuf = out
	b.ok, b.at, b.changes, b.backfill = b.settled && q.buildsStand(), now, q.clock.changes, backfill
	b.other, b.ran, b.ents, b.begun = q.clock.otherChanges(), q.clock.ran, len(q.ents), b.begun[:0]
	return out
}

// buildEntries adds the records of the pending jobs of ents to out, and
// what the build notes of them to q.built.
func (q *Queue) buildEntries(out []record, ents []*entry, now int64, clearStart, backfill bool) []record {
	b := &q.built
	var last partLookup
	for _, e := range ents {
		j := e.j
		if j.State != Pending {
			if j.State == Running {
				q.accrue(j, false, now)
			}
			continue
		}
		b.pending = append(b.pending, e)
		b.timeMin = b.timeMin || j.TimeMin > 0
		if clearStart {
			j.Start = 0
		}
		j.preemptInProgress = false
		ok := q.runnable1(e, now)
		q.accrue(j, ok, now)
		if !ok {
			if j.Begin > now {
				b.until = min(b.until, j.Begin)
			}
			b.depWait = b.depWait || j.Reason == ReasonDependency
			continue
		}
		if j.Reason == ReasonBeginTime {
			// Eligible from now on: the next build clears the reason.
			b.settled = false
		}
		n, refused := len(out), false
		for _, p := range j.Partitions {
			pl := q.lookup(&last, p)
			if !q.runnable2(e, p, pl.conf, backfill) {
				refused = true
				continue
			}
			out = append(out, record{e: e, part: p, tier: pl.tier, prio: j.Priority})
		}
		if refused && len(out) > n {
			// A partition refuses the job and another takes it: the
			// next build sets the reason of the refusal over the one
			// the passes give it, then clears it.
			b.settled = false
		}
	}
	return out
}

// builtQueue is the last queue build, which the next ones reuse while
// nothing it read changed (builtStands): a simulator builds the queue for
// every main and backfill pass, and most passes find it as the last one
// left it.
type builtQueue struct {
	ok bool
	// at is the build's now, changes the queue's change count then.
	at      int64
	changes uint64
	// until is the first begin time of a job held by it (the build's
	// first test of the clock that goes the other way later).
	until int64
	// backfill is the build's minTime; it matters only when a pending
	// job has a time_min (timeMin).
	backfill, timeMin bool
	// pending are the pending jobs, in submit order: a backfill pass's
	// build clears their planned starts.
	pending []*entry
	// settled says that building again would set no reason: not so when
	// a job's reason is one its tests read and change on the next build
	// (below).
	settled bool
	// gen counts the builds made afresh or extended.
	gen uint64
	// other and ran are the queue's otherChanges and its count of the
	// changes starts and ends made at the build, ents its entry count;
	// depWait says a job waited for a dependency then, and begun are the
	// jobs started since.
	other, ran uint64
	ents       int
	depWait    bool
	begun      []*entry
}

// buildsStand reports whether a queue build may stand for later ones
// while nothing changes: every change then comes through the queue's
// methods (Options.ReusePasses), and no hook, advance reservation,
// preemption or completing job makes the build read more than the jobs
// and the clock's crossing of their begin times.
func (q *Queue) buildsStand() bool {
	return q.opt.ReusePasses && !q.plainBuild && q.opt.Limits == nil && q.opt.Priority == nil &&
		!q.opt.Preempt.enabled() && len(q.resvs) == 0 && len(q.completing) == 0
}

// builtStands reports whether the last queue build stands for a build at
// now: it may (buildsStand), no job, node, reservation or configuration
// changed since, the clock has not reached a held job's begin time, and
// runnable2's minTime is the same or no pending job has a time_min. The
// tests the build made then give the same records and leave the same
// reasons now: the passes in between set only reasons those tests do not
// read (Priority, Resources and select_nodes' reasons, never a
// partition's, a hold's, a dependency's or a begin time's).
func (q *Queue) builtStands(now int64, backfill bool) bool {
	b := &q.built
	return b.ok && q.buildsStand() && q.clock.changes == b.changes && now >= b.at && now < b.until &&
		(b.backfill == backfill || !b.timeMin)
}

// builtExtends reports whether the last build, without the records of the
// jobs started since and with those of the jobs submitted since, stands
// for a build at now: it would stand but for starts, ends and submissions
// (builtStands with otherChanges), which change no other job's tests but
// for dependencies. A dependency the last build found met stays met, and
// one it found unmet changes only with the job it names, which a
// submission does not change and a start or an end may: these are taken
// in only when no job waited for a dependency (a job that is not there
// counts as met; singleton waits for jobs of its name already there).
func (q *Queue) builtExtends(now int64, backfill bool) bool {
	b := &q.built
	return b.ok && q.buildsStand() && q.clock.otherChanges() == b.other && (q.clock.ran == b.ran || !b.depWait) &&
		b.ents <= len(q.ents) && len(b.begun) <= maxBegun && now >= b.at && now < b.until && (b.backfill == backfill || !b.timeMin)
}

// maxBegun bounds the jobs started since the last build that the next
// one takes out of its records, each a pass over them.
const maxBegun = 16

// partLookup is the partition a queue build looked up last: a pass's
// records mostly name one or two partitions, and looking each up by name
// cost a fifth of a FIFO replay.
type partLookup struct {
	name string
	conf Partition
	tier uint32
	ok   bool
}

// lookup is partition p's settings, from l when l holds them.
func (q *Queue) lookup(l *partLookup, p string) *partLookup {
	if !l.ok || l.name != p {
		*l = partLookup{name: p, conf: q.opt.Partitions[p], ok: true}
		if cp := q.cl.Partitions[p]; cp != nil {
			l.tier = cp.PriorityTier
		}
	}
	return l
}

// sortQueue is sort_job_queue2 (§3.1) without expedited requeue and
// arrays, which sift does not model yet: a record whose job may preempt
// the other's (preempts, nil without preemption), a job naming a
// reservation, higher partition PriorityTier, higher priority, earlier
// submit, lower id.
func sortQueue(rs []record, preempts func(a, b record) bool, tmp []record) {
	order := func(a, b record) int {
		if preempts != nil {
			if preempts(a, b) {
				return -1
			}
			if preempts(b, a) {
				return 1
			}
		}
		return recordOrder(a, b)
	}
	if preempts != nil {
		// With preemption the order need not be transitive (a job
		// preempting another goes first whatever their tiers and
		// priorities), so the result depends on the algorithm.
		glibcMergeSort(rs, tmp, order)
		return
	}
	// Records mostly come in order already (submit order, FIFO
	// priorities); checking costs one comparison a record.
	if !slices.IsSortedFunc(rs, order) {
		slices.SortStableFunc(rs, order)
	}
}

// recordOrder is sort_job_queue2's order without preemption: a job naming
// a reservation, higher partition PriorityTier, higher priority, earlier
// submit, lower id.
func recordOrder(a, b record) int {
	if ra, rb := a.e.j.Reservation != "", b.e.j.Reservation != ""; ra != rb {
		if ra {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.tier, a.tier); c != 0 {
		return c
	}
	if c := cmp.Compare(b.prio, a.prio); c != 0 {
		return c
	}
	if c := cmp.Compare(a.e.j.Submit, b.e.j.Submit); c != 0 {
		return c
	}
	return cmp.Compare(a.e.j.ID, b.e.j.ID)
}

// glibcMergeSort sorts rs as glibc's qsort (msort_with_tmp) does, the sort
// slurmctld's list_sort calls: the first n/2 records and the rest sorted
// in turn, then merged taking the left record while it does not compare
// after the right one. tmp is scratch of rs's length at least.
func glibcMergeSort(rs, tmp []record, order func(a, b record) int) {
	n := len(rs)
	if n <= 1 {
		return
	}
	n1 := n / 2
	glibcMergeSort(rs[:n1], tmp, order)
	glibcMergeSort(rs[n1:], tmp, order)
	b1, b2 := rs[:n1], rs[n1:]
	t := tmp[:0]
	for len(b1) > 0 && len(b2) > 0 {
		if order(b1[0], b2[0]) <= 0 {
			t = append(t, b1[0])
			b1 = b1[1:]
		} else {
			t = append(t, b2[0])
			b2 = b2[1:]
		}
	}
	// What is left of the second half is in place already.
	copy(rs, append(t, b1...))
}

// runnable1 is _job_runnable_test1 with job_independent: held jobs,
// dependencies and the begin time.
func (q *Queue) runnable1(e *entry, now int64) bool {
	j := e.j
	if j.Priority == 0 {
		if j.Reason != ReasonBadConstraints && j.Reason != ReasonHeld && j.Reason != ReasonHeldUser {
			if j.HeldByUser {
				j.setReason(ReasonHeldUser, "")
			} else {
				j.setReason(ReasonHeld, "")
			}
		}
		return false
	}
	if j.Reason == ReasonHeld || j.Reason == ReasonHeldUser || j.Reason == ReasonDepInvalid {
		if j.Reason != ReasonDepInvalid {
			// Released: the hold no longer applies.
			j.setReason(ReasonNone, "")
		} else {
			return false
		}
	}
	switch q.dependencies(e) {
	case depWait:
		// Eligibility restarts once the dependency is met.
		j.Eligible = 0
		j.setReason(ReasonDependency, "")
		return false
	case depFailed:
		j.setReason(ReasonDepInvalid, "")
		return false
	}
	if j.Reason == ReasonDependency {
		j.setReason(ReasonNone, "")
	}
	if j.Begin > now {
		j.setReason(ReasonBeginTime, "")
		return false
	}
	if !q.resvUsableNow(j, now) {
		j.setReason(ReasonReservation, "")
		return false
	}
	if j.Eligible == 0 {
		j.Eligible = now
	} else if j.Reason == ReasonBeginTime {
		j.setReason(ReasonNone, "")
	}
	return true
}

// runnable2 is _job_runnable_test2 (job_limits_check) for partition p:
// partition time and node limits, then its state (pc: p's settings).
// minTime tests the job's TimeMin instead of its limit (backfill).
func (q *Queue) runnable2(e *entry, p string, pc Partition, minTime bool) bool {
	j := e.j
	pr := e.part(p)
	r := ReasonNone
	limit := e.limit
	if minTime && j.TimeMin > 0 {
		limit = j.TimeMin
	}
	var exTime, exMax, exMin bool
	if pe, ok := q.opt.Limits.(PartitionExempt); ok {
		exTime, exMax, exMin = pe.PartitionExempt(j)
	}
	// _qos_part_check's order: minimum nodes, maximum nodes, time. The
	// maximum is the job's own, or without one its task count
	// (_copy_job_desc_to_job_record: JOB_IMPLICIT_MAX_NODES), so ntasks=4
	// without --nodes breaks MaxNodes=3 although it fits one node.
	maxN := pr.req.MaxNodes
	if maxN <= 0 {
		maxN = pr.req.NTasks
	}
	// _part_access_check tests a partition that schedules (up or
	// drained) only.
	schedules := pc.State == PartUp || pc.State == PartDrain
	switch {
	case schedules && pr.refused != ReasonNone:
		r = pr.refused
	case !schedules:
	case !exMin && pc.MinNodes > 0 && pr.req.MaxNodes > 0 && pr.req.MaxNodes < pc.MinNodes,
		!exMax && pc.MaxNodes > 0 && maxN > pc.MaxNodes:
		r = ReasonPartNodeLimit
	case !exTime && pc.MaxTime > 0 && (limit == job.Unlimited || limit > pc.MaxTime):
		r = ReasonPartTimeLimit
	}
	switch {
	case r != ReasonNone:
	case pc.State == PartDown:
		r = ReasonPartDown
	case pc.State == PartInactive:
		r = ReasonPartInactive
	}
	if r != j.Reason && (r != ReasonNone || j.Reason.isPartReason()) {
		j.setReason(r, "")
	}
	return r == ReasonNone
}

// tierOrder puts a job's partitions in the order slurmctld keeps them
// (get_part_list): highest PriorityTier first, as given among equal
// tiers. The queue builds its records in that order, so the last
// partition's limits decide a job's reason when several refuse it.
func (q *Queue) tierOrder(parts []string) {
	tier := func(p string) uint32 {
		if cp := q.cl.Partitions[p]; cp != nil {
			return cp.PriorityTier
		}
		return 0
	}
	slices.SortStableFunc(parts, func(a, b string) int { return cmp.Compare(tier(b), tier(a)) })
}

// partRefuses is _part_access_check's size tests of job request r in
// partition p: more CPUs than the partition has (the job's CPUs as sbatch
// counts them, tasks x cpus-per-task) is PartitionConfig, more nodes than
// it has PartitionNodeLimit.
func (q *Queue) partRefuses(r *job.Request, p string) Reason {
	size, ok := q.partSize[p]
	if !ok {
		nodes := q.cl.Partitions[p].Nodes
		size[1] = int(nodes.GetCardinality())
		it := nodes.Iterator()
		for it.HasNext() {
			if id := int(it.Next()); id < len(q.cl.CPUs) {
				size[0] += q.cl.CPUs[id]
			}
		}
		if q.partSize == nil {
			q.partSize = map[string][2]int{}
		}
		q.partSize[p] = size
	}
	minN, _, _ := r.NodeCounts(0)
	switch {
	case max(r.NTasks, 1)*r.CPUsPerTaskOr1() > size[0]:
		return ReasonPartConfig
	case minN > size[1]:
		return ReasonPartNodeLimit
	}
	return ReasonNone
}

// depResult is test_job_dependency's answer.
type depResult uint8

const (
	depNone depResult = iota
	depWait
	depFailed
)

type depState uint8

const (
	depUnfulfilled depState = iota
	depFulfilled
	depFailedState
)

// dependencies is test_job_dependency for e's job.
func (q *Queue) dependencies(e *entry) depResult {
	j := e.j
	if len(j.Deps) == 0 {
		return depNone
	}
	if len(j.depState) != len(j.Deps) {
		j.depState = make([]depState, len(j.Deps))
	}
	anyFulfilled, anyUnfulfilled, anyFailed := false, false, false
	for i, d := range j.Deps {
		if j.depState[i] == depUnfulfilled {
			j.depState[i] = q.testDependency(j, d)
		}
		switch j.depState[i] {
		case depFulfilled:
			anyFulfilled = true
		case depUnfulfilled:
			anyUnfulfilled = true
		case depFailedState:
			anyFailed = true
		}
	}
	if j.DepsAny {
		switch {
		case anyFulfilled:
			return depNone
		case !anyUnfulfilled:
			return depFailed
		}
		return depWait
	}
	switch {
	case anyFailed:
		return depFailed
	case anyUnfulfilled:
		return depWait
	}
	return depNone
}

// testDependency is _test_job_dependency_common for one term.
func (q *Queue) testDependency(j *Job, d Dependency) depState {
	if d.Kind == Singleton {
		for _, id := range q.ids {
			o := q.jobs[id].j
			if o == j || o.User != j.User || o.Name != j.Name {
				continue
			}
			if o.State == Running || (o.State == Pending && o.ID < j.ID) {
				return depUnfulfilled
			}
		}
		return depFulfilled
	}
	de, ok := q.jobs[d.Job]
	if !ok {
		// The job is gone: the dependency is lifted.
		return depFulfilled
	}
	o := de.j
	done := o.State.Finished()
	ok0 := o.State == Completed
	switch d.Kind {
	case After:
		if o.State != Pending {
			return depFulfilled
		}
	case AfterAny:
		if done {
			return depFulfilled
		}
	case AfterOK:
		if done && ok0 {
			return depFulfilled
		} else if done {
			return depFailedState
		}
	case AfterNotOK:
		if done && !ok0 {
			return depFulfilled
		} else if done {
			return depFailedState
		}
	}
	return depUnfulfilled
}
