package constres

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// unlimitedRun is how long a job without a time limit is assumed to run.
const unlimitedRun = int64(365 * 24 * 3600)

// Config holds the plugin's slurm.conf-level settings.
type Config struct {
	// TrackMemory is CR_Core_Memory: memory is consumable.
	TrackMemory bool
	// DefMemPerCPU (MB) applies to jobs that ask for no memory; when it is 0
	// such a job gets the whole memory of each node, as in Slurm.
	DefMemPerCPU uint64
	// Preempt enables preemption of running jobs marked preemptable with a
	// lower priority than the pending job.
	Preempt bool
	// PreemptMode is how victims give their resources back.
	PreemptMode job.PreemptMode
	// Units is what SelectTypeParameters allocates: CR_Core (the
	// default), CR_CPU or CR_Socket.
	Units Units
	// DefaultDistBlock is CR_Core_Default_Dist_Block: cores are laid out
	// block-wise when the job names no core distribution.
	DefaultDistBlock bool
	// WallClock, when set, is the live clock of will-run's 2 s cap
	// (_future_run_test quits after 2 s of wall time, the job getting no
	// start); without it, WillRunTestCost counts each test after a batch
	// of running jobs ends as that much time, so the cap falls at the same
	// test on every run (0: no cap).
	WallClock       func() time.Time
	WillRunTestCost time.Duration
}

// willRunCap is _future_run_test's wall-clock limit.
const willRunCap = 2 * time.Second

// willRunTimer is one will-run's share of the 2 s cap: spent reports,
// after each failed batch test, whether the cap is used up.
func (p *Plugin) willRunTimer() (spent func() bool) {
	if p.cfg.WallClock != nil {
		start := p.cfg.WallClock()
		return func() bool { return p.cfg.WallClock().Sub(start) >= willRunCap }
	}
	if p.cfg.WillRunTestCost <= 0 {
		return func() bool { return false }
	}
	var used time.Duration
	return func() bool {
		used += p.cfg.WillRunTestCost
		return used >= willRunCap
	}
}

// errWillRunCap is will-run's answer when the 2 s cap cut it short.
var errWillRunCap = &job.Unsatisfied{Reason: "will-run stopped after 2 s (cons_tres _future_run_test)"}

// Units is the consumable resource of SelectTypeParameters.
type Units uint8

// Allocation units.
const (
	// UnitCore is CR_Core: jobs hold whole cores and all their CPUs.
	UnitCore Units = iota
	// UnitCPU is CR_CPU: a job holds the CPUs it needs, its cores are
	// chosen block-wise.
	UnitCPU
	// UnitSocket is CR_Socket: jobs hold whole sockets.
	UnitSocket
)

// Plugin is select/cons_tres over one cluster. It is not safe for
// concurrent use.
type Plugin struct {
	cl  *job.Cluster
	cfg Config
	st  *state
	rel *releaseChain // will-run's view of st, rebuilt when st changes

	usable  bitset.Set
	coreOff []int // node id -> its first core in core bitmaps; len N+1
	// per-request scratch
	avail    []int // usable CPUs per node
	availGPU []int // usable GPUs per node
	use      []int // CPUs chosen per node
	sets     []cset
	coreBuf  []bool // one node's free cores, for the socket rules
	cores    coreScratch
	gpuUse   []int // GPUs taken per node by the selection
	// dense and denseOut are WillRunDense's candidates and answer.
	dense, denseOut bitset.Set
	// Node sets of one call, reused (scratchSet): will-run's usable
	// candidates, the candidates that may have a free core (nodeBound),
	// and a selection's eligible and chosen nodes.
	willCand, seen, eligible, chosen bitset.Set
	// bound is will-run's nodeBound, reused (newNodeBound).
	bound nodeBound
	// classOf is each node's class, classSets the members of each (nil
	// with too many classes), ever the remembered test-0 answers
	// (everFits).
	classOf   []int32
	classSets []bitset.Set
	ever      map[everKey]everBound
	// gang is SetGang's setting.
	gang bool
}

