package sched

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/job"
)

// PreemptType is slurm.conf's PreemptType: which rule says who may preempt
// whom.
type PreemptType uint8

// Preemption plugins.
const (
	// PreemptNone is preempt/none: no job preempts another.
	PreemptNone PreemptType = iota
	// PreemptPartitionPrio is preempt/partition_prio: a job in a partition
	// of higher PriorityTier preempts jobs of lower tiers on shared nodes.
	PreemptPartitionPrio
	// PreemptQOS is preempt/qos: a job whose QOS lists another QOS in its
	// Preempt= preempts that QOS's jobs.
	PreemptQOS
)

var preemptTypeNames = [...]string{"preempt/none", "preempt/partition_prio", "preempt/qos"}

// String is slurm.conf's spelling.
func (t PreemptType) String() string {
	if int(t) < len(preemptTypeNames) {
		return preemptTypeNames[t]
	}
	return "unknown"
}

// ParsePreemptType reads PreemptType (preempt/none, preempt/partition_prio,
// preempt/qos; the "preempt/" prefix may be left out).
func ParsePreemptType(s string) (PreemptType, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "preempt/")) {
	case "", "none":
		return PreemptNone, nil
	case "partition_prio":
		return PreemptPartitionPrio, nil
	case "qos":
		return PreemptQOS, nil
	}
	return PreemptNone, fmt.Errorf("PreemptType %q: expected preempt/none, preempt/partition_prio or preempt/qos", s)
}

// PreemptMode is how a preempted job gives its resources back.
type PreemptMode uint8

// Preemption modes. PreemptModeUnset lets a partition or QOS take the
// cluster's mode.
const (
	PreemptModeUnset PreemptMode = iota
	PreemptOff
	PreemptCancel
	PreemptRequeue
	PreemptSuspend
)

var preemptModeNames = [...]string{"", "OFF", "CANCEL", "REQUEUE", "SUSPEND"}

// String is Slurm's name of the mode.
func (m PreemptMode) String() string {
	if int(m) < len(preemptModeNames) {
		return preemptModeNames[m]
	}
	return "UNKNOWN"
}

// PreemptModeFlags are the flags PreemptMode= may add to a mode.
type PreemptModeFlags struct {
	// Gang is GANG: suspended jobs are resumed by the gang scheduler
	// (required with SUSPEND cluster-wide).
	Gang bool
	// Within is WITHIN (preempt/qos): jobs of one QOS preempt each other
	// by priority.
	Within bool
	// Priority is PRIORITY: a preemptor needs a higher job priority too.
	Priority bool
}

// ParsePreemptMode reads a PreemptMode= value: OFF, CANCEL, REQUEUE or
// SUSPEND, with GANG, WITHIN and PRIORITY flags, comma-separated (Slurm's
// preempt_mode_num). GANG alone is OFF with gang scheduling.
func ParsePreemptMode(s string) (PreemptMode, PreemptModeFlags, error) {
	var f PreemptModeFlags
	m := PreemptModeUnset
	for _, w := range strings.Split(s, ",") {
		switch strings.ToUpper(strings.TrimSpace(w)) {
		case "OFF", "DISABLED":
			m = PreemptOff
		case "CANCEL":
			m = PreemptCancel
		case "REQUEUE":
			m = PreemptRequeue
		case "SUSPEND":
			m = PreemptSuspend
		case "GANG":
			f.Gang = true
		case "WITHIN":
			f.Within = true
		case "PRIORITY":
			f.Priority = true
		default:
			return m, f, fmt.Errorf("PreemptMode %q: expected OFF, CANCEL, REQUEUE or SUSPEND, with GANG, WITHIN or PRIORITY", s)
		}
	}
	if m == PreemptModeUnset {
		m = PreemptOff
	}
	return m, f, nil
}

// QOSPreempt is what preemption reads of a QOS (sacctmgr's Priority,
// Preempt, PreemptMode, GraceTime and PreemptExemptTime).
type QOSPreempt struct {
	// Priority orders victims (preempt/qos preempts low-priority QOS first).
	Priority uint32
	// Preempt are the QOS this one's jobs may preempt.
	Preempt []string
	// Mode is the QOS's PreemptMode (unset: the cluster's); Flags its flags.
	Mode  PreemptMode
	Flags PreemptModeFlags
	// GraceTime is how long a preempted job of this QOS keeps running.
	GraceTime time.Duration
	// ExemptTime is PreemptExemptTime when ExemptSet: a job of this QOS
	// that has run less is not preempted; unset, the cluster's applies.
	ExemptTime time.Duration
	ExemptSet  bool
}

