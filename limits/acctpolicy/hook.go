package acctpolicy

import (
	"fmt"
	"time"

	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
)

// Hook is a sched.Limits over a limits.Policy. It keeps one limits job
// per scheduler job, from submit (or from being added running) until it
// leaves the queue.
type Hook struct {
	P    *limits.Policy
	jobs map[uint32]*limits.Job
	// nodeMem is each partition's PartitionConf.NodeMemoryMB.
	nodeMem map[string]uint64
}

var (
	_ sched.Limits          = (*Hook)(nil)
	_ sched.PartitionExempt = (*Hook)(nil)
	_ sched.Accruer         = (*Hook)(nil)
	_ sched.PrioThresholder = (*Hook)(nil)
	_ sched.NodeLimiter     = (*Hook)(nil)
)

// PartitionConf is what slurm.conf says of a partition that the limits
// need beyond the scheduler's view: its QOS= and TRESBillingWeights=.
type PartitionConf struct {
	QOS, BillingWeights string
	// NodeMemoryMB is the memory of the partition's first node: what a
	// job that asks for no memory requests per node (job_get_tres_mem:
	// _mem_per_node_part).
	NodeMemoryMB uint64
}

// New returns a hook over p. Partitions the scheduler knows and p does
// not are added to p with their time and node limits (parts), so that the
// partition bounds of the hierarchy apply, and with the QOS and billing
// weights of conf.
func New(p *limits.Policy, parts map[string]sched.Partition, conf map[string]PartitionConf) (*Hook, error) {
	for name, sp := range parts {
		if p.Partition(name) != nil {
			continue
		}
		lp := limits.NewPartition(name)
		if sp.MaxTime > 0 {
			lp.MaxTime = minutes(sp.MaxTime)
		}
		if sp.DefaultTime > 0 {
			lp.DefaultTime = minutes(sp.DefaultTime)
		}
		if sp.MinNodes > 0 {
			lp.MinNodes = uint32(sp.MinNodes)
		}
		if sp.MaxNodes > 0 {
			lp.MaxNodes = uint32(sp.MaxNodes)
		}
		p.AddPartition(lp)
	}
	for name, c := range conf {
		lp := p.Partition(name)
		if lp == nil {
			lp = limits.NewPartition(name)
			p.AddPartition(lp)
		}
		if lp.QOS == "" {
			lp.QOS = c.QOS
		}
		if c.BillingWeights != "" && lp.Billing == nil {
			bw, err := p.TRES.ParseBillingWeights(c.BillingWeights)
			if err != nil {
				return nil, fmt.Errorf("partition %s: TRESBillingWeights: %w", name, err)
			}
			lp.Billing = bw
		}
	}
	nodeMem := map[string]uint64{}
	for name, c := range conf {
		nodeMem[name] = c.NodeMemoryMB
	}
	return &Hook{P: p, jobs: map[uint32]*limits.Job{}, nodeMem: nodeMem}, nil
}

// minutes is a duration in whole minutes, rounded up, with job.Unlimited
// as limits.Infinite.
func minutes(d time.Duration) uint32 {
	if d == job.Unlimited || d < 0 {
		return limits.Infinite
	}
	m := (d + time.Minute - 1) / time.Minute
	if m >= limits.NoVal {
		return limits.Infinite
	}
	return uint32(m)
}

// Job is the limits job of scheduler job id (nil if none).
func (h *Hook) Job(id uint32) *limits.Job { return h.jobs[id] }

// bind makes (or rebinds to the job's current partition) the limits job
// of j.
func (h *Hook) bind(j *sched.Job) (*limits.Job, error) {
	lj := h.jobs[j.ID]
	if lj != nil && lj.Partition == j.Partition {
		return lj, nil
	}
	if lj == nil {
		lj = &limits.Job{ID: j.ID}
		h.jobs[j.ID] = lj
	}
	lj.User, lj.Account, lj.QOS, lj.Partition = j.User, j.Account, j.QOS, j.Partition
	switch j.TimeLimit {
	case 0:
		lj.TimeLimit = limits.NoVal
	default:
		lj.TimeLimit = minutes(j.TimeLimit)
	}
	lj.Req = h.request(j)
	lj.MinNodes = 1
	if j.Request != nil && j.Request.MinNodes > 0 {
		lj.MinNodes = uint32(j.Request.MinNodes)
	}
	if err := h.P.Bind(lj); err != nil {
		// Not kept: a later bind (Validate after PartitionExempt) must
		// see the error again.
		delete(h.jobs, j.ID)
		return lj, err
	}
	return lj, nil
}