// scratchSet is *b cleared, made first if need be: one of the plugin's
// node sets that live for one call.
func (p *Plugin) scratchSet(b *bitset.Set) bitset.Set {
	if len(*b) != (p.cl.N+63)/64 {
		*b = bitset.New(p.cl.N)
	} else {
		b.Clear()
	}
	return *b
}

// noMemo disables the will-run and ever-fits memos, for differential
// tests.
var noMemo = false

var _ job.Plugin = (*Plugin)(nil)

// New returns a plugin with no jobs over cl.
func New(cl *job.Cluster, cfg Config) *Plugin {
	p := &Plugin{cl: cl, cfg: cfg, st: newState(cl.N), usable: bitset.FromRoaring(cl.Usable, cl.N),
		coreOff: make([]int, cl.N+1), avail: make([]int, cl.N), availGPU: make([]int, cl.N), use: make([]int, cl.N), gpuUse: make([]int, cl.N)}
	for id := 0; id < cl.N; id++ {
		p.coreOff[id+1] = p.coreOff[id] + cl.Cores(uint32(id))
	}
	p.classify()
	return p
}

// Cluster is the cluster the plugin selects from.
func (p *Plugin) Cluster() *job.Cluster { return p.cl }

// AbsolutePlans implements job.AbsolutePlans without a wall clock: while
// no running job is past its end, a will-run answer is a start now or the
// end of a running job (willRun: the release batches are measured from
// the jobs' ends, startOf), as WillRunDense's memo already assumes; the
// wall-clock cap would make it depend on the time taken.
func (p *Plugin) AbsolutePlans() bool { return p.cfg.WallClock == nil }

// SharesNodes implements job.NodeSharer: jobs share nodes core by core.
func (p *Plugin) SharesNodes() bool { return true }

// SetGang implements job.GangPlugin: with on, a job's cores need only be
// free in its own partition's rows (job_res_add_job), and a node's other
// jobs do not refuse it at Begin.
func (p *Plugin) SetGang(on bool) { p.gang = on }

func (p *Plugin) totalCores() int { return p.coreOff[p.cl.N] }

// nodeReqOf is _get_job_node_req (reference §2.1).
func (p *Plugin) nodeReqOf(r *job.Request) int32 {
	part := p.cl.Partitions[r.Partition]
	switch {
	case r.Exclusive || (part != nil && part.Exclusive):
		return crReserved
	case part != nil && part.Force:
		return crAvailable
	case p.cl.MaxShare(r.Partition) > 1 && r.OverSubscribe:
		return crAvailable
	}
	return crOneRow
}

func (p *Plugin) numRows(part string) int { return p.cl.MaxShare(part) }

// memRate is the job's memory per CPU, or 0 when it asks per node.
func (p *Plugin) memRate(r *job.Request) uint64 {
	if !p.cfg.TrackMemory {
		return 0
	}
	if r.MemPerCPU > 0 {
		return r.MemPerCPU
	}
	if !r.MemPerNodeSet && p.cfg.DefMemPerCPU > 0 {
		return p.cfg.DefMemPerCPU
	}
	return 0
}

// wholeMem reports whether the job takes each node's whole memory.
func (p *Plugin) wholeMem(r *job.Request) bool {
	if !p.cfg.TrackMemory || r.MemPerCPU > 0 {
		return false
	}
	if r.MemPerNodeSet {
		return r.MemPerNode == 0
	}
	return p.cfg.DefMemPerCPU == 0
}

// nodeMem is the memory the job takes on node id holding cpus CPUs.
func (p *Plugin) nodeMem(r *job.Request, id uint32, cpus int) uint64 {
	if tpc := p.cl.Threads[id]; r.ThreadsPerCore > 0 && r.ThreadsPerCore < tpc && p.cfg.Units != UnitCPU {
		// job_resources_get_node_cpu_cnt: per-CPU memory counts only
		// the threads-per-core CPUs of each core held.
		cpus = (cpus + tpc - 1) / tpc * r.ThreadsPerCore
	}
	switch {
	case !p.cfg.TrackMemory:
		return 0
	case p.wholeMem(r):
		return p.cl.MemoryMB[id]
	case p.memRate(r) > 0:
		return p.memRate(r) * uint64(cpus)
	}
	return r.MemPerNode
}

