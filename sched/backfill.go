package sched

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// bfCounts are the per-pass counters of the bf_max_job_* caps.
type bfCounts struct {
	user, part, assoc, userPart, resvPart map[string]int
}

// exceeds is _job_exceeds_max_bf_param: whether job j in part is over a
// bf_max_job_* cap; otherwise it is counted.
func (c *bfCounts) exceeds(cfg Config, j *Job, part string) bool {
	if cfg.BFMaxJobUserPart <= 0 && cfg.BFMaxJobPart <= 0 && cfg.BFMaxJobAssoc <= 0 && cfg.BFMaxJobUser <= 0 {
		// Nothing reads the counts.
		return false
	}
	if c.user == nil {
		c.user, c.part, c.assoc, c.userPart = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	}
	up := j.User + "\x00" + part
	assoc := j.Account + "\x00" + j.User
	switch {
	case cfg.BFMaxJobUserPart > 0 && c.userPart[up] >= cfg.BFMaxJobUserPart,
		cfg.BFMaxJobPart > 0 && c.part[part] >= cfg.BFMaxJobPart,
		cfg.BFMaxJobAssoc > 0 && c.assoc[assoc] >= cfg.BFMaxJobAssoc,
		cfg.BFMaxJobUser > 0 && c.user[j.User] >= cfg.BFMaxJobUser:
		return true
	}
	c.userPart[up]++
	c.part[part]++
	c.assoc[assoc]++
	c.user[j.User]++
	return false
}

