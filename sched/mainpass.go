package sched

import (
	"errors"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/select/job"
)

// yearSeconds is how long backfill and the estimates take an unlimited job
// to run (Slurm's YEAR_SECONDS).
const yearSeconds = 365 * 24 * 60 * 60

// limitSeconds is a time limit in seconds, a year for none.
func limitSeconds(d time.Duration) int64 {
	if d <= 0 {
		return yearSeconds
	}
	return int64(d / time.Second)
}

// detailBlocked is the state_desc _schedule() gives a job whose partition
// has fewer available nodes than it needs.
const detailBlocked = "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions"

// detailMaint is select_nodes' state_desc for a job a MAINT reservation
// keeps from its whole partition.
const detailMaint = "ReqNodeNotAvail, Reserved for maintenance"

// exitEndOfQueue is the main pass's exit when it tested every record.
const exitEndOfQueue = "end of queue"

// outcome is select_nodes' answer, reduced to what the passes act on.
type outcome uint8

const (
	started      outcome = iota
	busy                 // ESLURM_NODES_BUSY: Resources
	nodeNotAvail         // ESLURM_NODE_NOT_AVAIL: ReqNodeNotAvail
	never                // ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE: BadConstraints
	policy               // ESLURM_ACCOUNTING_POLICY
	resvWait             // ESLURM_RESERVATION_BUSY, _NOT_USABLE: Reservation
)

// MainPass is _schedule() (§3.2): records in queue order; a partition
// whose first job cannot start for resources is blocked for the rest of
// the pass (its nodes withheld from every later job), except that a job
// with a node list blocks only those nodes. full is a periodic pass over
// the whole queue; otherwise default_queue_depth bounds it. p collects what
// happened.
func (q *Queue) MainPass(now int64, full bool, p *Pass) {
	if q.reuseMain(now, full, p) {
		return
	}
	changes, notAvail, started, tested := q.clock.changes, q.reasonSets.notAvail, len(p.Started), p.MainTested
	q.mainPass(now, full, p)
	q.mainLast = mainReuse{
		reused: q.mainLast.reused,
		ok: q.clock.changes == changes && q.reasonSets.notAvail == notAvail && len(p.Started) == started &&
			q.mainReusable(),
		full: full, changes: changes, reasons: q.reasonSets.changes, builds: q.built.gen,
		tested: p.MainTested - tested, exit: p.MainExit,
	}
}

// mainReuse is the last main pass, which stands for the next ones while
// nothing it read changes (reuseMain).
type mainReuse struct {
	// ok says that the pass, made again on what it left, would make the
	// same tests with the same answers and write what it wrote: it
	// started no job and gave no job ReqNodeNotAvail. That is the one
	// reason it reads to decide (such a job is skipped, and its named
	// nodes are then not withheld); the others it sets it only reads to
	// set Priority instead, which it wrote already. It also wrote the
	// jobs' partitions, which it does not read, and the busy memo, which
	// gives the answers it found.
	ok, full bool
	// changes and reasons are the queue's change and reason change
	// counts, builds its count of fresh queue builds, after the pass.
	changes, reasons, builds uint64
	// tested and exit are what the pass reported.
	tested int
	exit   string
	// reused counts the passes it stood for (the tests read it).
	reused int
}

// mainReusable reports whether a main pass may stand for the next ones:
// every change comes through the queue's methods and the tests read no
// clock (reuseAllowed), and the queue builds stand (buildsStand).
func (q *Queue) mainReusable() bool {
	return !q.plainMain && q.reuseAllowed() && q.buildsStand()
}

// covers reports whether the pass went as far as one of kind full would:
// one of the same kind, or a partial pass (default_queue_depth) that
// reached the end of the queue for a full one. A full pass stands for no
// partial one: Tick runs a partial pass after a change, which a reused
// pass never follows.
func (m *mainReuse) covers(full bool) bool {
	return m.full == full || (full && m.exit == exitEndOfQueue)
}

