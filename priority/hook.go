package priority

import (
	"time"

	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
)

// Basic is priority/basic: a new job gets one below the previous one (the
// scheduler's FIFO priority), adjusted by its nice, at least 1.
type Basic struct{}

var _ sched.Priority = Basic{}

// Set returns last (the scheduler's FIFO priority, already one below the
// previous job's) adjusted by the job's nice.
func (Basic) Set(j *sched.Job, last uint32, _ int64) uint32 { return niced(int64(last), j.Nice) }

// Refresh keeps every priority: priority/basic never recalculates.
func (Basic) Refresh([]*sched.Job, int64) {}

// BasicPriority is priority_basic's priority_p_set: one below last (1 if
// last is below 2), then nice.
func BasicPriority(last uint32, nice int32) uint32 {
	p := int64(1)
	if last >= 2 {
		p = int64(last) - 1
	}
	return niced(p, nice)
}

// niced lowers p by a positive nice only while that leaves it above 1,
// raises it by a negative one, and keeps it in [1, 2^32-1].
func niced(p int64, nice int32) uint32 {
	if off := int64(nice); off <= 0 || p > off+1 {
		p -= off
	}
	return uint32(max(min(p, int64(^uint32(0))), 1))
}

// Hook is priority/multifactor as the scheduler's Priority hook: it sets a
// new job's priority at submit, and before each pass updates the accrue
// state, runs the decay thread up to now, and (when a calculation period
// passed) recomputes the pending jobs' priorities at the last
// calculation time.
type Hook struct {
	M *Multifactor
	// AccrueTime, when set, is when a job began to accrue age (a limits
	// hook's, which counts accrue limits in its queue builds, e.g.
	// acctpolicy.Hook.AccrueTime); otherwise M.Accrue decides.
	AccrueTime func(id uint32) int64
	jobs       map[uint32]*Job
	// running are the jobs Observe saw start and not yet end.
	running map[uint32]*sched.Job
}

var _ sched.Priority = (*Hook)(nil)

// NewHook returns the hook over m.
func NewHook(m *Multifactor) *Hook {
	return &Hook{M: m, jobs: map[uint32]*Job{}, running: map[uint32]*sched.Job{}}
}

// Observe builds the usage history from a queue a caller drives (a
// simulator's Observe, called before each Tick with p nil and after it):
// a job seen running begins at its start, one that finished since ends
// at its end, so fair-share follows what ran.
func (h *Hook) Observe(_ int64, q *sched.Queue, p *sched.Pass) {
	for id, j := range h.running {
		if j.State.Finished() {
			h.End(j, j.End)
			delete(h.running, id)
		}
	}
	if p == nil {
		return
	}
	for _, j := range q.Jobs() {
		if j.State == sched.Running && h.running[j.ID] == nil {
			h.running[j.ID] = j
			h.Begin(j, j.Start)
		}
	}
}

// Job is the priority job of scheduler job id (nil if none).
func (h *Hook) Job(id uint32) *Job { return h.jobs[id] }

// job makes or refreshes the priority view of a scheduler job.
func (h *Hook) job(j *sched.Job) *Job {
	pj := h.jobs[j.ID]
	if pj != nil && pj.bound == j.Partition {
		// Only what a pass changes; the request and binding stay.
		pj.Eligible, pj.Running, pj.Nice = j.Eligible, j.State == sched.Running, j.Nice
		return pj
	}
	if pj == nil {
		pj = &Job{ID: j.ID}
		h.jobs[j.ID] = pj
	}
	pj.bound = j.Partition
	pj.User, pj.Account, pj.QOS, pj.Nice = j.User, j.Account, j.QOS, j.Nice
	pj.Partitions = j.Partitions
	pj.Submit, pj.Eligible = j.Submit, j.Eligible
	pj.Running = j.State == sched.Running
	pj.TimeLimit = limits.NoVal
	if j.TimeLimit > 0 {
		pj.TimeLimit = minutesOf(j.TimeLimit)
	}
	pj.MinNodes, pj.CPUs = 1, 1
	n := h.M.Policy.TRES.Len()
	if pj.TRES == nil || len(pj.TRES) != n {
		pj.TRES = make(limits.Vector, n)
	}
	if r := j.Request; r != nil {
		nodes := max(r.MinNodes, 1)
		pj.MinNodes, pj.CPUs = uint32(nodes), uint32(r.MinCPUs(nodes))
		if j.Alloc != nil && j.Alloc.TotalCPUs > 0 {
			pj.CPUs = uint32(j.Alloc.TotalCPUs)
		}
		h.tres(pj, r)
	} else {
		pj.TRES[limits.TRESNode], pj.TRES[limits.TRESCPU] = 1, 1
	}
	_ = h.M.Bind(pj)
	return pj
}