// BackfillPass is _attempt_backfill (§3.4): in queue order, each pending
// job is started now on nodes no higher-priority job has reserved, or gets
// a reservation in the node-space map at its will-run start (rounded to
// bf_resolution), so that no lower-priority job can delay it. p collects
// what happened. With Options.ReusePasses, a pass that nothing changed and
// the clock cannot change is not run again (bfReuse): its plans stand.
func (q *Queue) BackfillPass(now int64, p *Pass) {
	q.bfEnds.built = false
	if q.reuseBackfill(now, p) {
		return
	}
	q.passNow = now
	cfg := q.cfg
	res := max(int64(cfg.BFResolution/time.Second), 1)
	window := int64(cfg.BFWindow / time.Second)
	tested0, reserved0 := p.BackfillTested, p.Reserved
	if q.bfSpace == nil {
		q.bfSpace = &nodeSpace{}
	}
	ns := q.bfSpace
	// With Options.ReusePasses, the comparisons with now below bound how
	// long this pass's decisions stand (bfReuse): the slots of the map
	// begin and end on multiples of res, the reservations start at ends
	// of running jobs (after until), and the map ends at now+window
	// rounded down to res; each test of the clock against one of them
	// lowers until to the time it would go the other way.
	var track reuseTrack
	var clock *budget
	jobTests, starts := 0, 0
	recs, first, cont := q.continueBackfill(now, window, res, p)
	if cont {
		// The last pass's records stand (bfReuse); it goes on from its
		// map and counts with the records submitted since.
		l := &q.bfLast
		track = reuseTrack{on: true, until: l.until}
		clock = &budget{used: l.used, yielded: l.yielded}
		jobTests = l.jobTests
		q.bfWalks.idle()
	} else {
		recs = q.buildQueue(now, true, true)
		track = q.startTrack(now, window, res)
		ns.reset(now, window, res, q.cl.N, q.cl.Usable)
		ns.size = cfg.BFNodeSpaceSize
		if ns.size == 0 {
			ns.size = cfg.BFMaxJobTest
		}
		if cfg.BFRunningJobReserve {
			for _, id := range q.ids {
				if j := q.jobs[id].j; j.State == Running && !ns.reserveRunning(j, q.preemptable(j)) {
					break
				}
			}
		}
		clock = q.newBudget()
	}
	windowEnd := (now + window) / res * res
	// The caps' maps are made when a cap is set (bfCounts.exceeds).
	counts := &bfCounts{}
	// Scratch node sets, refilled for each job and will-run answer.
	usableBits := ns.bits(q.cl.Usable)
	baseBuf, availBuf, chosenBuf, resvBuf := bitset.New(q.cl.N), bitset.New(q.cl.N), bitset.New(q.cl.N), bitset.New(q.cl.N)
	// Without a Limits hook, which reads allocations, will-run answers
	// need not be built as allocations when the plugin can skip that.
	var dense job.DenseWillRun
	if d, ok := q.plugin.(job.DenseWillRun); ok && q.opt.Limits == nil {
		dense = d
	}
	if !cont {
		q.startWalks(usableBits, now, window, res, track.on, dense != nil)
	}
	// The fast paths go together: with the dense will-run, the running
	// jobs' ends are looked up in an index instead of a scan of the queue
	// (the plain path is the reference the differential tests run).
	endsAt := q.endsAtScan
	if dense != nil {
		endsAt = q.endsAt
	}
	p.BackfillExit = "end of queue"
recordLoop:
	for i, r := range recs[first:] {
		k := first + i
		// The pass's state before the record, for the walk log (and to
		// check it against the logged one).
		var st walkState
		if q.bfWalks.writing {
			st = walkState{own: track.rec, tested: p.BackfillTested - tested0, reserved: p.Reserved - reserved0, tests: jobTests, used: clock.used, yielded: clock.yielded}
			if k > 0 {
				st.prevStart = recs[k-1].e.j.Start
			}
			track.rec = math.MaxInt64
		}
		if q.bfWalks.writing || q.bfWalks.readable {
			q.bfWalks.record(k, r, ns, now, st)
		}
		if jobTests >= cfg.BFMaxJobTest {
			p.BackfillExit = "bf_max_job_test"
			break
		}
		// A pass that takes nothing over (all on maps too wide for the
		// walk log) does not call takeOver.
		if q.bfWalks.taking {
			if nx, ok := q.takeOver(k, r, dense, ns, now, windowEnd, window, res); ok {
				// The record's decisions stand: the pass takes its outcome.
				r.e.j.Start = nx.prevStart
				p.BackfillTested, p.Reserved = tested0+nx.tested, reserved0+nx.reserved
				jobTests, clock.used, clock.yielded = nx.tests, nx.used, nx.yielded
				track.lower(nx.own)
				if nx.reserved > st.reserved {
					q.clock.update = now
				}
				continue
			}
		}
		e, j := r.e, r.e.j
		if j.State != Pending || j.Priority == 0 || j.preemptInProgress {
			continue
		}
		p.BackfillTested++
		if counts.exceeds(cfg, j, r.part) {
			continue
		}
		if q.opt.Limits != nil && !cfg.AssocLimitStop {
			if ok, _, _ := q.opt.Limits.PreSelect(j, now); !ok {
				continue
			}
		}
		pr := e.part(r.part)
		if pr.err != nil {
			continue
		}
		req := pr.req
		prioReserve := q.prioReserve(j, cfg.BFMinPrioReserve)
		noReserve := (prioReserve > 0 && j.Priority < prioReserve) ||
			(cfg.BFMinAgeReserve > 0 && j.Eligible > 0 && time.Duration(now-j.Eligible)*time.Second < cfg.BFMinAgeReserve) ||
			(cfg.BFOneResvPerJob && j.Start != 0) ||
			(cfg.BFJobPartCountReserve > 0 && counts.resvPart[r.part] >= cfg.BFJobPartCountReserve)
		origStart := j.Start
		// A job with a time_min is planned with it (_set_backfill_timelimits);
		// fullLimit is its own limit.
		limit := pr.planLimit
		fullLimit := limit
		if tm := int64(j.TimeMin / time.Second); tm > 0 && tm < limit {
			limit = tm
		}
		minN, _, _ := req.NodeCounts(0)
		var baseBits bitset.Set
		if cfg.BFPlanIgnoresConstraints && len(req.Constraints) > 0 {
			baseBits = baseBuf.Fill(q.unconstrained(e, r.part))
		} else {
			if pr.candBits == nil {
				pr.candBits = ns.bits(pr.cands)
			}
			baseBits = baseBuf
			copy(baseBits, pr.candBits)
		}
		baseBits.And(usableBits)
		var required bitset.Set
		if req.RequiredSet != nil && !req.RequiredSet.IsEmpty() {
			required = ns.bits(req.RequiredSet)
		}
		availBits := availBuf
		counted := false
		laterStart := now
		// Each round tests the job from startRes; a failure gives up on
		// it or retries from laterStart, when the map frees more nodes
		// (SKIP_SCHED_OR_TRY_LATER, TRY_LATER).
		for {
			// TRY_LATER's checks: bf_max_time, then a yield every
			// bf_yield_interval; the round's work is counted after.
			if clock.over(cfg.BFMaxTime) {
				p.BackfillExit = "bf_max_time"
				break recordLoop
			}
			if clock.yieldDue(cfg.BFYieldInterval, cfg.BFYieldSleep) && q.opt.Yield != nil && q.opt.Yield().stops(cfg.BFContinue) {
				p.BackfillExit = "system state changed"
				break recordLoop
			}
			clock.charge(cfg.BFTestCost)
			startRes := laterStart
			laterStart = 0
			if startRes > now {
				track.lower(startRes)
			}
			// The advance reservations (job_test_resv): the nodes they
			// leave the job from startRes, which a reservation that
			// covers the job's partition or node list moves on.
			allowed, overlap, rc, when := q.resvTest(e, r.part, startRes, limit, true)
			if rc != resvOK {
				j.Start = origStart
				break
			}
			startRes = when
			if windowEnd < startRes {
				// The map's end, now+window rounded down to res, reaches
				// startRes later.
				track.lower((startRes+res-1)/res*res - window)
				break
			}
			endTime := max(startRes, now) + limit
			orig := baseBits
			if allowed != nil {
				orig = resvBuf.Fill(allowed)
				orig.And(baseBits)
			}
			// A full pass reads the last one's walk where it stands
			// (walkLog).
			var availN int
			var b int64
			var read bool
			laterStart, availN, b, read = q.bfWalks.read(availBits, orig, startRes, endTime, now)
			if !read {
				laterStart, availN = ns.usable(availBits, orig, startRes, endTime)
			}
			short := (required != nil && !required.SubsetOf(availBits)) || availN < minN
			if track.on && startRes <= now {
				// The slots read are those ending after now and beginning
				// by endTime, which moves with now: the first later slot
				// that would change what the round reads is met limit
				// seconds earlier. A slot ending after now still does when
				// the pass ends (the first end is bounded below).
				if !read {
					b = ns.answerBegin(availBits, endTime, laterStart, short)
				}
				if b > 0 {
					track.lower(b - limit)
				}
			}
			q.bfWalks.wrote(availBits, orig, startRes, endTime, now, laterStart, availN, b, !read)
			if overlap {
				// Try again once the first reservation ends
				// (find_resv_end).
				if e := q.resvEnd(startRes, res) + 1; e > 1 && e < windowEnd && (laterStart == 0 || e < laterStart) {
					laterStart = e
				}
			}
			if q.traced != nil {
				q.explain(e, "backfill", r.part, max(startRes, now), endTime, slotMask(availBits.Roaring(), max(startRes, now), endTime))
			}
			if short {
				if laterStart != 0 && !noReserve {
					continue
				}
				j.Start = origStart
				break
			}
			if !counted {
				jobTests++
				counted = true
			}
			var a *job.Allocation
			var aStart int64
			var chosen bitset.Set
			var err error
			willRun := func() {
				if dense != nil {
					// The plugin's buffer, valid until its next call:
					// startNow's selection (a preemption's tests) would
					// overwrite it, so it is copied before that.
					aStart, chosen, err = dense.WillRunDense(q.planScratch(req, laterStart), availBits, max(startRes, now))
					if q.bfWalks.writing {
						q.bfWalks.willRan(startRes, now, laterStart, availBits, aStart, chosen, err == nil)
					}
				} else if a, err = q.plan(req, availBits, max(startRes, now), laterStart); err == nil {
					aStart, chosen = a.Start, chosenBuf.Fill(a.Nodes)
				}
			}
			fits := false
			if cg := q.completingNodes(); cg != nil && startRes <= now && q.sharesNodes() {
				// cons_tres's will-run first tries the job on the nodes
				// free now, without preemption, the completing ones last
				// (_set_sched_weight); its later tests weigh them alike.
				req.Completing = cg
				willRun()
				req.Completing = nil
				fits = err == nil && aStart <= now
			}
			if !fits {
				unname := q.namePreemptees(e, r.part, now)
				willRun()
				unname()
			}
			if err != nil {
				if laterStart != 0 && !noReserve {
					continue
				}
				j.Start = origStart
				break
			}
			if noReserve && startRes <= now && aStart > now {
				// TEST_NOW_ONLY: cons_tres asks a job that gets no
				// reservation only whether it starts now.
				j.Start = origStart
				break
			}
			if startRes > now && aStart == startRes+1 && !q.bfWalks.endedAt(chosen, aStart, endsAt(chosen, aStart)) {
				// Slurm's will-run from a later start drops the jobs
				// ending by then and answers "now", which becomes
				// start_res; sift's plugin, asked at startRes, answers
				// one second later for a job that fits once they end.
				// A job on the chosen nodes that really ends then keeps
				// the answer.
				aStart = startRes
			}
			if aStart > now {
				track.lower(aStart)
			}
			start := max(aStart, startRes)
			if !noReserve && start > max(startRes, now) && q.crossesResv(j, chosen, start, limit) {
				// Will-run found a later start than the one the
				// reservations were tested at, and there the nodes meet
				// a reservation: Slurm would plan the job across it; sift
				// tries again from that start.
				laterStart = start
				j.Start = 0
				continue
			}
			overlapTested := false
			var st, endRes int64
			if start > now {
				st, endRes = ns.slotTime(start, limit)
				if st >= windowEnd {
					// The map ends by st, so the test reads no slot
					// until the window's end passes st: then it reads
					// the last slot, which may hold reservations.
					track.lower(st + res - window)
				}
				if ns.overlaps(chosen, st, endRes) {
					laterStart = start
					if startRes == start {
						laterStart += res
					}
					continue
				}
				overlapTested = true
			}
			if start <= now && len(q.completing) > 0 && chosen.Roaring().Intersects(q.completingNodes()) {
				// A node still completing (a victim's epilog): the job
				// cannot start before the next second.
				start, laterStart = now+1, 0
				if !noReserve && q.crossesResv(j, chosen, start, limit) {
					// A second later its nodes meet a reservation:
					// try again from that start, as for a later
					// will-run answer, so no plan crosses it.
					laterStart = start
					j.Start = 0
					continue
				}
			}
			if start <= now {
				track.nowDep = true
				q.bfWalks.started()
				if dense != nil {
					chosenBuf.Copy(chosen)
					chosen = chosenBuf
				}
				out := q.startNow(e, r.part, availBits.Roaring(), now, limit, p)
				q.bfEnds.built = false
				if out == started {
					switch {
					case limit < fullLimit:
						q.stretchLimit(e, r.part, ns, now, limit, fullLimit)
					case e.limit == 0 && j.End-now != fullLimit:
						// A job without a time_limit runs with the
						// one it was planned with, not the one
						// select_nodes gave it.
						q.setLimit(e, r.part, now, fullLimit)
					}
					p.Started = append(p.Started, j.ID)
					starts++
					ns.reserveRunning(j, q.preemptable(j))
					if cfg.BFMaxJobStart > 0 && starts >= cfg.BFMaxJobStart {
						p.BackfillExit = "bf_max_job_start"
						break recordLoop
					}
					if jobTests >= cfg.BFMaxJobTest {
						p.BackfillExit = "bf_max_job_test"
						break recordLoop
					}
					continue recordLoop
				}
				if out == policy && !cfg.AssocLimitStop {
					j.Start = origStart
					continue recordLoop
				}
				// Slurm reserves the nodes will-run chose anyway, from now.
				laterStart = 0
			}
			j.Start = start
			if start > now && noReserve {
				if origStart != 0 && origStart < start {
					j.Start = origStart
				}
				continue recordLoop
			}
			if laterStart != 0 && start > laterStart {
				j.Start = 0
				continue
			}
			if !overlapTested {
				st, endRes = ns.slotTime(start, limit)
			}
			if start > now+window {
				track.lower(start - window)
				if origStart != 0 && origStart < start {
					j.Start = origStart
				}
				continue recordLoop
			}
			if !overlapTested && ns.overlaps(chosen, st, endRes) {
				// Slurm retries from the same start here and would spin
				// until bf_max_time when nothing changes; sift moves on by
				// one resolution step.
				laterStart = start
				if laterStart <= startRes {
					laterStart = startRes + res
				}
				j.Start = 0
				continue
			}
			if q.opt.Limits != nil && !cfg.AssocLimitStop {
				if ok, _, _ := q.opt.Limits.PostSelect(j, a, now); !ok {
					continue recordLoop
				}
			}
			if ns.size > 0 && len(ns.s) >= ns.size {
				// The job keeps its start time but gets no reservation.
				p.BackfillExit = "bf_node_space_size"
				break recordLoop
			}
			if endRes >= windowEnd {
				// The map's end, a multiple of res, cuts the reservation
				// (or leaves it nothing to take when it begins there)
				// until it moves past.
				edge := endRes
				if st >= windowEnd {
					edge = st
				}
				track.lower(edge + res - window)
			}
			ns.add(st, endRes, chosen)
			q.bfWalks.add(st, endRes, chosen, windowEnd, window, res)
			q.clock.update = now
			// A job of several partitions is reserved in each, but keeps
			// the earliest start and its nodes (_add_reservation).
			if (origStart == 0 || start < origStart) && (j.PlannedNodes == nil || j.PlannedNodes != e.plannedRef || !e.planned.Equal(chosen)) {
				// A plan the same as the last pass's keeps its bitmap.
				j.PlannedNodes = chosen.Roaring()
				e.planned, e.plannedRef = append(e.planned[:0], chosen...), j.PlannedNodes
			}
			if origStart != 0 && origStart < j.Start {
				j.Start = origStart
			}
			if cfg.BFJobPartCountReserve > 0 {
				if counts.resvPart == nil {
					counts.resvPart = map[string]int{}
				}
				counts.resvPart[r.part]++
			}
			p.Reserved++
			continue recordLoop
		}
	}
	if track.on {
		// The slot holding now ends at the first boundary: a later now
		// past it walks from the next slot.
		track.lower(ns.holdingEnd(now))
	}
	q.finishTrack(&track, now, recs, p.BackfillExit, p.BackfillTested-tested0, p.Reserved-reserved0, starts, jobTests, clock)
	q.bfWalks.finish()
	q.explainRest()
}