// reuseMain stands the last main pass in for one at now when that pass
// made again would change nothing (mainReuse.ok) and nothing it read
// changed since: no job, node, reservation or configuration (the change
// count), no reason (set by backfill's start tests or a queue build), no
// fresh queue build (its eligible times and reasons), and the queue build
// stands at now. The pass would then make the same tests on the same
// records with the same answers (the plugin's answers read no clock
// without hooks) and set what they hold already: a simulator's periodic
// main passes mostly find the queue as the last one left it. It reports
// whether it did.
func (q *Queue) reuseMain(now int64, full bool, p *Pass) bool {
	m := &q.mainLast
	if !m.ok || !m.covers(full) || m.changes != q.clock.changes || m.reasons != q.reasonSets.changes ||
		m.builds != q.built.gen || !q.mainReusable() || !q.builtStands(now, false) {
		return false
	}
	q.passNow = now
	p.MainTested += m.tested
	p.MainExit = m.exit
	m.reused++
	return true
}

// mainPass is MainPass made afresh.
func (q *Queue) mainPass(now int64, full bool, p *Pass) {
	if q.opt.Priority != nil {
		q.opt.Priority.Refresh(q.pending(), now)
	}
	recs := q.buildQueue(now, false, false)
	avail := q.cl.Usable.Clone()
	var failed, cleared partSet
	perPart := map[string]int{}
	depth, startedCnt := 0, 0
	for _, s := range q.resvs {
		s.schedFailed = false
	}
	q.passNow = now
	clock := q.newBudget()
	p.MainExit = exitEndOfQueue
	// The records mostly name one partition: its nodes are looked up when
	// the partition changes from one record to the next.
	var part string
	var partNodes *roaring.Bitmap
	for _, r := range recs {
		e, j := r.e, r.e.j
		if j.State != Pending || j.Priority == 0 {
			continue
		}
		j.Partition = r.part
		if j.preemptInProgress {
			// It preempted jobs in another partition this pass.
			continue
		}
		if clock.over(q.cfg.MaxSchedTime) {
			p.MainExit = "max_sched_time"
			break
		}
		clock.charge(q.cfg.SchedTestCost)
		if q.cfg.SchedMaxJobStart > 0 && startedCnt >= q.cfg.SchedMaxJobStart {
			p.MainExit = "sched_max_job_start"
			break
		}
		if q.cfg.PartitionJobDepth > 0 {
			perPart[r.part]++
			if perPart[r.part] > q.cfg.PartitionJobDepth {
				if j.Reason == ReasonNone {
					j.setReason(ReasonPriority, "")
				}
				continue
			}
		}
		if !full {
			depth++
			if depth-1 > q.cfg.DefaultQueueDepth {
				p.MainExit = "default_queue_depth"
				break
			}
		}
		p.MainTested++
		if partNodes == nil || part != r.part {
			part, partNodes = r.part, q.cl.Partitions[r.part].Nodes
		}
		var rs *resvState
		if j.Reservation != "" {
			rs = q.resv(j.Reservation)
		}
		if rs != nil {
			// A job in a reservation is not held back by its
			// partition, only by an earlier job of the reservation.
			if rs.schedFailed {
				j.setReason(ReasonPriority, "")
				continue
			}
		} else if failed.has(r.part) {
			if !cleared.has(r.part) {
				withhold(avail, partNodes)
				cleared.add(r.part)
			}
			if j.Reason == ReasonNone || j.Reason == ReasonResources {
				j.setReason(ReasonPriority, "")
			}
			q.explained(j, q.explainMain(e, r.part, avail))
			continue
		}
		if q.opt.Limits != nil {
			if ok, reason, detail := q.opt.Limits.PreSelect(j, now); !ok {
				j.setReason(reason, detail)
				continue
			}
		}
		pr := e.part(r.part)
		req := pr.req
		if j.Reason == ReasonReqNodeNotAvail && req.RequiredSet != nil && !req.RequiredSet.IsEmpty() && !isSubset(req.RequiredSet, avail) {
			continue
		}
		minN, _, _ := req.NodeCounts(0)
		failByPart, nonReserve := false, false
		if n := int(avail.AndCardinality(partNodes)); minN > n {
			j.setReason(ReasonResources, detailBlocked)
			q.explained(j, q.explainMain(e, r.part, avail))
			failByPart = true
		} else {
			ex := q.explainMain(e, r.part, avail)
			out := q.startNowMemo(e, r.part, avail, now, limitSeconds(req.TimeLimit), p)
			q.explained(j, ex)
			switch out {
			case started:
				startedCnt++
				p.Started = append(p.Started, j.ID)
				continue
			case busy:
				failByPart = true
			case policy:
				failByPart = q.cfg.AssocLimitStop
			case resvWait:
				if rs != nil && rs.r.Nodes != nil {
					avail.AndNot(rs.r.Nodes)
				}
			}
			if req.RequiredSet != nil && int(req.RequiredSet.GetCardinality()) >= minN && !req.RequiredSet.IsEmpty() {
				// Only the job's own nodes are withheld.
				failByPart = false
				avail.AndNot(req.RequiredSet)
			}
			if failByPart && rs != nil {
				// Other jobs of the partition go on; only jobs of a FLEX
				// or ANY_NODES reservation, which may use nodes outside
				// it, keep the partition's unreserved nodes from them.
				if rs.r.Flags&(ResvFlex|ResvAnyNodes) != 0 {
					nonReserve = true
				} else {
					failByPart = false
				}
				rs.schedFailed = true
			}
			if failByPart && q.cfg.BFMinAgeReserve > 0 {
				if j.Eligible == 0 || time.Duration(now-j.Eligible)*time.Second < q.cfg.BFMinAgeReserve {
					failByPart = false
				}
			}
			if r := q.prioReserve(j, q.cfg.BFMinPrioReserve); failByPart && r > 0 && j.Priority < r {
				failByPart = false
			}
		}
		switch {
		case failByPart && nonReserve:
			// The partition's unreserved nodes are withheld; its
			// reserved ones go when its next job without a
			// reservation is skipped.
			failed.add(r.part)
			un := partNodes.Clone()
			for _, s := range q.resvs {
				if s.r.Nodes != nil {
					un.AndNot(s.r.Nodes)
				}
			}
			avail.AndNot(un)
		case failByPart:
			failed.add(r.part)
			cleared.add(r.part)
			withhold(avail, partNodes)
		}
	}
}