// freeGPUs is node id's GPUs of the job's type not allocated in st (all of
// them when st is nil).
func (p *Plugin) freeGPUs(st *state, id uint32, typ string) int {
	n := 0
	for i, g := range p.cl.GPUs[id] {
		if typ != "" && g.Type != typ {
			continue
		}
		n += int(g.Count)
		if st != nil && st.gpus[id] != nil {
			n -= st.gpus[id][i]
		}
	}
	return n
}

// verifyNodeState is _verify_node_state (reference §2.3 step 0).
func (p *Plugin) verifyNodeState(st *state, r *job.Request, cand bitset.Set) bool {
	req := p.nodeReqOf(r)
	cpt := r.CPUsPerTaskOr1()
	rate := p.memRate(r)
	// pn_min_cpus is cpus-per-task x ntasks-per-node (job_mgr.c).
	minCPUs := max(r.NTasksPerNode*cpt, cpt, 1)
	ok := true
	cand.Each(func(id uint32) bool {
		drop := false
		free := p.cl.MemoryMB[id] - min(st.mem[id], p.cl.MemoryMB[id])
		switch {
		case p.wholeMem(r):
			drop = st.mem[id] != 0
		case rate > 0:
			drop = rate*uint64(minCPUs) > free
		case p.cfg.TrackMemory:
			drop = r.MemPerNode > free
		}
		if req == crReserved && st.jobCnt[id] > 0 {
			drop = true
		}
		if r.GPUsPerNode > 0 && p.cl.GPUCount(id, r.GPUType) < r.GPUsPerNode {
			drop = true
		}
		if !p.stateAllows(st, req, r.Partition, id) {
			drop = true
		}
		if drop {
			cand.Del(id)
			if r.RequiredSet != nil && r.RequiredSet.Contains(id) {
				ok = false
			}
		}
		return true
	})
	return ok
}

// canRun is _can_job_run_on_node (reference §2.4): the CPUs and GPUs node id
// offers the job given the free cores; st nil means ignore allocations.
// whole is nodeReqOf(r) == crReserved, worked out once by the caller.
func (p *Plugin) canRun(st *state, r *job.Request, id uint32, free bitset.Set, whole bool) (cpus, gpus int) {
	cores := p.cl.Cores(id)
	lo := p.coreOff[id]
	fc := cores
	if free != nil {
		fc = free.CountRange(lo, lo+cores)
	}
	if r.NTasksPerCore == 0 && r.ThreadsPerCore > p.cl.Threads[id] {
		// _allocate_sc: more threads per core than the node schedules
		// (a node whose CPUs count its cores) leaves it unusable.
		return 0, 0
	}
	cpc := p.coreCPUs(r, id)
	cpus = fc * cpc
	cpt := r.CPUsPerTaskOr1()
	if whole && fc != cores {
		return 0, 0
	}
	socketRules := r.NTasksPerSocket > 0 || r.SocketsPerNode > 0 || r.CoresPerSocket > 0
	if whole && !socketRules {
		cpus = fc * cpc
	} else if socketRules {
		// Whole-node jobs too: _allocate_sc caps the node's task CPUs
		// by the socket rules though the job then holds every core.
		if cap(p.coreBuf) < cores {
			p.coreBuf = make([]bool, cores)
		}
		avail := p.coreBuf[:cores]
		for c := range avail {
			avail[c] = free == nil || free.Has(uint32(lo+c))
		}
		cpus = socketCores(r, avail, p.cl.CoresPerSocket[id], p.cl.Threads[id], cpc, whole)
	} else {
		cpus = taskCPUs(r, cpus, cpc)
	}
	if p.cfg.TrackMemory {
		freeMem := p.cl.MemoryMB[id]
		if st != nil {
			freeMem -= min(st.mem[id], freeMem)
		}
		switch rate := p.memRate(r); {
		case p.wholeMem(r):
			if st != nil && st.mem[id] != 0 {
				return 0, 0
			}
		case rate > 0:
			// _can_job_run_on_node: a whole-node job needs memory for all
			// its CPUs; others shed allocation units (a core's CPUs, one
			// CPU or a socket's CPUs) until the CPUs' memory fits, then
			// whole tasks.
			if whole {
				if rate*uint64(cpus) > freeMem {
					cpus = 0
				}
			} else if p.cfg.Units != UnitCPU && r.NTasksPerCore == 1 && cpt == 1 {
				// Each CPU here stands for a whole core, whose
				// threads all get memory later.
				tpc := uint64(p.cl.Threads[id])
				for cpus > 0 && rate*uint64(cpus)*tpc > freeMem {
					cpus--
				}
			} else {
				step := p.allocSize(id)
				if r.NTasksPerCore > 0 || r.ThreadsPerCore > 0 {
					// _allocate_sc: cpu_alloc_size shrinks to the
					// usable CPUs of a core.
					step = min(step, cpc)
				}
				for rate*uint64(cpus) > freeMem {
					if cpus < step {
						cpus = 0
						break
					}
					cpus -= step
				}
			}
			cpus -= cpus % cpt
			if cpus < r.NTasksPerNode {
				cpus = 0
			}
		default:
			if r.MemPerNode > freeMem {
				return 0, 0
			}
		}
	}
	minPer := cpt
	if r.NTasksPerNode > 0 {
		minPer = r.NTasksPerNode * cpt
	}
	minPer = max(minPer, r.MinCPUsPerNode)
	if cpus < minPer {
		return 0, 0
	}
	// eval_nodes_select_cores: a node must hold the tasks one socket (or
	// one core) is asked to run.
	if r.NTasksPerNode == 0 {
		minTasks := r.NTasksPerSocket
		if minTasks == 0 {
			minTasks = r.NTasksPerCore
		}
		if cpus/cpt < minTasks {
			return 0, 0
		}
	}
	gpus = p.freeGPUs(st, id, r.GPUType)
	if r.GPUsPerNode > gpus || r.GPUsPerJob > 0 && gpus == 0 {
		// A per-job GPU count still needs a GPU on every node it uses.
		return 0, 0
	}
	return cpus, gpus
}