// plan is backfill's will-run of req on avail from start: the select
// plugin's Plan of planRequest.
func (q *Queue) plan(req *job.Request, avail bitset.Set, start, laterStart int64) (*job.Allocation, error) {
	return q.plugin.Select(planRequest(req, laterStart), avail.Roaring(), job.Plan, start)
}

// planRequest is req as backfill asks will-run about it: with a
// laterStart, no further than it (will_run_data_t {start_res,
// later_start}; job.Request.PlanEnd).
func planRequest(req *job.Request, laterStart int64) *job.Request {
	if laterStart == 0 {
		return req
	}
	r := *req
	r.PlanEnd = laterStart
	return &r
}

// endsAtScan reports whether a running job on nodes ends at t, from a
// scan of the queue.
func (q *Queue) endsAtScan(nodes bitset.Set, t int64) bool {
	for _, id := range q.ids {
		if j := q.jobs[id].j; j.State == Running && j.End == t && j.Nodes != nil && bitset.New(q.cl.N).Fill(j.Nodes).Intersects(nodes) {
			return true
		}
	}
	return false
}

// runEnds is the running jobs by end time, for endsAt: built by a pass's
// first question and dropped whenever the pass starts (or tries to start)
// a job, which may change the running set; scratch holds one job's nodes.
type runEnds struct {
	jobs    []*Job
	built   bool
	scratch bitset.Set
}