// Preemption is the cluster's preemption configuration.
type Preemption struct {
	// Type is PreemptType; Mode and Flags are the cluster's PreemptMode.
	Type  PreemptType
	Mode  PreemptMode
	Flags PreemptModeFlags
	// ExemptTime is PreemptExemptTime: a job that has run less is not
	// preempted (0: none).
	ExemptTime time.Duration
	// YoungestFirst is PreemptParameters=youngest_first: victims are tried
	// latest start first instead of by preemption priority.
	YoungestFirst bool
	// MinExemptPriority is PreemptParameters=min_exempt_priority: jobs of a
	// higher priority are not preempted (0: none).
	MinExemptPriority uint32
	// KillWait is KillWait plus MessageTimeout: while a preemptor's
	// victims are going (less than this since it preempted), it preempts
	// no more. Slurm's defaults give 40 s.
	KillWait time.Duration
	// QOS holds the QOS settings by name (preempt/qos, GraceTime and
	// PreemptExemptTime of a job's QOS).
	QOS map[string]QOSPreempt
}

// DefaultKillWait is KillWait (30 s) plus MessageTimeout (10 s).
const DefaultKillWait = 40 * time.Second

// enabled is slurm_preemption_enabled: a plugin and a cluster mode other
// than OFF.
func (p *Preemption) enabled() bool {
	return p.Type != PreemptNone && p.Mode != PreemptOff && p.Mode != PreemptModeUnset
}

// Validate checks what slurmctld refuses at start-up.
func (p *Preemption) Validate() error {
	if p.Mode == PreemptSuspend && !p.Flags.Gang && p.Type != PreemptNone {
		return fmt.Errorf("PreemptMode=SUSPEND requires GANG too")
	}
	return nil
}

// jobMode is preempt_p_get_mode for a running job j: its partition's mode
// (partition_prio) or its QOS's (qos), else the cluster's.
func (q *Queue) jobMode(j *Job) PreemptMode {
	pc := &q.opt.Preempt
	m := pc.Mode
	switch pc.Type {
	case PreemptPartitionPrio:
		if pm := q.opt.Partitions[j.Partition].PreemptMode; pm != PreemptModeUnset {
			m = pm
		}
	case PreemptQOS:
		if qm := pc.QOS[j.QOS].Mode; qm != PreemptModeUnset {
			m = qm
		}
	}
	return m
}

// graceTime is preempt_p_get_grace_time: the partition's or the QOS's.
func (q *Queue) graceTime(j *Job) int64 {
	switch q.opt.Preempt.Type {
	case PreemptPartitionPrio:
		return seconds(q.opt.Partitions[j.Partition].GraceTime)
	case PreemptQOS:
		return seconds(q.opt.Preempt.QOS[j.QOS].GraceTime)
	}
	return 0
}

// preemptPrio is preempt_p_get_prio: the tier (partition_prio) or the QOS
// priority (qos) above the node count, so small jobs of low tiers go
// first.
func (q *Queue) preemptPrio(j *Job) uint32 {
	var hi uint32
	switch q.opt.Preempt.Type {
	case PreemptPartitionPrio:
		if p := q.cl.Partitions[j.Partition]; p != nil {
			hi = p.PriorityTier
		}
	case PreemptQOS:
		hi = q.opt.Preempt.QOS[j.QOS].Priority
	}
	hi = min(hi, 0xffff)
	n := uint32(0)
	if j.Nodes != nil {
		n = uint32(min(j.Nodes.GetCardinality(), 0xffff))
	}
	return hi<<16 + n
}

// mayPreempt is preempt_p_preemptable: whether job or (pending, in
// partition orPart) may preempt running job ee.
func (q *Queue) mayPreempt(or *Job, orPart string, ee *Job) bool {
	return q.preemptRule(or.Priority, or.QOS, orPart, ee.Priority, ee.QOS, ee.Partition)
}

// preemptRule is preempt_p_preemptable on what it reads of the two jobs:
// priority, QOS and partition of the preemptor and of the preemptee.
func (q *Queue) preemptRule(orPrio uint32, orQOS, orPart string, eePrio uint32, eeQOS, eePart string) bool {
	pc := &q.opt.Preempt
	switch pc.Type {
	case PreemptPartitionPrio:
		orP, eeP := q.cl.Partitions[orPart], q.cl.Partitions[eePart]
		if orP == nil || eeP == nil {
			return false
		}
		if pc.Flags.Priority && orPrio < eePrio {
			return false
		}
		return eeP.PriorityTier < orP.PriorityTier && q.opt.Partitions[eePart].PreemptMode != PreemptOff
	case PreemptQOS:
		qor, okOr := pc.QOS[orQOS]
		_, okEe := pc.QOS[eeQOS]
		if !okOr || !okEe {
			return false
		}
		if orQOS == eeQOS {
			if qor.Flags.Within || pc.Flags.Within {
				return orPrio > eePrio
			}
			return false
		}
		if !slices.Contains(qor.Preempt, eeQOS) {
			return false
		}
		if qor.Flags.Priority || pc.Flags.Priority {
			return orPrio > eePrio
		}
		return true
	}
	return false
}