// tier is the PriorityTier of the partition named name.
func (p *Plugin) tier(name string) uint32 {
	if part := p.cl.Partitions[name]; part != nil {
		return part.PriorityTier
	}
	return 0
}

// coreCPUs is job_mgr_determine_cpus_per_core: the CPUs of one core of node
// id that the job's tasks may use, all its threads unless ntasks-per-core
// x cpus-per-task or threads-per-core is fewer.
func (p *Plugin) coreCPUs(r *job.Request, id uint32) int {
	t := p.cl.Threads[id]
	if r.NTasksPerCore > 0 {
		t = min(t, r.NTasksPerCore*r.CPUsPerTaskOr1())
	}
	if r.ThreadsPerCore > 0 {
		t = min(t, r.ThreadsPerCore)
	}
	return t
}

// allocSize is _select_and_set_cpus' cpu_alloc_size: the CPUs of one
// allocation unit of node id.
func (p *Plugin) allocSize(id uint32) int {
	switch p.cfg.Units {
	case UnitCPU:
		return 1
	case UnitSocket:
		return p.cl.CoresPerSocket[id] * p.cl.Threads[id]
	}
	return p.cl.Threads[id]
}

// Select implements job.Plugin.
func (p *Plugin) Select(r *job.Request, cand *roaring.Bitmap, mode job.Mode, now int64) (*job.Allocation, error) {
	all := bitset.FromRoaring(cand, p.cl.N)
	if err := p.screen(r, all); err != nil {
		return nil, err
	}
	switch mode {
	case job.TestOnly:
		return p.testOnly(r, all)
	case job.WillRun, job.Plan:
		return p.willRunAll(r, all, mode, now)
	}
	usable := all.Clone()
	usable.And(p.usable)
	a, err := p.runNow(r, usable, now)
	if err != nil {
		return nil, p.neverOr(r, all, mode, err)
	}
	return a, nil
}