// request is the job's tres_req_cnt: its minimum CPUs, memory and nodes,
// its GPUs (typed too when that TRES is tracked), and billing.
func (h *Hook) request(j *sched.Job) limits.Vector {
	v := make(limits.Vector, h.P.TRES.Len())
	r := j.Request
	if r == nil {
		v[limits.TRESNode], v[limits.TRESCPU] = 1, 1
		return h.billed(j, v)
	}
	n := r.MinNodes
	if n < 1 {
		n = 1
	}
	cpus := r.MinCPUs(n)
	v[limits.TRESNode], v[limits.TRESCPU] = uint64(n), uint64(cpus)
	switch {
	case r.MemPerCPU > 0:
		v[limits.TRESMem] = r.MemPerCPU * uint64(cpus)
	case r.MemPerNode > 0:
		v[limits.TRESMem] = r.MemPerNode * uint64(n)
	default:
		// No memory asked (and no default): the job gets a whole node's.
		v[limits.TRESMem] = h.nodeMem[j.Partition] * uint64(n)
	}
	h.gpus(v, uint64(r.GPUsPerNode*n+r.GPUsPerJob), r.GPUType)
	return h.billed(j, v)
}

func (h *Hook) gpus(v limits.Vector, n uint64, typ string) {
	if n == 0 {
		return
	}
	if i, ok := h.P.TRES.Index("gres/gpu"); ok {
		v[i] = n
	}
	if typ != "" {
		if i, ok := h.P.TRES.Index("gres/gpu:" + typ); ok {
			v[i] = n
		}
	}
}

// billed sets the billing TRES with the partition's TRESBillingWeights.
func (h *Hook) billed(j *sched.Job, v limits.Vector) limits.Vector {
	var bw *limits.BillingWeights
	if p := h.P.Partition(j.Partition); p != nil {
		bw = p.Billing
	}
	v[limits.TRESBilling] = uint64(bw.Billing(h.P.TRES, v, h.P.BillingMode))
	return v
}

// allocation is the TRES of an allocation (tres_alloc_cnt) and its nodes.
func (h *Hook) allocation(j *sched.Job, a *job.Allocation) (limits.Vector, []uint32) {
	v := make(limits.Vector, h.P.TRES.Len())
	var nodes []uint32
	if a.Nodes != nil {
		nodes = a.Nodes.ToArray()
	}
	v[limits.TRESNode] = uint64(len(nodes))
	v[limits.TRESCPU] = uint64(a.TotalCPUs)
	var gpus uint64
	for _, n := range a.PerNode {
		v[limits.TRESMem] += n.MemoryMB
		gpus += uint64(n.GPUs)
	}
	typ := ""
	if j.Request != nil {
		typ = j.Request.GPUType
	}
	h.gpus(v, gpus, typ)
	return h.billed(j, v), nodes
}

// Validate is acct_policy_validate at submit; on success the job counts
// against the submit limits. A time limit the limits filled in (from
// MaxWall) becomes the job's.
func (h *Hook) Validate(j *sched.Job) error {
	lj, err := h.bind(j)
	if err != nil {
		delete(h.jobs, j.ID)
		return err
	}
	if err := h.P.Validate(lj); err != nil {
		delete(h.jobs, j.ID)
		return err
	}
	if j.TimeLimit == 0 && lj.TimeLimit != limits.NoVal {
		d := job.Unlimited
		if lj.TimeLimit != limits.Infinite {
			d = time.Duration(lj.TimeLimit) * time.Minute
		}
		j.TimeLimit = d
		if j.Request != nil {
			j.Request.TimeLimit = d
		}
	}
	h.P.Submit(lj)
	return nil
}