func (h *Hook) tres(pj *Job, r *job.Request) {
	v := pj.TRES
	for i := range v {
		v[i] = 0
	}
	v[limits.TRESNode], v[limits.TRESCPU] = uint64(pj.MinNodes), uint64(pj.CPUs)
	switch {
	case r.MemPerCPU > 0:
		v[limits.TRESMem] = r.MemPerCPU * uint64(pj.CPUs)
	case r.MemPerNode > 0:
		v[limits.TRESMem] = r.MemPerNode * uint64(pj.MinNodes)
	}
	if g := r.GPUsPerNode*int(pj.MinNodes) + r.GPUsPerJob; g > 0 {
		if i, ok := h.M.Policy.TRES.Index("gres/gpu"); ok {
			v[i] = uint64(g)
		}
	}
	var bw *limits.BillingWeights
	if len(pj.Partitions) > 0 {
		if p := h.M.Policy.Partition(pj.Partitions[0]); p != nil {
			bw = p.Billing
		}
	}
	v[limits.TRESBilling] = uint64(bw.Billing(h.M.Policy.TRES, v, h.M.Policy.BillingMode))
}

func minutesOf(d time.Duration) uint32 {
	if d == job.Unlimited || d < 0 {
		return limits.Infinite
	}
	return uint32((d + time.Minute - 1) / time.Minute)
}

// Set is priority_p_set: the job's priority at submit.
func (h *Hook) Set(j *sched.Job, _ uint32, now int64) uint32 {
	pj := h.job(j)
	return h.M.Priority(pj, now)
}

// Refresh runs before a pass: accrue state for the pending jobs in queue
// order, the decay thread up to now, and new priorities for the pending,
// not held jobs when it ran (INCR_ONLY keeps a higher old one).
func (h *Hook) Refresh(jobs []*sched.Job, now int64) {
	pending := make([]*Job, 0, len(jobs))
	for _, j := range jobs {
		pj := h.job(j)
		pj.Held = j.Priority == 0
		pending = append(pending, pj)
	}
	if h.AccrueTime != nil {
		for _, pj := range pending {
			pj.Accrue = h.AccrueTime(pj.ID)
		}
	} else {
		h.M.Accrue.Update(pending, now)
	}
	last := h.M.Usage.LastRan
	h.M.Usage.Advance(now)
	at := h.M.Usage.LastRan
	if at == last {
		return
	}
	for i, j := range jobs {
		if j.Priority == 0 {
			continue
		}
		p := h.M.Priority(pending[i], at)
		if h.M.Config.Flags&IncrOnly == 0 || p > j.Priority {
			j.Priority = p
		}
	}
}

// Begin charges a started job's usage from now on (call it when the
// scheduler starts a job or adds a running one).
func (h *Hook) Begin(j *sched.Job, now int64) {
	pj := h.job(j)
	h.M.Accrue.Remove(pj)
	uf := 1.0
	if q := pj.qos; q != nil {
		uf = q.UsageFactor
	}
	start := j.Start
	if start == 0 {
		start = now
	}
	h.M.Usage.Begin(&RunningJob{ID: j.ID, Assoc: pj.assoc, UsageFactor: uf, Start: start,
		TimeLimit: pj.TimeLimit, Billing: float64(pj.TRES[limits.TRESBilling]), Alloc: pj.TRES})
}

// End charges the rest of a job's usage when it ends at now and forgets it.
func (h *Hook) End(j *sched.Job, now int64) {
	if pj := h.jobs[j.ID]; pj != nil {
		h.M.Accrue.Remove(pj)
	}
	h.M.Usage.End(j.ID, now)
	delete(h.jobs, j.ID)
}