// preemptsInQueue is preempt_g_job_preempt_check, which sort_job_queue2
// asks first: whether record a's job may preempt record b's.
func (q *Queue) preemptsInQueue(a, b record) bool {
	pc := &q.opt.Preempt
	switch pc.Type {
	case PreemptPartitionPrio:
		if pc.Flags.Priority && a.prio < b.prio {
			return false
		}
		return a.tier > b.tier && q.partsOverlap(a.part, b.part)
	case PreemptQOS:
		return q.preemptRule(a.prio, a.e.j.QOS, a.part, b.prio, b.e.j.QOS, b.part)
	}
	return false
}

// partsOverlap reports whether partitions a and b share a node,
// remembered per pair: the queue sort asks it for many records.
func (q *Queue) partsOverlap(a, b string) bool {
	key := [2]string{a, b}
	if v, ok := q.partOverlap[key]; ok {
		return v
	}
	if q.partOverlap == nil {
		q.partOverlap = map[[2]string]bool{}
	}
	pa, pb := q.cl.Partitions[a], q.cl.Partitions[b]
	v := pa != nil && pb != nil && pa.Nodes.Intersects(pb.Nodes)
	q.partOverlap[key] = v
	return v
}

// mayPreemptAny is a quick test before slurm_find_preemptable_jobs' walk:
// whether a job of qos in part could preempt any job at all (a lower,
// preemptable tier on shared nodes; a QOS with a Preempt list or WITHIN).
func (q *Queue) mayPreemptAny(qos, part string) bool {
	pc := &q.opt.Preempt
	switch pc.Type {
	case PreemptPartitionPrio:
		tier := q.cl.Partitions[part].PriorityTier
		for name, p := range q.cl.Partitions {
			if p.PriorityTier < tier && q.opt.Partitions[name].PreemptMode != PreemptOff && q.partsOverlap(part, name) {
				return true
			}
		}
		return false
	case PreemptQOS:
		qp, ok := pc.QOS[qos]
		return ok && (len(qp.Preempt) > 0 || qp.Flags.Within || pc.Flags.Within)
	}
	return false
}

// exempt is acct_policy_is_job_preempt_exempt: a job that has run less
// than its QOS's PreemptExemptTime, else the cluster's, is spared.
func (q *Queue) exempt(j *Job, now int64) bool {
	pc := &q.opt.Preempt
	t := pc.ExemptTime
	if qe, ok := pc.QOS[j.QOS]; ok && qe.ExemptSet {
		t = qe.ExemptTime
	}
	return now < j.Start+seconds(t)
}

// preemptCandidates is slurm_find_preemptable_jobs for job j pending in
// part: the running jobs it may preempt, that are not exempt and hold
// nodes of its partition, lowest preemption priority first (or youngest
// first). nil when there are none or preemption is off.
func (q *Queue) preemptCandidates(j *Job, part string, now int64) []uint32 {
	pc := &q.opt.Preempt
	if !pc.enabled() || !q.mayPreemptAny(j.QOS, part) {
		return nil
	}
	pnodes := q.cl.Partitions[part].Nodes
	var cands []*Job
	for _, id := range q.ids {
		ee := q.jobs[id].j
		if ee == j || (ee.State != Running && ee.State != Suspended) {
			continue
		}
		if !q.mayPreempt(j, part, ee) {
			continue
		}
		if pc.MinExemptPriority > 0 && pc.MinExemptPriority < ee.Priority {
			continue
		}
		if q.exempt(ee, now) {
			continue
		}
		if ee.Nodes == nil || !ee.Nodes.Intersects(pnodes) {
			continue
		}
		if ee.State == Suspended && !q.gangKeeps {
			// A suspended job holds no CPUs to give back (with
			// gangKeeps it holds them, as in Slurm's list).
			continue
		}
		cands = append(cands, ee)
	}
	if pc.YoungestFirst {
		slices.SortStableFunc(cands, func(a, b *Job) int { return cmp.Compare(b.Start, a.Start) })
	} else {
		slices.SortStableFunc(cands, func(a, b *Job) int { return cmp.Compare(q.preemptPrio(a), q.preemptPrio(b)) })
	}
	out := make([]uint32, 0, len(cands))
	for _, c := range cands {
		if m := q.jobMode(c); m == PreemptOff || m == PreemptModeUnset {
			continue
		}
		out = append(out, c.ID)
	}
	if len(out) == 0 {
		// None: the plugin must not take an empty list for "may
		// preempt", which costs it its fast will-run.
		return nil
	}
	return out
}

// PreemptEvent says that a pass preempted Victim for Preemptor.
type PreemptEvent struct {
	Victim, Preemptor uint32
	// Mode is what happened to the victim: CANCEL (state PREEMPTED),
	// REQUEUE (pending again), SUSPEND; with a grace time the victim runs
	// on until End.
	Mode PreemptMode
	// End is when the victim stops (now, or now plus its grace time).
	End int64
}