// PreSelect is acct_policy_job_runnable_pre_select (with get_node_cnts'
// node limit).
func (h *Hook) PreSelect(j *sched.Job, now int64) (bool, sched.Reason, string) {
	lj, err := h.bind(j)
	if err != nil {
		return false, sched.LimitReason(limits.ReasonFailAccount), ""
	}
	ok, r := h.P.PreSelect(lj, now)
	return ok, sched.LimitReason(r), ""
}

// PartitionExempt says which partition limits the job's own QOS lifts
// (sched.PartitionExempt).
func (h *Hook) PartitionExempt(j *sched.Job) (time, maxNodes, minNodes bool) {
	lj, err := h.bind(j)
	if err != nil {
		return false, false, false
	}
	f := lj.QOSFlags()
	return f&limits.PartitionTimeLimit != 0, f&limits.PartitionMaxNodes != 0, f&limits.PartitionMinNodes != 0
}

// HandleAccrue is acct_policy_handle_accrue_time (sched.Accruer): a
// pending eligible job starts to accrue age priority when the accrue
// limits let it, from Eligible; a pending job no longer eligible (held, a
// dependency) stops, as acct_policy_remove_accrue_time; a job no longer
// pending leaves the counts.
func (h *Hook) HandleAccrue(j *sched.Job, pending, eligible bool, now int64) {
	lj := h.jobs[j.ID]
	if lj == nil {
		return
	}
	if pending && !eligible {
		h.P.RemoveAccrue(lj)
		return
	}
	begin := j.Eligible
	if begin == 0 {
		begin = now
	}
	h.P.HandleAccrue(lj, pending, eligible, begin, now)
}

// AccrueTime is when job id began to accrue age priority (what the age
// factor of a priority plugin reads), 0 if it does not.
func (h *Hook) AccrueTime(id uint32) int64 {
	if lj := h.jobs[id]; lj != nil {
		return lj.AccrueTime()
	}
	return 0
}

// PrioThreshold is the job's MinPrioThreshold (sched.PrioThresholder).
func (h *Hook) PrioThreshold(j *sched.Job) uint32 {
	lj, err := h.bind(j)
	if err != nil {
		return 0
	}
	return h.P.PrioThreshold(lj)
}

// MaxNodes is the most nodes the job's limits let it use, 0 for no limit
// (sched.NodeLimiter).
func (h *Hook) MaxNodes(j *sched.Job) int {
	lj, err := h.bind(j)
	if err != nil {
		return 0
	}
	m, _ := h.P.MaxNodes(lj)
	if m == limits.Infinite {
		return 0
	}
	return int(m)
}

// PostSelect is acct_policy_job_runnable_post_select with the
// allocation's TRES, or the request's when a is nil (no nodes chosen).
func (h *Hook) PostSelect(j *sched.Job, a *job.Allocation, now int64) (bool, sched.Reason, string) {
	lj, err := h.bind(j)
	if err != nil {
		return false, sched.LimitReason(limits.ReasonFailAccount), ""
	}
	alloc, nodes := lj.Req, []uint32(nil)
	if a != nil {
		alloc, nodes = h.allocation(j, a)
	}
	ok, r := h.P.PostSelect(lj, alloc, nodes, now)
	return ok, sched.LimitReason(r), ""
}

// Begin is acct_policy_job_begin with the job's allocation. A job added
// already running is first counted as submitted.
func (h *Hook) Begin(j *sched.Job, now int64) {
	lj, err := h.bind(j)
	if err != nil {
		return
	}
	if j.TimeLimit == 0 && j.End > j.Start {
		lj.TimeLimit = minutes(time.Duration(j.End-j.Start) * time.Second)
	}
	h.P.Submit(lj)
	var alloc limits.Vector
	var nodes []uint32
	if j.Alloc != nil {
		alloc, nodes = h.allocation(j, j.Alloc)
	} else {
		alloc = lj.Req
	}
	h.P.Begin(lj, alloc, nodes, now)
}

// End is acct_policy_job_fini and acct_policy_remove_job_submit.
func (h *Hook) End(j *sched.Job, now int64) {
	if lj := h.jobs[j.ID]; lj != nil {
		h.P.End(lj, now)
		delete(h.jobs, j.ID)
	}
}