// WillRunDense implements job.DenseWillRun: Select's Plan answer on the
// dense candidates cand (left unchanged), its start and nodes only,
// remembered while the plugin's jobs stay the same and none of them is
// past its end (the answer then depends on now only through its start).
// An answer the wall-clock cap cut short is not remembered.
// The nodes belong to the plugin: read them before its next call.
func (p *Plugin) WillRunDense(r *job.Request, cand bitset.Set, now int64) (int64, bitset.Set, error) {
	if len(p.dense) != len(cand) {
		p.dense = bitset.New(p.cl.N)
	}
	all := p.dense
	all.Copy(cand)
	if err := p.screen(r, all); err != nil {
		return 0, nil, err
	}
	if noMemo || !r.Shaped() || r.Preempts(p.cfg.Preempt) || p.chain().overdue(now) {
		a, err := p.willRunAll(r, all, job.Plan, now)
		if err != nil {
			return 0, nil, err
		}
		return a.Start, p.nodesOf(a), nil
	}
	c := p.chain()
	extra := int(p.nodeReqOf(r)) | p.cl.MaxShare(r.Partition)<<2 | int(p.tier(r.Partition))<<24
	m, h, ok := c.memo.Get(r, r.PlanEnd, extra, all)
	if ok {
		return job.StartAt(m.End, now), m.Nodes, m.Err
	}
	key := all.Clone()
	a, err := p.willRunAll(r, all, job.Plan, now)
	if err == errWillRunCap && p.cfg.WallClock != nil {
		return 0, nil, err
	}
	ans := job.Answer{Err: err}
	if err == nil {
		ans.Nodes, ans.End = p.nodesOf(a), a.Start
		if a.Start == now {
			ans.End = job.FitsNow
		}
	}
	m = c.memo.Put(h, r, r.PlanEnd, extra, key, ans)
	return job.StartAt(m.End, now), m.Nodes, m.Err
}

// nodesOf is a's nodes in a dense scratch set.
func (p *Plugin) nodesOf(a *job.Allocation) bitset.Set {
	if len(p.denseOut) != (p.cl.N+63)/64 {
		p.denseOut = bitset.New(p.cl.N)
	}
	return p.denseOut.Fill(a.Nodes)
}

// screen is Select's checks of every mode: all loses the excluded nodes;
// required nodes outside it fail.
func (p *Plugin) screen(r *job.Request, all bitset.Set) error {
	if r.ExcludedSet != nil && !r.ExcludedSet.IsEmpty() {
		all.AndNot(bitset.FromRoaring(r.ExcludedSet, p.cl.N))
	}
	if r.RequiredSet != nil && !r.RequiredSet.IsEmpty() && !bitset.FromRoaring(r.RequiredSet, p.cl.N).SubsetOf(all) {
		return &job.Unsatisfied{Never: true, Reason: "required nodes are not all candidates"}
	}
	return nil
}

// willRunAll is Select's WillRun or Plan mode on the screened candidates
// all (changed).
func (p *Plugin) willRunAll(r *job.Request, all bitset.Set, mode job.Mode, now int64) (*job.Allocation, error) {
	usable := p.scratchSet(&p.willCand)
	usable.Copy(all)
	usable.And(p.usable)
	if mode == job.WillRun {
		if r.MaxNodes == 0 && r.NTasks > 0 {
			// job_mgr.c gives a job with ntasks and no maximum node
			// count max_nodes = ntasks (JOB_IMPLICIT_MAX_NODES), and
			// job_start_data then asks for that many nodes.
			wr := *r
			wr.MaxNodes, wr.ReqNodes = r.NTasks, r.NTasks
			r = &wr
		}
		if r.RequiredSet != nil && !r.RequiredSet.IsEmpty() {
			// job_start_data tests a job with a node list on those
			// nodes only.
			req := bitset.FromRoaring(r.RequiredSet, p.cl.N)
			all.And(req)
			usable.And(req)
		}
	}
	a, err := p.willRun(r, usable, now)
	if err != nil {
		return nil, p.neverOr(r, all, mode, err)
	}
	return a, nil
}