// preemptVictims is node_scheduler.c _preempt_jobs for preemptor j
// without gang scheduling: the victims are signalled (cancelled or
// requeued, after their grace time). It reports whether the preemptor must
// wait for them (ESLURM_NODES_BUSY) and the nodes of those still running.
func (q *Queue) preemptVictims(j *Job, victims []uint32, now int64, p *Pass) (wait bool, held *roaring.Bitmap) {
	held = roaring.New()
	kill := true
	if j.preemptStart != 0 && j.preemptStart > now-seconds(q.opt.Preempt.KillWait) {
		// Preemption still in progress: no more victims yet.
		kill = false
	}
	for _, id := range victims {
		ve := q.jobs[id]
		if ve == nil || ve.j.State != Running {
			continue
		}
		v := ve.j
		mode := q.jobMode(v)
		if mode != PreemptCancel && mode != PreemptRequeue {
			continue
		}
		wait = true
		if kill {
			q.preemptJob(v, j.ID, mode, now, p)
		}
		if v.State == Running {
			// Still running (grace time, or preemption in progress):
			// kept from later jobs of the pass. A stopped victim's
			// nodes are completing instead.
			held.Or(v.Nodes)
		}
	}
	if wait && kill {
		j.preemptStart = now
	}
	return wait, held
}

// preemptJob is slurm_job_preempt: the first time, the grace time starts
// (the victim's end moves to now+grace); once it is over (or without one)
// the victim is cancelled (state PREEMPTED) or requeued.
func (q *Queue) preemptJob(v *Job, by uint32, mode PreemptMode, now int64, p *Pass) {
	if v.PreemptTime == 0 {
		v.PreemptTime = now
		if g := q.graceTime(v); g > 0 {
			v.End = min(v.End, now+g)
			p.Preempted = append(p.Preempted, PreemptEvent{Victim: v.ID, Preemptor: by, Mode: mode, End: v.End})
			return
		}
	} else if now < v.End {
		return
	}
	// Its nodes come free as their epilogs report, after this pass: the
	// waiting preemptor is started by the main pass that follows, not by
	// a backfill cycle in the same second.
	q.endPreempted(v, by, mode, now, p, true)
}

// completingJob is a victim killed or requeued at at whose nodes are
// still completing (those whose epilogs have not completed).
type completingJob struct {
	id    uint32
	at    int64
	nodes *roaring.Bitmap
}

// completingNodes are the nodes of the victims still completing
// (slurmctld's cg_node_bitmap); nil when there are none.
func (q *Queue) completingNodes() *roaring.Bitmap {
	if len(q.completing) == 0 {
		return nil
	}
	cg := roaring.New()
	for _, c := range q.completing {
		cg.Or(c.nodes)
	}
	return cg
}

// EpilogComplete reports, with Options.ReportEpilogs, that the epilog of
// job id on node completed at now: the node comes free. Once the job's
// last node has, slurmctld runs a main pass (schedule() from the epilog
// RPC): Tick runs it at its next call, or the caller runs MainPass at
// once. A job or node not completing is an error.
func (q *Queue) EpilogComplete(id, node uint32, now int64) error {
	k := slices.IndexFunc(q.completing, func(c completingJob) bool { return c.id == id })
	if k < 0 {
		return &JobError{Job: id, Err: fmt.Errorf("%w: not completing", ErrNoJob)}
	}
	c := q.completing[k]
	if !c.nodes.Contains(node) {
		return &JobError{Job: id, Err: fmt.Errorf("node %d is not completing", node)}
	}
	c.nodes.Remove(node)
	q.touch(now)
	if c.nodes.IsEmpty() {
		q.completing = slices.Delete(q.completing, k, k+1)
		q.clock.immediate = true
	}
	return nil
}

// releaseCompleting frees the nodes of the victims preempted before now;
// their epilogs queue a main pass (Tick runs it at now). With
// ReportEpilogs their epilogs free them instead.
func (q *Queue) releaseCompleting(now int64) {
	if q.opt.ReportEpilogs {
		return
	}
	keep := q.completing[:0]
	for _, c := range q.completing {
		if c.at >= now {
			keep = append(keep, c)
			continue
		}
		q.clock.update = now
		q.clock.immediate = true
	}
	q.completing = keep
}

// endPreempted stops victim v at now: requeued (pending again, eligible
// after requeue_delay, reason BeginTime) when mode is REQUEUE and the job
// may be requeued, else killed (state PREEMPTED). Its resources are
// freed at once (select_g_job_fini); with completing its nodes stay
// completing (no job starts there) until the first pass after now, or
// with ReportEpilogs until their epilogs complete.
func (q *Queue) endPreempted(v *Job, by uint32, mode PreemptMode, now int64, p *Pass, completing bool) {
	if err := q.plugin.Fini(v.ID); err != nil {
		return
	}
	if completing {
		q.completing = append(q.completing, completingJob{id: v.ID, at: now, nodes: v.Nodes.Clone()})
	}
	if q.opt.Limits != nil {
		q.opt.Limits.End(v, now)
	}
	q.touch(now)
	q.clock.immediate = true
	if mode == PreemptRequeue && !v.NoRequeue {
		v.State, v.Start, v.End, v.Nodes, v.Alloc, v.PlannedNodes = Pending, 0, 0, nil, nil, nil
		v.PreemptTime = 0
		v.Restarts++
		v.Begin = now + seconds(q.cfg.RequeueDelay) + 1
		if v.Priority == 0 {
			// Loaded running without one: it queues with the
			// scheduler's, not held.
			v.Priority = q.sched.InitialPriority(q.lowest)
		}
		v.Eligible = 0
		v.setReason(ReasonBeginTime, "")
		p.Preempted = append(p.Preempted, PreemptEvent{Victim: v.ID, Preemptor: by, Mode: PreemptRequeue, End: now})
		return
	}
	v.State, v.End = Preempted, now
	v.setReason(ReasonNone, "")
	p.Preempted = append(p.Preempted, PreemptEvent{Victim: v.ID, Preemptor: by, Mode: PreemptCancel, End: now})
}

