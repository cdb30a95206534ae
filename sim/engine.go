package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/workload"
)

// epoch is the simulated Unix time of a trace's Submit 0 when the trace
// does not record its start: 2000-01-01T00:00:00Z, far from 0 (which the
// queue takes for "unset") and a whole number of days, so that backfill's
// bf_resolution slots fall on round times as they do in a live slurmctld.
const epoch = 946_684_800

// reusePasses lets the queue reuse a backfill pass that nothing changed
// (sched.Options.ReusePasses); the differential tests turn it off.
var reusePasses = true

// readChangedReasons reads the pending jobs' reasons after a pass only
// when the queue's reason count changed or a job joined them; the
// differential test turns it off.
var readChangedReasons = true

// ErrOptions is an Options value Run cannot use.
var ErrOptions = errors.New("invalid simulation options")

// event kinds, in the order they are handled when they fall on the same
// second: ends free nodes before node changes, cancellations and the
// submissions of that second (submissions come from the trace cursor, after
// every heap event of their second).
const (
	evEnd uint8 = iota
	evNode
	evCancel
	evResv
)

type event struct {
	t    int64
	kind uint8
	seq  uint32 // order of insertion, for ties
	ref  int    // job index, or node event index
}

// eventHeap is a binary min-heap of events by (t, kind, seq).
type eventHeap []event