// neverOr is Select's answer when mode's test failed with err: Never when
// no set of candidates could ever hold the job, else err.
func (p *Plugin) neverOr(r *job.Request, all bitset.Set, mode job.Mode, err error) error {
	// Slurm's test-only answer is test 0 alone: a job whose layout
	// fails later (tasks, memory of whole sockets) stays pending.
	t0 := r
	if _, maxN, _ := r.NodeCounts(all.Count()); mode == job.RunNow && r.GPUsPerJob > 1 && maxN == 1 {
		// At submit, Slurm's test-only pass holds a one-node job's
		// per-job GPU total only against every candidate's GPUs,
		// not against one node's (each node still needs a GPU): a
		// job whose total fits the cluster but no single node waits
		// forever instead. Its will-run estimate refuses it.
		total := 0
		all.Each(func(id uint32) bool {
			total += p.cl.GPUCount(id, r.GPUType)
			return true
		})
		if total >= r.GPUsPerJob {
			c := *r
			c.GPUsPerJob = 1
			t0 = &c
		}
	}
	if !p.everFits(t0, all) {
		return &job.Unsatisfied{Never: true, Reason: "no set of candidate nodes could ever hold the job"}
	}
	return err
}

// testOnly is "test 0" on every configured node (reference §2.3 step 2).
func (p *Plugin) testOnly(r *job.Request, cand bitset.Set) (*job.Allocation, error) {
	pk, ok := p.selectNodes(nil, r, cand, nil)
	if !ok {
		return nil, &job.Unsatisfied{Never: true, Reason: "no set of candidate nodes could ever hold the job"}
	}
	return p.build(nil, r, pk, nil, 0)
}

// fit runs _job_test's tests 1 and 4 on st (reference §2.3 steps 3-6).
func (p *Plugin) fit(st *state, r *job.Request, cand bitset.Set) (*pick, bitset.Set, bool) {
	return p.fitFree(st, r, cand, nil)
}

// fitFree is fit with test 1's free cores (those in no row of st) given,
// or computed when free1 is nil. free1 is only read.
func (p *Plugin) fitFree(st *state, r *job.Request, cand bitset.Set, free1 bitset.Set) (*pick, bitset.Set, bool) {
	c := cand.Clone()
	if !p.verifyNodeState(st, r, c) {
		return nil, nil, false
	}
	req := p.nodeReqOf(r)
	if req == crAvailable {
		// test 0: could it fit at all?
		if _, ok := p.selectNodes(nil, r, c, nil); !ok {
			return nil, nil, false
		}
	}
	free := free1
	if free == nil {
		free = p.freeCores(st)
	}
	if pk, ok := p.selectNodes(st, r, c, free); ok {
		return pk, free, true
	}
	if req != crAvailable {
		return nil, nil, false
	}
	// test 3: only the cores of same-tier partitions are off limits; when
	// the job fits, lower-tier partitions' cores are removed too, one
	// partition at a time, while it still fits.
	tier := p.tier(r.Partition)
	free = p.allCores()
	var lower []string
	for name, pr := range st.parts {
		switch t := p.tier(name); {
		case t == tier:
			for _, row := range pr.rows {
				free.AndNot(row)
			}
		case t < tier:
			lower = append(lower, name)
		}
	}
	if pk, ok := p.selectNodes(st, r, c, free); ok {
		// Slurm walks its partitions by descending tier.
		slices.SortFunc(lower, func(a, b string) int {
			if ta, tb := p.tier(a), p.tier(b); ta != tb {
				return cmpU32(tb, ta)
			}
			return strings.Compare(a, b)
		})
		for _, name := range lower {
			tmp := free.Clone()
			for _, row := range st.parts[name].rows {
				tmp.AndNot(row)
			}
			pk2, ok := p.selectNodes(st, r, c, tmp)
			if !ok {
				break
			}
			pk, free = pk2, tmp
		}
		return pk, free, true
	}
	// test 4: each row of the job's partition, fullest first, then an
	// empty row.
	pr := st.parts[r.Partition]
	var order []int
	if pr != nil {
		for i := range pr.rows {
			order = append(order, i)
		}
		slices.SortStableFunc(order, func(a, b int) int { return pr.rows[b].Count() - pr.rows[a].Count() })
	}
	for _, i := range order {
		free = p.allCores()
		free.AndNot(pr.rows[i])
		if pk, ok := p.selectNodes(st, r, c, free); ok {
			return pk, free, true
		}
	}
	if pr == nil || len(pr.rows) < p.numRows(r.Partition) {
		free = p.allCores()
		if pk, ok := p.selectNodes(st, r, c, free); ok {
			return pk, free, true
		}
	}
	return nil, nil, false
}