// suspendVictim suspends v for a preemptor (the gang scheduler's part).
func (q *Queue) suspendVictim(v *Job, now int64) {
	if !q.gangKeeps {
		if err := q.plugin.Suspend(v.ID); err != nil {
			return
		}
	}
	v.State, v.PreemptTime = Suspended, now
	q.touch(now)
}

// graceEnds stops the victims whose grace time is over (job_time_limit's
// preempt_time check). Under Tick's timers their nodes come free at once;
// with ReportEpilogs they stay completing until their epilogs, as those of
// any other stopped victim (a script that ignores SIGTERM holds its batch
// host until KillWait is over).
func (q *Queue) graceEnds(now int64, p *Pass) {
	if !q.opt.Preempt.enabled() {
		return
	}
	for _, id := range q.ids {
		if v := q.jobs[id].j; v.State == Running && v.PreemptTime != 0 && v.End <= now {
			q.endPreempted(v, 0, q.jobMode(v), now, p, q.opt.ReportEpilogs)
		}
	}
}

// nextGraceEnd is when the next preempted job's grace time ends (0: none).
func (q *Queue) nextGraceEnd() int64 {
	if !q.opt.Preempt.enabled() {
		return 0
	}
	next := int64(0)
	for _, id := range q.ids {
		if v := q.jobs[id].j; v.State == Running && v.PreemptTime != 0 && (next == 0 || v.End < next) {
			next = v.End
		}
	}
	return next
}

// resumeSuspended resumes the suspended jobs that fit again (the gang
// scheduler's resume when their preemptor ended), in submit order.
func (q *Queue) resumeSuspended(now int64) {
	for _, id := range q.ids {
		v := q.jobs[id].j
		if v.State != Suspended {
			continue
		}
		if q.suspendedBlocked(v) {
			continue
		}
		if !q.gangKeeps {
			if err := q.plugin.Resume(v.ID); err != nil {
				continue
			}
		}
		v.State, v.PreemptTime = Running, 0
		q.touch(now)
	}
}

// suspendedBlocked reports whether a running job that may preempt v holds
// one of v's nodes (with gangKeeps, one of its cores: the gang scheduler's
// shadows are core maps), so v stays suspended.
func (q *Queue) suspendedBlocked(v *Job) bool {
	cores := q.gangKeeps
	for _, id := range q.ids {
		o := q.jobs[id].j
		if o.State != Running || o.Nodes == nil || !o.Nodes.Intersects(v.Nodes) || !q.mayPreempt(o, o.Partition, v) {
			continue
		}
		if !cores || o.Alloc == nil || takesFrom(o.Alloc, v) {
			return true
		}
	}
	return false
}

// anySuspend reports whether some candidate is suspended when preempted
// (it keeps its memory).
func (q *Queue) anySuspend(cands []uint32) bool {
	for _, id := range cands {
		if q.opt.Preempt.Flags.Gang && q.jobMode(q.jobs[id].j) == PreemptSuspend {
			return true
		}
	}
	return false
}

// anyKilled reports whether a victim is cancelled or requeued when
// preempted.
func (q *Queue) anyKilled(victims []uint32) bool {
	for _, id := range victims {
		if m := q.jobMode(q.jobs[id].j); m == PreemptCancel || m == PreemptRequeue {
			return true
		}
	}
	return false
}

// allSuspend reports whether every candidate is suspended when preempted
// (it keeps its memory).
func (q *Queue) allSuspend(cands []uint32) bool {
	if len(cands) == 0 || !q.opt.Preempt.Flags.Gang {
		return false
	}
	for _, id := range cands {
		if q.jobMode(q.jobs[id].j) != PreemptSuspend {
			return false
		}
	}
	return true
}

// willFit tests e's job in part on use with the running jobs removed
// taken out (suspend: keeping their memory), as cons_tres tests it on its
// future usage: the allocation when the job could start then.
func (q *Queue) willFit(e *entry, part string, use *roaring.Bitmap, removed []uint32, suspend bool, now int64) *job.Allocation {
	req := e.part(part).req
	req.PreemptCandidates, req.PreemptSuspend, req.PreemptAll = removed, suspend, true
	defer func() { req.PreemptCandidates, req.PreemptSuspend, req.PreemptAll = nil, false, false }()
	a, err := q.plugin.Select(req, use.Clone(), job.RunNow, now)
	if err != nil {
		return nil
	}
	return a
}