func (h eventHeap) less(a, b int) bool {
	x, y := h[a], h[b]
	if x.t != y.t {
		return x.t < y.t
	}
	if x.kind != y.kind {
		return x.kind < y.kind
	}
	return x.seq < y.seq
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(l, m) {
			m = l
		}
		if r < n && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// fifo is the FIFO policy's scheduler plugin: sched/builtin's main pass
// and FIFO priorities, without start-time estimates (Queue.Tick runs only
// main passes for a plugin it does not know).
type fifo struct{}

func (fifo) Name() string { return "fifo" }

func (fifo) Schedule(q *sched.Queue, now int64) (*sched.Pass, error) {
	p := &sched.Pass{}
	q.MainPass(now, true, p)
	return p, nil
}

// InitialPriority is priority/basic's rule: one below the lowest so far.
func (fifo) InitialPriority(last uint32) uint32 {
	if last >= 2 {
		return last - 1
	}
	return 1
}

func (fifo) JobIsPending(*sched.Queue)    {}
func (fifo) PartitionChange(*sched.Queue) {}
func (fifo) Reconfig(*sched.Queue) error  { return nil }
func schedulerOf(p Policy) sched.Scheduler {
	return map[Policy]sched.Scheduler{FIFO: fifo{}, Builtin: sched.Builtin{}, Backfill: sched.Backfill{}}[p]
}

// run is one simulation's state.
type run struct {
	opt   Options
	tr    *workload.Trace
	q     *sched.Queue
	base  int64
	order []int // trace indices in submit order
	recs  []JobRecord
	sj    []*sched.Job // the queue's record of each job (by trace index)
	kill  []int64      // each started job's end, by trace index
	heap  eventHeap
	seq   uint32
	// pending and running are the trace indices of the jobs in each
	// state; pending is compacted when its reasons are read.
	pending []int
	running map[int]bool
	// lastReason is the reason each job's history last read (-1: none
	// yet), by trace index.
	lastReason []int16
	// reasonsRead is the queue's reason change count when they were last
	// read; unread says a job joined pending since.
	reasonsRead uint64
	unread      bool
	// suspended holds the run time left of each job preemption suspended.
	suspended map[int]int64
	// unpurged counts finished jobs still in the queue.
	unpurged  int
	busyCPUs  int
	npending  int
	totalCPUs int
	partNodes int
	cpn       int // CPUs of the partition's first node
	stats     passStats
	series    []Sample
	lastEvent int64
}

// passStats accumulates the passes and their wall time.
type passStats struct {
	ticks, main, backfill int
	total, max            time.Duration
}

// Run replays tr on opt's cluster and returns every job's outcome and the
// metrics. It fails only on invalid options; a job the cluster can never
// run stays pending and is reported as never started.
func Run(tr *workload.Trace, opt Options) (*Result, error) {
	if opt.Cluster == nil || opt.Plugin == nil {
		return nil, fmt.Errorf("%w: no cluster or select plugin", ErrOptions)
	}
	sch := schedulerOf(opt.Policy)
	if sch == nil {
		return nil, fmt.Errorf("%w: unknown policy %q", ErrOptions, opt.Policy)
	}
	part := opt.Cluster.Partitions[opt.Partition]
	if part == nil || part.Nodes.IsEmpty() {
		return nil, fmt.Errorf("%w: partition %q has no nodes", ErrOptions, opt.Partition)
	}
	var wall0 time.Time
	if opt.WallClock != nil {
		wall0 = opt.WallClock()
	}
	r := &run{opt: opt, tr: tr, running: map[int]bool{}, suspended: map[int]int64{}}
	r.base = tr.StartTime
	if r.base <= 0 {
		r.base = epoch
	}
	it := part.Nodes.Iterator()
	for it.HasNext() {
		id := it.Next()
		if r.cpn == 0 {
			r.cpn = opt.Cluster.CPUs[id]
		}
		r.totalCPUs += opt.Cluster.CPUs[id]
		r.partNodes++
	}
	r.q = sched.NewQueue(sched.Options{Cluster: opt.Cluster, Plugin: opt.Plugin, Scheduler: sch, Config: opt.Config,
		Partitions: opt.Partitions, DefMemPerCPU: opt.DefMemPerCPU, MaxMemPerCPU: opt.MaxMemPerCPU, Priority: opt.Priority,
		Preempt: opt.Preempt, ReusePasses: reusePasses})
	n := len(tr.Jobs)
	r.order = make([]int, n)
	for i := range r.order {
		r.order[i] = i
	}
	slices.SortStableFunc(r.order, func(a, b int) int {
		return cmpInt(tr.Jobs[a].Submit, tr.Jobs[b].Submit)
	})
	r.recs = make([]JobRecord, n)
	r.sj = make([]*sched.Job, n)
	r.kill = make([]int64, n)
	r.lastReason = make([]int16, n)
	for i := range r.lastReason {
		r.lastReason[i] = -1
	}
	for i, ev := range opt.NodeEvents {
		for _, name := range ev.Nodes {
			if _, ok := opt.Cluster.Snap.ID(name); !ok {
				return nil, fmt.Errorf("%w: node event %d: no node %q", ErrOptions, i, name)
			}
		}
		r.push(r.base+ev.Time, evNode, i)
	}
	for i, rv := range opt.Reservations {
		nodes := roaring.New()
		for _, name := range rv.Nodes {
			id, ok := opt.Cluster.Snap.ID(name)
			if !ok {
				return nil, fmt.Errorf("%w: reservation %d: no node %q", ErrOptions, i, name)
			}
			nodes.Add(id)
		}
		res := &sched.Reservation{Name: rv.Name, Nodes: nodes, Start: r.base + rv.Start, End: r.base + rv.End, Users: []string{"root"}, Flags: rv.Flags}
		if err := r.q.AddReservation(res, r.base); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
		// Its start and end are events, so the run goes on until it
		// ends; Tick notes them as node changes.
		r.push(res.Start, evResv, i)
		r.push(res.End, evResv, i)
	}
	if err := r.loop(); err != nil {
		return nil, err
	}
	res := r.result()
	if opt.WallClock != nil {
		res.Summary.WallSeconds = opt.WallClock().Sub(wall0).Seconds()
		res.Summary.finishRates()
	}
	return res, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (r *run) push(t int64, kind uint8, ref int) {
	r.heap.push(event{t: t, kind: kind, seq: r.seq, ref: ref})
	r.seq++
}

// loop is the event loop: at each second where something happens (a heap
// event, a submission, or a pass Tick would run), handle the events of that
// second, then Tick.
func (r *run) loop() error {
	q, cfg := r.q, r.opt.Config
	cursor, n := 0, len(r.order)
	ticked := false
	var last int64
	// Once nothing more can happen (every job submitted, nothing running,
	// no event left), a few more timer periods show whether the pending
	// jobs can ever start: after them no state changes any more.
	settle := int64(cfg.SchedInterval/time.Second+cfg.BFInterval/time.Second+cfg.BatchSchedDelay/time.Second+cfg.BuiltinInterval/time.Second) + 2
	nextProgress := 0
	for {
		t := int64(math.MaxInt64)
		if cursor < n {
			t = r.base + r.tr.Jobs[r.order[cursor]].Submit
		}
		if len(r.heap) > 0 {
			t = min(t, r.heap[0].t)
		}
		if ticked && r.npending > 0 {
			t = min(t, q.NextTick(last))
		}
		if t == math.MaxInt64 {
			return nil
		}
		if cursor == n && len(r.heap) == 0 && len(r.running) == 0 && t > r.lastEvent+settle {
			return nil
		}
		for len(r.heap) > 0 && r.heap[0].t == t {
			ev := r.heap.pop()
			if err := r.handle(ev, t); err != nil {
				return err
			}
			r.lastEvent = t
		}
		for cursor < n && r.base+r.tr.Jobs[r.order[cursor]].Submit == t {
			if err := r.submit(cursor, r.order[cursor], t); err != nil {
				return err
			}
			cursor++
			r.lastEvent = t
		}
		if r.opt.Progress != nil && cursor*100/max(n, 1) > nextProgress {
			nextProgress = cursor * 100 / max(n, 1)
			r.opt.Progress(float64(cursor) / float64(max(n, 1)))
		}
		if live := len(r.pending) + len(r.running); r.unpurged > 64 && r.unpurged > live {
			q.PurgeFinished()
			r.unpurged = 0
		}
		if err := r.tick(t); err != nil {
			return err
		}
		ticked, last = true, t
	}
}

// tick runs Tick at t and records what it did.
func (r *run) tick(t int64) error {
	q := r.q
	if r.opt.Observe != nil {
		r.opt.Observe(t, q, nil)
	}
	var w0 time.Time
	if r.opt.WallClock != nil {
		w0 = r.opt.WallClock()
	}
	p := q.Tick(t)
	ran := p.MainExit != "" || p.BackfillExit != ""
	if ran {
		r.stats.ticks++
		if p.MainExit != "" {
			r.stats.main++
		}
		if p.BackfillExit != "" {
			r.stats.backfill++
		}
		if r.opt.WallClock != nil {
			d := r.opt.WallClock().Sub(w0)
			r.stats.total += d
			r.stats.max = max(r.stats.max, d)
		}
	}
	if r.opt.Observe != nil {
		r.opt.Observe(t, q, p)
	}
	for _, ev := range p.Preempted {
		r.preempted(ev, t)
	}
	r.resumed(t)
	firstBF := len(p.Started) - p.BackfillStarted
	for k, id := range p.Started {
		i := int(id) - 1
		i = r.order[i]
		j := r.sj[i]
		rec := &r.recs[i]
		rec.Start = j.Start - r.base
		rec.Nodes = int(j.Nodes.GetCardinality())
		if j.Alloc != nil {
			rec.CPUs = j.Alloc.TotalCPUs
		}
		rec.Backfilled = k >= firstBF
		rec.State = stateRunning
		r.npending--
		r.busyCPUs += rec.CPUs
		r.running[i] = true
		tj := &r.tr.Jobs[i]
		dur := max(tj.Run, 0)
		limit := j.End - j.Start
		end := j.Start + dur
		if r.opt.Overrun == OverrunKill && dur > limit {
			end = j.End
		}
		r.kill[i] = end
		r.push(end, evEnd, i)
	}
	if ran && (r.unread || q.ReasonChanges() != r.reasonsRead || !readChangedReasons) {
		// Most passes change no reason.
		r.readReasons(t)
		r.reasonsRead, r.unread = q.ReasonChanges(), false
	}
	r.sample(t)
	return nil
}

// readReasons appends each pending job's reason to its history when it
// changed, and drops the jobs no longer pending from the list.
func (r *run) readReasons(t int64) {
	kept := r.pending[:0]
	for _, i := range r.pending {
		j := r.sj[i]
		if j == nil || j.State != sched.Pending {
			// It ended (a pending job cancelled), or started.
			continue
		}
		kept = append(kept, i)
		if int16(j.Reason) == r.lastReason[i] {
			// The reason the history ends with, as a number: most
			// passes change no reason, and naming each costs more.
			continue
		}
		r.lastReason[i] = int16(j.Reason)
		rec := &r.recs[i]
		reason := j.Reason.String()
		if h := rec.Reasons; len(h) == 0 || h[len(h)-1].Reason != reason {
			rec.Reasons = append(rec.Reasons, ReasonChange{Time: t - r.base, Reason: reason})
		}
	}
	r.pending = kept
}

// sample records the queue length and the busy CPUs when they changed.
func (r *run) sample(t int64) {
	s := Sample{Time: t - r.base, Pending: r.npending, Running: len(r.running), BusyCPUs: r.busyCPUs}
	if k := len(r.series); k > 0 {
		prev := r.series[k-1]
		if prev.Pending == s.Pending && prev.Running == s.Running && prev.BusyCPUs == s.BusyCPUs {
			return
		}
		if prev.Time == s.Time {
			r.series[k-1] = s
			return
		}
	}
	r.series = append(r.series, s)
}

// handle applies one heap event at t.
func (r *run) handle(ev event, t int64) error {
	q := r.q
	switch ev.kind {
	case evEnd:
		i := ev.ref
		if !r.running[i] || ev.t != r.kill[i] {
			// It ended earlier (its node failed, or preemption stopped
			// it), or this is the end of a run preemption cut short.
			return nil
		}
		st := sched.Completed
		rec := &r.recs[i]
		rec.State = stateCompleted
		if tj := &r.tr.Jobs[i]; r.opt.Overrun == OverrunKill && max(tj.Run, 0) > r.kill[i]-(rec.Start+r.base) {
			st, rec.State = sched.Timeout, stateTimeout
		} else if tj.Status == workload.StatusFailed {
			st, rec.State = sched.Failed, stateFailed
		}
		return r.finish(i, st, t)
	case evCancel:
		i := ev.ref
		if r.sj[i] == nil || r.sj[i].State != sched.Pending {
			return nil
		}
		r.recs[i].State = stateCancelled
		r.npending--
		return r.finish(i, sched.Cancelled, t)
	case evResv:
		return nil
	case evNode:
		ne := r.opt.NodeEvents[ev.ref]
		cl := r.opt.Cluster
		changed := roaring.New()
		for _, name := range ne.Nodes {
			id, _ := cl.Snap.ID(name)
			changed.Add(id)
			if ne.Down {
				cl.Down.Add(id)
				cl.Usable.Remove(id)
			} else if !cl.Drain.Contains(id) {
				cl.Down.Remove(id)
				cl.Usable.Add(id)
			}
		}
		q.NodesChanged(t)
		if !ne.Down {
			return nil
		}
		var hit []int
		for i := range r.running {
			if j := r.sj[i]; j.Nodes != nil && j.Nodes.Intersects(changed) {
				hit = append(hit, i)
			}
		}
		slices.Sort(hit)
		for _, i := range hit {
			r.recs[i].State = stateNodeFail
			if err := r.finish(i, sched.Failed, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// finish ends job i at t in the queue and in its record.
func (r *run) finish(i int, st sched.State, t int64) error {
	j := r.sj[i]
	wasRunning := j.State == sched.Running
	if err := r.q.Finish(j.ID, st, t); err != nil {
		return fmt.Errorf("job %d: %w", r.tr.Jobs[i].ID, err)
	}
	r.recs[i].End = t - r.base
	if wasRunning {
		delete(r.running, i)
		r.busyCPUs -= r.recs[i].CPUs
	}
	// The record has all the run reads of an ended job: the queue's copy
	// (its allocation, request and node sets) goes when the queue purges
	// it, instead of living to the end of the run.
	if j.Eligible > 0 {
		r.recs[i].Eligible = j.Eligible - r.base
	}
	r.sj[i] = nil
	r.unpurged++
	r.resumed(t)
	return nil
}

// preempted applies one preemption of a pass at t: a cancelled victim
// ends (PREEMPTED), a requeued one pends again, a suspended one stops with
// its remaining run time kept.
func (r *run) preempted(ev sched.PreemptEvent, t int64) {
	i := r.order[int(ev.Victim)-1]
	if !r.running[i] {
		return
	}
	rec := &r.recs[i]
	j := r.sj[i]
	if j.State == sched.Running {
		// A grace time began: the queue's Tick at ev.End preempts it
		// unless it ends first.
		return
	}
	delete(r.running, i)
	r.busyCPUs -= rec.CPUs
	switch j.State {
	case sched.Suspended:
		r.suspended[i] = r.kill[i] - t
		rec.State = stateSuspended
	case sched.Pending:
		rec.State, rec.Start, rec.Nodes, rec.CPUs = statePending, -1, 0, 0
		rec.Requeues++
		r.pending = append(r.pending, i)
		r.npending++
		r.unread = true
	default:
		rec.State, rec.End = statePreempted, t-r.base
		r.unpurged++
	}
}

// resumed takes back the suspended jobs the queue resumed by t: they run
// again for the time they had left.
func (r *run) resumed(t int64) {
	if len(r.suspended) == 0 {
		return
	}
	var back []int
	for i := range r.suspended {
		if r.sj[i].State == sched.Running {
			back = append(back, i)
		}
	}
	slices.Sort(back)
	for _, i := range back {
		left := r.suspended[i]
		delete(r.suspended, i)
		r.running[i] = true
		r.busyCPUs += r.recs[i].CPUs
		r.recs[i].State = stateRunning
		r.kill[i] = t + left
		r.push(r.kill[i], evEnd, i)
	}
}

// submit hands trace job i (the k-th in submit order) to the queue at t.
func (r *run) submit(k, i int, t int64) error {
	tj := &r.tr.Jobs[i]
	rec := &r.recs[i]
	*rec = JobRecord{ID: tj.ID, Submit: tj.Submit, Eligible: -1, Start: -1, End: -1, Wait: -1, Procs: tj.Procs, Run: tj.Run, TimeLimit: tj.TimeLimit}
	procs := tj.Procs
	if procs <= 0 {
		procs = tj.AllocProcs
	}
	if procs <= 0 && tj.Nodes <= 0 {
		rec.State = stateSkipped
		return nil
	}
	req, limit, err := r.request(tj, procs)
	if err != nil {
		return fmt.Errorf("job %d: %w", tj.ID, err)
	}
	rec.TimeLimit = limit
	if req.MinNodes > r.partNodes || req.NTasks*req.CPUsPerTaskOr1() > r.totalCPUs {
		// sbatch refuses a job larger than its partition.
		rec.State = stateRefused
		return nil
	}
	j := &sched.Job{ID: uint32(k + 1), Name: strconv.FormatInt(tj.ID, 10), User: tj.User, Account: tj.Account, QOS: tj.QOS,
		Partitions: []string{r.opt.Partition}, TimeLimit: req.TimeLimit, Request: req, Submit: t}
	if err := r.q.Submit(j, false, t); err != nil {
		return fmt.Errorf("job %d: %w", tj.ID, err)
	}
	r.sj[i] = j
	rec.State = statePending
	r.pending = append(r.pending, i)
	r.npending++
	r.unread = true
	if tj.Status == workload.StatusCancelled && tj.Run <= 0 && tj.Wait >= 0 {
		r.push(t+tj.Wait, evCancel, i)
	}
	return nil
}

// request is the resource request of a trace job with procs processors,
// and its time limit in seconds (whole minutes, as Slurm keeps limits).
// A job without a recorded limit gets its run time as the estimate.
func (r *run) request(tj *workload.Job, procs int) (*job.Request, int64, error) {
	limit := tj.TimeLimit
	if limit <= 0 {
		limit = max(tj.Run, 0)
	}
	mins := max((limit+59)/60, 1)
	var spec string
	switch r.opt.Allocation {
	case PerCPU:
		spec = "ntasks=" + strconv.Itoa(max(procs, 1))
		if tj.Nodes > 0 {
			spec += ",nodes=" + strconv.Itoa(tj.Nodes)
		}
	default:
		nodes := tj.Nodes
		if nodes <= 0 {
			nodes = (procs + r.cpn - 1) / max(r.cpn, 1)
		}
		spec = "nodes=" + strconv.Itoa(nodes) + ",exclusive"
	}
	req, err := job.ParseSpec(spec + ",time=" + strconv.FormatInt(mins, 10))
	if err != nil {
		return nil, 0, err
	}
	return req, mins * 60, nil
}