// freeCores is the cores in no row of st.
func (p *Plugin) freeCores(st *state) bitset.Set {
	free := p.allCores()
	for _, pr := range st.parts {
		for _, row := range pr.rows {
			free.AndNot(row)
		}
	}
	return free
}

func (p *Plugin) allCores() bitset.Set {
	s := bitset.New(p.totalCores())
	for i := range s {
		s[i] = ^uint64(0)
	}
	if t := p.totalCores() & 63; t != 0 {
		s[len(s)-1] = 1<<uint(t) - 1
	}
	return s
}

func (p *Plugin) runNow(r *job.Request, cand bitset.Set, now int64) (*job.Allocation, error) {
	if pk, free, ok := p.fit(p.st, r, cand); ok {
		return p.build(p.st, r, pk, free, now)
	}
	if r.Preempts(p.cfg.Preempt) {
		if a, ok := p.preempt(r, cand, now); ok {
			return a, nil
		}
	}
	return nil, &job.Unsatisfied{Reason: "not enough free resources now"}
}

// preemptCandidates are the running jobs r may preempt, lowest priority
// first (ties: lower id).
func (p *Plugin) preemptCandidates(st *state, r *job.Request) []*record {
	if r.PreemptCandidates != nil {
		var out []*record
		for _, id := range r.PreemptCandidates {
			if j, ok := st.jobs[id]; ok && id != r.ID {
				out = append(out, j)
			}
		}
		return out
	}
	var out []*record
	for _, j := range sortedJobs(st) {
		if j.preemptable && j.priority < r.Priority && j.id != r.ID {
			out = append(out, j)
		}
	}
	slices.SortStableFunc(out, func(a, b *record) int { return cmpU32(a.priority, b.priority) })
	return out
}

// preempt removes candidates one at a time until the job fits, then redoes
// the walk once with the enabling job first (as select/linear does).
func (p *Plugin) preempt(r *job.Request, cand bitset.Set, now int64) (*job.Allocation, bool) {
	victims := p.preemptCandidates(p.st, r)
	if r.PreemptAll {
		exp := p.st.dup()
		for _, v := range victims {
			p.removeJob(exp, v, r.VictimsFreeMemory(p.cfg.PreemptMode))
		}
		pk, free, ok := p.fit(exp, r, cand)
		if !ok {
			return nil, false
		}
		a, err := p.build(exp, r, pk, free, now)
		if err != nil {
			return nil, false
		}
		a.Preempted = victimsOn(victims, a)
		return a, true
	}
	order := victims
	for pass := 0; pass < 2 && len(order) > 0; pass++ {
		exp := p.st.dup()
		found := -1
		var pk *pick
		var free bitset.Set
		for k, v := range order {
			p.removeJob(exp, v, r.VictimsFreeMemory(p.cfg.PreemptMode))
			var ok bool
			if pk, free, ok = p.fit(exp, r, cand); ok {
				found = k
				break
			}
		}
		if found < 0 {
			return nil, false
		}
		if pass == 1 || found == 0 {
			a, err := p.build(exp, r, pk, free, now)
			if err != nil {
				return nil, false
			}
			a.Preempted = victimsOn(victims, a)
			return a, true
		}
		order = append([]*record{order[found]}, append(slices.Clone(order[:found]), order[found+1:]...)...)
	}
	return nil, false
}

// victimsOn are the ids of the victims holding a node of a.
func victimsOn(victims []*record, a *job.Allocation) []uint32 {
	var out []uint32
	for _, v := range victims {
		for _, id := range v.nodes {
			if a.Nodes.Contains(id) {
				out = append(out, v.id)
				break
			}
		}
	}
	return out
}