// partSet is a set of partition names: a pass blocks few partitions, and
// comparing a record's partition with their names costs less than hashing
// it for every record.
type partSet []string

func (s partSet) has(p string) bool {
	for _, n := range s {
		if n == p {
			return true
		}
	}
	return false
}

func (s *partSet) add(p string) {
	if !s.has(p) {
		*s = append(*s, p)
	}
}

// withhold takes nodes out of avail. A blocked partition usually holds
// every node left (one partition), which clearing finds without the
// container conversions of AndNot.
func withhold(avail, nodes *roaring.Bitmap) {
	if n := avail.GetCardinality(); n == 0 || avail.AndCardinality(nodes) == n {
		avail.Clear()
		return
	}
	avail.AndNot(nodes)
}

// pending lists the pending jobs.
func (q *Queue) pending() []*Job {
	var out []*Job
	for _, id := range q.ids {
		if j := q.jobs[id].j; j.State == Pending {
			out = append(out, j)
		}
	}
	return out
}

func isSubset(a, b *roaring.Bitmap) bool {
	return a.AndCardinality(b) == a.GetCardinality()
}

// startNow is select_nodes() in run-now mode on the nodes of avail: it
// starts the job or sets its reason. With preemption, a job that does not
// fit may preempt running jobs (preemptPlace): with GANG it starts at once
// beside its suspended victims or after its cancelled and requeued ones
// (the gang scheduler's way); otherwise its victims are signalled (p
// records them) and it waits for them (busy), their nodes leaving avail.
// dur is how long the job is taken to run when testing the reservations
// (its time_min under backfill).
func (q *Queue) startNow(e *entry, part string, avail *roaring.Bitmap, now, dur int64, p *Pass) outcome {
	j := e.j
	pr := e.part(part)
	if pr.err != nil {
		j.setReason(ReasonBadConstraints, "")
		return never
	}
	req := pr.req
	use := candidatesIn(q.cl, pr.cands, avail)
	// No job starts on a node still completing: _get_req_features takes
	// them out of every node set, but starts from the job's required
	// nodes as they are, where select/linear may place it and cons_tres
	// fails (it skips a completing node: the nodes are busy).
	requiredCompleting, completing := false, false
	if cg := q.completingNodes(); cg != nil {
		if rq := req.RequiredSet; rq != nil && !rq.IsEmpty() {
			requiredCompleting = q.sharesNodes() && rq.Intersects(cg)
			cg.AndNot(rq)
		}
		completing = use.Intersects(cg)
		use.AndNot(cg)
	}
	// ever is where the job could run were every node free: its
	// reservation's nodes, for a job in one.
	ever := pr.cands
	allowed, overlap, rc, _ := q.resvTest(e, part, now, dur, false)
	maint := false
	switch {
	case j.Reservation != "" && rc != resvOK:
		// _build_node_list: a reservation not yet usable or that the
		// job cannot use.
		j.setReason(ReasonReservation, "")
		if rc == resvLater {
			return resvWait
		}
		return never
	case j.Reservation != "":
		if rq := req.RequiredSet; rq != nil && !rq.IsEmpty() && !isSubset(rq, allowed) {
			// _build_node_list: "Required nodes outside of the
			// reservation" (another one may hold them now).
			j.setReason(ReasonReservation, "")
			return never
		}
		if overlap && allowed.IsEmpty() {
			j.setReason(ReasonReqNodeNotAvail, detailMaint)
			return resvWait
		}
		use.And(allowed)
		ever = roaring.And(ever, allowed)
	case rc == resvMaint || rc == resvBusy:
		// _get_req_features: no node is available, but selection goes
		// on to tell whether the job could ever run.
		use.Clear()
		maint = rc == resvMaint
	case allowed != nil:
		use.And(allowed)
	}
	if req.RequiredSet != nil && !req.RequiredSet.IsEmpty() {
		if !isSubset(req.RequiredSet, pr.cands) {
			j.setReason(ReasonBadConstraints, "")
			return never
		}
		if !isSubset(req.RequiredSet, use) {
			if maint {
				j.setReason(ReasonReqNodeNotAvail, detailMaint)
				return resvWait
			}
			j.setReason(ReasonReqNodeNotAvail, q.unavailDetail(req.RequiredSet, part, avail))
			return nodeNotAvail
		}
		if requiredCompleting {
			j.setReason(ReasonResources, "")
			return busy
		}
	}
	a, err := q.selectFlex(j, req, use, now)
	var victims []uint32
	gang := false
	if err != nil && errors.Is(err, job.ErrBusy) {
		if pa, pv, g := q.preemptPlace(e, part, use, now); pa != nil {
			a, err, victims, gang = pa, nil, pv, g
		}
	}
	if err != nil {
		if errors.Is(err, job.ErrNever) {
			// Not runnable on the available nodes even when they are
			// free (_pick_best_nodes' runable_avail is false): never
			// runnable if not on every configured candidate either,
			// else ESLURM_NODE_NOT_AVAIL when no candidate is busy.
			if _, terr := q.plugin.Select(req, ever.Clone(), job.TestOnly, now); terr != nil {
				if j.Reservation != "" && overlap {
					// Not runnable in its reservation as other
					// reservations leave it (ESLURM_RESERVATION_BUSY).
					j.setReason(ReasonReservation, "")
					return resvWait
				}
				if len(req.Constraints) > 0 {
					// Extra constraints may be met later (FAIL_CONSTRAINTS).
					j.setReason(ReasonConstraints, "")
				} else {
					j.setReason(ReasonBadConstraints, "")
				}
				return never
			}
			// A completing node taken out counts as busy, as
			// _pick_best_nodes counts the nodes its node sets lose.
			if !completing && !q.busy(req, part, use) {
				if maint {
					j.setReason(ReasonReqNodeNotAvail, detailMaint)
					return resvWait
				}
				j.setReason(ReasonReqNodeNotAvail, q.unavailDetail(req.RequiredSet, part, avail))
				return nodeNotAvail
			}
		}
		// select_nodes checks the accounting limits even when selection
		// failed (with the request's counts), and their reason wins.
		if q.opt.Limits != nil {
			if ok, reason, detail := q.opt.Limits.PostSelect(j, nil, now); !ok {
				j.setReason(reason, detail)
				return policy
			}
		}
		j.setReason(ReasonResources, "")
		return busy
	}
	if q.opt.Limits != nil {
		if ok, reason, detail := q.opt.Limits.PostSelect(j, a, now); !ok {
			j.setReason(reason, detail)
			return policy
		}
	}
	if len(victims) > 0 {
		if gang {
			avail.AndNot(q.gangPreempt(j, victims, now, p))
		} else if wait, held := q.preemptVictims(j, victims, now, p); wait {
			j.preemptInProgress = true
			avail.AndNot(held)
			j.setReason(ReasonResources, "")
			return busy
		}
		a.Preempted = nil
	}
	if err := q.begin(e, part, a, now); err != nil {
		j.setReason(ReasonResources, "")
		return busy
	}
	return started
}