// preemptPlace finds, for e's job that does not fit in part now, the
// running jobs to preempt and the allocation it would have without them
// (nil: preemption does not help). gang says the gang scheduler's way
// applies: the job starts at once and its victims go without grace time.
func (q *Queue) preemptPlace(e *entry, part string, use *roaring.Bitmap, now int64) (a *job.Allocation, victims []uint32, gang bool) {
	cands := q.preemptCandidates(e.j, part, now)
	gangPrio := q.opt.Preempt.Flags.Gang && q.opt.Preempt.Type == PreemptPartitionPrio
	if gangPrio && q.sharesNodes() {
		// cons_tres's tier placement; with gangKeeps lower tiers'
		// suspended jobs are candidates too, their cores in their
		// partitions' rows, which test 3 opens as it opens the
		// running jobs'.
		a, victims = q.gangPlace(e, part, use, cands, now)
		return a, victims, true
	}
	if len(cands) == 0 {
		return nil, nil, false
	}
	if gangPrio {
		// select/linear has no partition-tier placement: its _run_now
		// takes the candidates out one at a time, those to suspend
		// too (suspended ones with gangKeeps), and re-sorts them once.
		// The victims it lists go to _preempt_jobs, which leaves those
		// to suspend to the gang scheduler but signals the others, and
		// then the job waits for them.
		a, victims = q.runNowVictims(e, part, use, cands, true, now)
		return a, victims, !q.anyKilled(victims)
	}
	if q.opt.Preempt.Type == PreemptQOS && q.jobMode(q.jobs[cands[0]].j) == PreemptSuspend {
		a, victims = q.suspendPlace(e, part, use, cands, now)
		return a, victims, true
	}
	a, victims = q.runNowVictims(e, part, use, cands, !q.sharesNodes(), now)
	return a, victims, false
}

// sharesNodes reports whether the select plugin places jobs on a node's
// cores (cons_tres) rather than on whole nodes (select/linear).
func (q *Queue) sharesNodes() bool {
	s, ok := q.plugin.(job.NodeSharer)
	return ok && s.SharesNodes()
}

// runNowVictims is cons_tres _run_now's preemption loop: candidates are
// taken out one at a time, in order, until a will-run test fits the job;
// then (preempt_reorder_count times, unless preempt_strict_order moves the
// enabling job to the top) the list is re-sorted by how many of the chosen
// nodes each job holds, the enabling job first, and the walk starts over,
// to preempt fewer jobs. The victims are the removed jobs on the chosen
// nodes. linear is select/linear's _run_now: jobs to suspend are
// candidates too (keeping their memory), the list is re-sorted once, and
// by how many nodes each job taken out before the enabling one gave
// back when it was taken out (its usable_nodes), not by how many of the
// chosen nodes it holds.
func (q *Queue) runNowVictims(e *entry, part string, use *roaring.Bitmap, cands []uint32, linear bool, now int64) (*job.Allocation, []uint32) {
	type cand struct {
		id     uint32
		nodes  *roaring.Bitmap
		usable uint64
		// freed is, for linear, how many of its nodes became usable
		// when it was taken out.
		freed uint64
	}
	var list []cand
	for _, id := range cands {
		v := q.jobs[id].j
		if m := q.jobMode(v); m != PreemptCancel && m != PreemptRequeue && (!linear || m != PreemptSuspend) {
			continue
		}
		list = append(list, cand{id: id, nodes: v.Nodes})
	}
	suspend, reorder := false, q.cfg.PreemptReorderCount
	if linear {
		suspend, reorder = q.anySuspend(cands), 0
	}
	passes := 0
	for {
		var removed []uint32
		var a *job.Allocation
		last, final := -1, false
		room := q.newRoom(e.part(part).req, use)
		for k := range list {
			if !list[k].nodes.Intersects(use) {
				// _job_res_rm_job refuses a job off the nodes: untested.
				continue
			}
			removed = append(removed, list[k].id)
			list[k].usable = 0
			if linear {
				// Its nodes on use that no candidate still in
				// place holds.
				free := roaring.And(list[k].nodes, use)
				for _, c := range list[k+1:] {
					free.AndNot(c.nodes)
				}
				list[k].freed = free.GetCardinality()
			}
			if !room.free(q.jobs[list[k].id].j) {
				// Too few CPUs yet: the test would fail.
				continue
			}
			a = q.willFit(e, part, use, removed, suspend, now)
			if a == nil {
				continue
			}
			last = k
			passes++
			if passes-1 > reorder || len(list) <= passes {
				for r := k + 1; r < len(list); r++ {
					list[r].usable = 1
				}
				final = true
			}
			break
		}
		if last < 0 {
			return nil, nil
		}
		if final {
			var victims []uint32
			for _, c := range list {
				if !c.nodes.Intersects(a.Nodes) {
					continue
				}
				if c.usable != 0 {
					break
				}
				victims = append(victims, c.id)
			}
			if len(victims) == 0 {
				return nil, nil
			}
			return a, victims
		}
		if q.cfg.PreemptStrictOrder {
			c := list[last]
			copy(list[1:last+1], list[:last])
			list[0] = c
			continue
		}
		list[last].usable = 99999
		for d := 0; d < last; d++ {
			if linear {
				list[d].usable = list[d].freed
			} else {
				list[d].usable = list[d].nodes.AndCardinality(a.Nodes)
			}
		}
		for d := last + 1; d < len(list); d++ {
			list[d].usable = 0
		}
		slices.SortStableFunc(list, func(x, y cand) int { return cmp.Compare(y.usable, x.usable) })
	}
}