// willRunPlain is _will_run_test (reference §2.7) as Slurm runs it: copy
// the state, release the running jobs in end-time batches and refit after
// each. willRun gives the same answers faster; this is its reference, and
// the path taken with preemption.
func (p *Plugin) willRunPlain(r *job.Request, cand bitset.Set, now int64) (*job.Allocation, error) {
	overdue := false
	for _, j := range p.st.jobs {
		overdue = overdue || j.end <= now
	}
	// With jobs ending by now, the first test is made once they are gone
	// (below), as _will_run_test makes it.
	if !overdue {
		if pk, free, ok := p.fit(p.st, r, cand); ok {
			return p.build(p.st, r, pk, free, now)
		}
	}
	exp := p.st.dup()
	byEnd := func(jobs []*record) []*record {
		slices.SortStableFunc(jobs, func(a, b *record) int { return cmp.Compare(a.end, b.end) })
		return jobs
	}
	// removed are the running jobs taken out, by end. Those ending by now
	// (the will-run start) go first: _future_run_test leaves them out of
	// its list (_build_cr_job_list) before its first test, the one with
	// every preemptable job gone.
	var removed []*record
	if overdue {
		for _, j := range byEnd(sortedJobs(exp)) {
			if j.end > now {
				break
			}
			p.removeJob(exp, j, true)
			removed = append(removed, j)
		}
	}
	var pre []*record
	// gone are the candidates taken out, which no end releases again: a
	// suspended one keeps its memory for good (_build_cr_job_list lists
	// only the jobs it does not take out).
	gone := map[uint32]bool{}
	if r.Preempts(p.cfg.Preempt) {
		pre = p.preemptCandidates(exp, r)
		for _, v := range pre {
			p.removeJob(exp, v, r.VictimsFreeMemory(p.cfg.PreemptMode))
			gone[v.id] = true
		}
		if len(pre) > 0 {
			if pk, free, ok := p.fit(exp, r, cand); ok {
				a, err := p.build(exp, r, pk, free, now)
				if err == nil {
					a.Preempted = victimsOn(pre, a)
				}
				return a, err
			}
		}
	}
	running := byEnd(slices.DeleteFunc(sortedJobs(exp), func(j *record) bool { return gone[j.id] }))
	try := func() (*job.Allocation, bool, error) {
		pk, free, ok := p.fit(exp, r, cand)
		if !ok {
			return nil, false, nil
		}
		a, err := p.build(exp, r, pk, free, now)
		if err != nil {
			return nil, false, err
		}
		// The start is the end of the latest removed job that overlaps the
		// chosen nodes (_get_last_relevant_job).
		start := int64(-1)
		for _, j := range removed {
			for _, id := range j.nodes {
				if a.Nodes.Contains(id) {
					start = max(start, j.end)
					break
				}
			}
		}
		if start < 0 {
			start = removed[len(removed)-1].end
		}
		if start <= now {
			start = now + 1
		}
		a.Start = start
		return a, true, nil
	}
	if len(removed) > 0 {
		if a, ok, err := try(); ok || err != nil {
			return a, err
		}
	}
	return futureBatches(running, 0, r.PlanEnd, func(k int) bool { return onAny(running[k], cand) }, p.willRunTimer(), func(k int) {
		p.removeJob(exp, running[k], true)
		removed = append(removed, running[k])
	}, func(int, int) (*job.Allocation, bool, error) { return try() })
}

func sortedJobs(st *state) []*record {
	out := make([]*record, 0, len(st.jobs))
	for _, r := range st.jobs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *record) int { return cmpU32(a.id, b.id) })
	return out
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// endOf is when a job started at start with its limit ends.
func endOf(r *job.Request, start int64) int64 {
	if r.TimeLimit <= 0 {
		return start + unlimitedRun
	}
	return start + int64(r.TimeLimit.Seconds())
}

// errorf makes an Unsatisfied error.
func errorf(never bool, format string, args ...any) error {
	return &job.Unsatisfied{Never: never, Reason: fmt.Sprintf(format, args...)}
}