// candidatesIn is the candidates cands of a job that lie in avail (a set
// of usable nodes), in a bitmap of its own. Candidates are live nodes, and
// usable ones are too: when cands are every live node (a one-partition
// cluster's jobs without constraints), that is avail itself, copied at a
// fraction of an intersection's cost.
func candidatesIn(cl *job.Cluster, cands, avail *roaring.Bitmap) *roaring.Bitmap {
	if cands.GetCardinality() == cl.Snap.Live().GetCardinality() {
		return avail.Clone()
	}
	return roaring.And(cands, avail)
}

// begin records that e's job starts on a at now.
func (q *Queue) begin(e *entry, part string, a *job.Allocation, now int64) error {
	j := e.j
	req := e.part(part).req
	a.Start = now
	if err := q.plugin.Begin(req, a); err != nil {
		return err
	}
	for _, v := range a.Preempted {
		// The select plugin removed the victims; preemption modes are not
		// modelled yet, so a victim is cancelled.
		if ve, ok := q.jobs[v]; ok && ve.j.State == Running {
			ve.j.State, ve.j.End = Cancelled, now
		}
	}
	j.State, j.Partition, j.Start, j.Alloc = Running, part, now, a
	j.End = now + limitSeconds(req.TimeLimit)
	j.Nodes, j.PlannedNodes = a.Nodes.Clone(), nil
	j.setReason(ReasonNone, "")
	q.touch(now)
	q.clock.ran++
	if b := &q.built; len(b.begun) <= maxBegun {
		b.begun = append(b.begun, e)
	}
	if q.opt.Limits != nil {
		q.opt.Limits.Begin(j, now)
	}
	return nil
}