// planScratch is planRequest in the queue's scratch request, for the dense
// will-run, which keeps no pointer to it: a retry round would otherwise
// allocate a copy of the request each time.
func (q *Queue) planScratch(req *job.Request, laterStart int64) *job.Request {
	if laterStart == 0 {
		return req
	}
	q.bfReq = *req
	q.bfReq.PlanEnd = laterStart
	return &q.bfReq
}

// runningByEnd is the running jobs sorted by end (runEnds).
func (q *Queue) runningByEnd() []*Job {
	re := &q.bfEnds
	if !re.built {
		re.jobs = re.jobs[:0]
		for _, e := range q.ents {
			if j := e.j; j.State == Running {
				re.jobs = append(re.jobs, j)
			}
		}
		slices.SortFunc(re.jobs, func(a, b *Job) int { return cmp.Compare(a.End, b.End) })
		re.built = true
	}
	return re.jobs
}

// endsAt is endsAtScan from the running jobs sorted by end.
func (q *Queue) endsAt(nodes bitset.Set, t int64) bool {
	re := &q.bfEnds
	jobs := q.runningByEnd()
	k, _ := slices.BinarySearchFunc(jobs, t, func(j *Job, t int64) int { return cmp.Compare(j.End, t) })
	for ; k < len(jobs) && jobs[k].End == t; k++ {
		if j := jobs[k]; j.Nodes != nil {
			if len(re.scratch) != len(nodes) {
				re.scratch = bitset.New(q.cl.N)
			}
			if re.scratch.Fill(j.Nodes).Intersects(nodes) {
				return true
			}
		}
	}
	return false
}