// room counts the CPUs free on a preemptor's candidate nodes as victims
// are taken out: fewer nodes with a free CPU than the job's minimum, or
// fewer free CPUs than it asks for, and no test could fit it, so none is
// run (Slurm runs it; the answer is the same, sooner).
type room struct {
	cpu             map[uint32]int // free CPUs by node (negative: overbooked)
	nodes, cpus     int
	minNodes, needs int
}

// newRoom is the room on use with every running job in place.
func (q *Queue) newRoom(req *job.Request, use *roaring.Bitmap) *room {
	minN, _, _ := req.NodeCounts(0)
	r := &room{cpu: map[uint32]int{}, minNodes: minN, needs: max(req.NTasks*req.CPUsPerTaskOr1(), minN)}
	it := use.Iterator()
	for it.HasNext() {
		id := it.Next()
		r.cpu[id] = q.cl.CPUs[id]
	}
	for _, id := range q.ids {
		j := q.jobs[id].j
		if j.State != Running || j.Alloc == nil {
			continue
		}
		for _, na := range j.Alloc.PerNode {
			if f, ok := r.cpu[na.ID]; ok {
				r.cpu[na.ID] = f - na.CPUs
			}
		}
	}
	for _, f := range r.cpu {
		if f > 0 {
			r.nodes++
			r.cpus += f
		}
	}
	return r
}

// free gives v's CPUs back and reports whether the job may fit now.
func (r *room) free(v *Job) bool {
	if v.Alloc != nil {
		for _, na := range v.Alloc.PerNode {
			f, ok := r.cpu[na.ID]
			if !ok {
				continue
			}
			if f <= 0 && f+na.CPUs > 0 {
				r.nodes++
			}
			r.cpus += max(f+na.CPUs, 0) - max(f, 0)
			r.cpu[na.ID] = f + na.CPUs
		}
	}
	return r.nodes >= r.minNodes && r.cpus >= r.needs
}

// gangPlace is cons_tres _job_test with preempt/partition_prio under
// gang scheduling, once test 1 (idle cores) failed: the job is placed as if
// no job of a lower tier ran (test 3), then, partition by partition from
// the highest lower tier down, as far as it still fits, kept off their
// jobs; if that fails, over other same-tier partitions' jobs too (test 4).
// The victims are the running candidates whose cores it takes.
func (q *Queue) gangPlace(e *entry, part string, use *roaring.Bitmap, cands []uint32, now int64) (*job.Allocation, []uint32) {
	// The plugin takes one rule for every removed job: with any victim
	// suspended, none gives its memory back in the plan.
	suspend := q.anySuspend(cands) || q.gangKeeps
	var a *job.Allocation
	if len(cands) > 0 {
		a = q.willFit(e, part, use, cands, suspend, now)
	}
	if a == nil && q.gangKeeps {
		// Test 4: the job's partition's own row is all that is left
		// out, so it goes over other same-tier partitions' jobs too,
		// which stay as they are (the gang scheduler shadows lower
		// tiers only).
		if others := q.sameTierOthers(part); len(others) > 0 {
			a = q.willFit(e, part, use, append(slices.Clone(cands), others...), true, now)
			if a == nil {
				return nil, nil
			}
			return a, q.gangVictims(a, cands)
		}
	}
	if a == nil {
		return nil, nil
	}
	kept := cands
	for _, lower := range q.lowerPartitions(part) {
		var trial []uint32
		for _, id := range kept {
			if q.jobs[id].j.Partition != lower {
				trial = append(trial, id)
			}
		}
		if len(trial) == len(kept) {
			continue
		}
		if len(trial) == 0 {
			break
		}
		b := q.willFit(e, part, use, trial, suspend, now)
		if b == nil {
			break
		}
		kept, a = trial, b
	}
	return a, q.gangVictims(a, kept)
}

// gangVictims are the running jobs of lower (the lower tiers' jobs a
// placed over) whose cores a takes; a's Preempted is cleared, since the
// gang scheduler, not the plugin, stops them.
func (q *Queue) gangVictims(a *job.Allocation, lower []uint32) []uint32 {
	var victims []uint32
	for _, id := range lower {
		if v := q.jobs[id].j; v.State == Running && takesFrom(a, v) {
			victims = append(victims, id)
		}
	}
	a.Preempted = nil
	return victims
}