// startNowMemo is startNow for the main pass, which remembers a job it
// found busy on every usable node until the queue changes other than by
// submissions: a simulator's main pass runs every sched_interval and after
// every submission, and mostly finds its first job blocked as the last one
// did. While nothing changed but the pending jobs (the cluster, the
// plugin's jobs and the job itself are the same) and the job is tested on
// the same nodes, its selection fails the same way (reuseAllowed: no hook,
// reservation or preemption, and the plugin's answers read no clock), and
// only its reason is set again.
func (q *Queue) startNowMemo(e *entry, part string, avail *roaring.Bitmap, now, dur int64, p *Pass) outcome {
	whole := q.reuseAllowed() && !q.plainMain && avail.GetCardinality() == q.cl.Usable.GetCardinality()
	key := q.clock.resourceChanges() + 1
	if whole && e.busyAt == key && e.busyPart == part {
		e.j.setReason(ReasonResources, "")
		return busy
	}
	out := q.startNow(e, part, avail, now, dur, p)
	if e.busyAt = 0; whole && out == busy && e.j.Reason == ReasonResources && e.j.ReasonDetail == "" {
		e.busyAt, e.busyPart = key, part
	}
	return out
}

// busy is _pick_best_nodes' nodes_busy for req in part on the nodes use:
// one of them is taken from the job. A job that shares nodes (cons_tres,
// not exclusive) is tested on the shareable nodes, so only a node a
// running job holds whole (share_res 0: exclusive, or a whole-node
// partition) is busy for it; any other job is tested on idle nodes, so
// any node a running job holds is. With preemption enabled neither filter
// is applied (preempt_flag), so no running job makes a node busy (only
// completing and rebooting nodes do, which sift does not count here):
// p3-38-04's 32-task job pends with "ReqNodeNotAvail, May be reserved for
// other job" on the one node a reservation leaves it.
func (q *Queue) busy(req *job.Request, part string, use *roaring.Bitmap) bool {
	if q.opt.Preempt.enabled() {
		return false
	}
	shares := false
	if s, ok := q.plugin.(job.NodeSharer); ok && s.SharesNodes() && !req.Exclusive {
		if cp := q.cl.Partitions[part]; cp == nil || !cp.Exclusive {
			shares = true
		}
	}
	for _, id := range q.ids {
		j := q.jobs[id].j
		if j.State != Running || j.Nodes == nil || !j.Nodes.Intersects(use) {
			continue
		}
		if !shares || (j.Alloc != nil && j.Alloc.WholeNode) {
			return true
		}
	}
	return false
}