// preemptable is slurm_job_preempt_mode(j) != PREEMPT_MODE_OFF.
func (q *Queue) preemptable(j *Job) bool {
	if q.opt.Preempt.Type == PreemptNone {
		return false
	}
	m := q.jobMode(j)
	return m != PreemptOff && m != PreemptModeUnset
}

// stretchLimit is _reset_job_time_limit for a job backfill started with
// its time_min: the limit grows to its full one, cut at the first
// reservation of the map its nodes would cross and at the first advance
// reservation on its nodes (in whole minutes), but not below time_min. The select plugin's record is redone with that limit.
func (q *Queue) stretchLimit(e *entry, part string, ns *nodeSpace, now, minLimit, fullLimit int64) {
	j := e.j
	nodes := ns.bits(j.Nodes)
	limit := fullLimit / 60
	for k := 0; ; {
		s := &ns.s[k]
		if s.begin != now && s.begin < now+fullLimit && !nodes.SubsetOf(s.avail) {
			limit = min(limit, (s.begin-now)/60)
		}
		if k = s.next; k == 0 {
			break
		}
	}
	limit = max(limit, minLimit/60)
	// job_time_adj_resv: nor into a reservation starting later on its
	// nodes.
	for _, s := range q.resvs {
		r := s.r
		if r.Name == j.Reservation || r.Start <= now || r.Start >= now+limit*60 || r.Nodes == nil || !r.Nodes.Intersects(j.Nodes) {
			continue
		}
		limit = min(limit, (r.Start-now)/60)
	}
	limit = max(limit, minLimit/60) * 60
	if limit == j.End-now {
		return
	}
	q.setLimit(e, part, now, limit)
}