// sameTierOthers are the jobs of the partitions of part's tier other than
// part whose cores cons_tres's test 4 opens, which leaves only part's own
// row out (step 2, those of higher tiers and of PreemptMode=OFF
// partitions): suspended jobs, and running jobs that share their nodes; a
// running job that holds its nodes whole keeps them out of
// share_node_bitmap, which _pick_best_nodes applies first.
func (q *Queue) sameTierOthers(part string) []uint32 {
	tier := q.cl.Partitions[part].PriorityTier
	var out []uint32
	for _, id := range q.ids {
		v := q.jobs[id].j
		if (v.State != Running && v.State != Suspended) || v.Partition == part {
			continue
		}
		if v.State == Running && (v.Alloc == nil || v.Alloc.WholeNode) {
			continue
		}
		if p := q.cl.Partitions[v.Partition]; p != nil && p.PriorityTier == tier && q.opt.Partitions[v.Partition].PreemptMode != PreemptOff {
			out = append(out, id)
		}
	}
	return out
}

// takesFrom reports whether allocation a takes resources v holds: a core
// of v on a shared node (the gang scheduler preempts only the jobs whose
// cores the new job's overlap), or any of v's nodes when either holds
// its nodes whole or has no core numbers (select/linear).
func takesFrom(a *job.Allocation, v *Job) bool {
	if v.Nodes == nil || !v.Nodes.Intersects(a.Nodes) {
		return false
	}
	if v.Alloc == nil || a.WholeNode || v.Alloc.WholeNode {
		return true
	}
	for _, na := range a.PerNode {
		i, found := slices.BinarySearchFunc(v.Alloc.PerNode, na.ID, func(n job.NodeAlloc, id uint32) int { return cmp.Compare(n.ID, id) })
		if !found {
			continue
		}
		vc := v.Alloc.PerNode[i].Cores
		if len(na.Cores) == 0 || len(vc) == 0 {
			return true
		}
		for _, c := range na.Cores {
			if slices.Contains(vc, c) {
				return true
			}
		}
	}
	return false
}

// suspendPlace is cons_tres _run_now's preempt/qos path when the first
// candidate is suspended when preempted: the candidates of that mode are
// taken out (keeping their memory) one at a time until the job fits; it
// starts at once and the gang scheduler suspends those on its nodes.
func (q *Queue) suspendPlace(e *entry, part string, use *roaring.Bitmap, cands []uint32, now int64) (*job.Allocation, []uint32) {
	var removed []uint32
	for _, id := range cands {
		if q.jobMode(q.jobs[id].j) != PreemptSuspend {
			continue
		}
		removed = append(removed, id)
		a := q.willFit(e, part, use, removed, true, now)
		if a == nil {
			continue
		}
		var victims []uint32
		for _, v := range removed {
			if q.jobs[v].j.Nodes.Intersects(a.Nodes) {
				victims = append(victims, v)
			}
		}
		return a, victims
	}
	return nil, nil
}

// lowerPartitions are the partitions of a lower PriorityTier than part,
// highest tier first, ties in Options.PartitionOrder (else by name).
func (q *Queue) lowerPartitions(part string) []string {
	tier := q.cl.Partitions[part].PriorityTier
	order := q.opt.PartitionOrder
	if len(order) == 0 {
		for name := range q.cl.Partitions {
			order = append(order, name)
		}
		slices.Sort(order)
	}
	var out []string
	for _, name := range order {
		if p := q.cl.Partitions[name]; p != nil && p.PriorityTier < tier {
			out = append(out, name)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Compare(q.cl.Partitions[b].PriorityTier, q.cl.Partitions[a].PriorityTier)
	})
	return out
}

// gangPreempt is the gang scheduler's _preempt_job_dequeue for a job that
// started over lower-tier jobs: each victim is suspended, cancelled
// (PREEMPTED) or requeued at once, without grace time. It returns the
// nodes of the victims cancelled or requeued: they are completing until
// their epilogs, after the pass, and _pick_best_nodes leaves completing
// nodes (cg_node_bitmap) out for every job.
func (q *Queue) gangPreempt(j *Job, victims []uint32, now int64, p *Pass) (completing *roaring.Bitmap) {
	completing = roaring.New()
	for _, id := range victims {
		v := q.jobs[id].j
		switch mode := q.jobMode(v); mode {
		case PreemptSuspend:
			if v.State == Suspended {
				// Already suspended: a candidate whose resources
				// the plugin still held.
				continue
			}
			q.suspendVictim(v, now)
			p.Preempted = append(p.Preempted, PreemptEvent{Victim: id, Preemptor: j.ID, Mode: PreemptSuspend, End: now})
		case PreemptCancel, PreemptRequeue:
			completing.Or(v.Nodes)
			q.endPreempted(v, j.ID, mode, now, p, false)
		}
	}
	return completing
}