// unavailDetail is select_nodes' state_desc for ESLURM_NODE_NOT_AVAIL: the
// partition's nodes (the required ones, if the job names nodes) that are
// not available and down, else a note that they may be reserved.
func (q *Queue) unavailDetail(required *roaring.Bitmap, part string, avail *roaring.Bitmap) string {
	un := q.cl.Partitions[part].Nodes.Clone()
	if required != nil && !required.IsEmpty() {
		un.And(required)
	}
	un.AndNot(avail)
	un.And(q.cl.Down)
	if un.IsEmpty() {
		return "ReqNodeNotAvail, May be reserved for other job"
	}
	var names []string
	it := un.Iterator()
	for it.HasNext() {
		if nd, ok := q.cl.Snap.Node(it.Next()); ok {
			names = append(names, nd.Name)
		}
	}
	return "ReqNodeNotAvail, UnavailableNodes:" + hostlist.Compress(hostlist.Slurm, names)
}

// estimateStarts is sched/builtin's _compute_start_times (§3.3): a will-run
// estimate per job in queue order, pushed past the last estimated job's end
// when its nodes overlap nodes already promised.
func (q *Queue) estimateStarts(now int64) {
	recs := q.buildQueue(now, true, false)
	promised := roaring.New()
	lastAlloc := now - 1
	cnt := 0
	for _, r := range recs {
		e, j := r.e, r.e.j
		if j.State != Pending || r.part != j.Partition {
			continue
		}
		cnt++
		if cnt-1 > q.cfg.BuiltinMaxJobTest {
			break
		}
		pr := e.part(r.part)
		if pr.err != nil {
			continue
		}
		pc := q.opt.Partitions[r.part]
		minN, _, _ := pr.req.NodeCounts(0)
		if pc.MaxNodes > 0 && max(minN, pc.MinNodes) > pc.MaxNodes {
			continue
		}
		// Start-time estimates skip what the reservations keep from the
		// job, as _compute_start_times asks job_test_resv.
		allowed, _, rc, when := q.resvTest(e, r.part, now, limitSeconds(pr.req.TimeLimit), true)
		if rc != resvOK {
			continue
		}
		cands := pr.cands.Clone()
		if allowed != nil {
			cands.And(allowed)
		}
		a, err := q.plugin.Select(pr.req, cands, job.WillRun, when)
		if err != nil {
			continue
		}
		start := a.Start
		if promised.Intersects(a.Nodes) && start <= lastAlloc {
			start = lastAlloc
		}
		j.Start = start
		promised.Or(a.Nodes)
		lastAlloc = start + limitSeconds(pr.req.TimeLimit)
	}
}