// setLimit gives job e, started at now in part, the limit limit (in
// seconds): its select plugin record is redone with it.
func (q *Queue) setLimit(e *entry, part string, now, limit int64) {
	j := e.j
	rq := *e.part(part).req
	rq.TimeLimit = time.Duration(limit) * time.Second
	a := j.Alloc
	if err := q.plugin.Fini(j.ID); err != nil {
		return
	}
	if err := q.plugin.Begin(&rq, a); err != nil {
		return
	}
	j.TimeLimit, j.End = rq.TimeLimit, now+limit
}

// unconstrained is the job's candidates in part without its constraints:
// what Slurm's backfill plans on.
func (q *Queue) unconstrained(e *entry, part string) *roaring.Bitmap {
	c := q.cl.Snap.Live().Clone()
	c.And(q.cl.Partitions[part].Nodes)
	req := e.part(part).req
	if req.ExcludedSet != nil {
		c.AndNot(req.ExcludedSet)
	}
	req.FilterNodes(q.cl, c)
	return c
}

// namePreemptees names in e's request in part the running jobs its job
// may preempt (slurm_find_preemptable_jobs), so that backfill's will-run
// test (_try_sched) counts them as gone; the returned func takes them
// back.
func (q *Queue) namePreemptees(e *entry, part string, now int64) func() {
	cands := q.preemptCandidates(e.j, part, now)
	suspend := q.allSuspend(cands)
	if q.gangKeeps {
		// Lower tiers' suspended jobs, among the candidates, keep their
		// cores, which the test takes as it takes the running jobs'
		// (test 3), and other same-tier partitions' jobs are left out
		// by test 4 (cons_tres).
		suspend = true
		if q.sharesNodes() {
			cands = append(cands, q.sameTierOthers(part)...)
		}
		if len(cands) == 0 {
			cands = nil
		}
	}
	if cands == nil {
		return func() {}
	}
	req := e.part(part).req
	req.PreemptCandidates, req.PreemptSuspend = cands, suspend
	return func() { req.PreemptCandidates, req.PreemptSuspend = nil, false }
}
