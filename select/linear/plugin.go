package linear

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// noShareLimit is Slurm's NO_SHARE_LIMIT: job counts are not checked.
const noShareLimit = 0xfffe

// unlimitedRun is how long a job without a time limit is assumed to run.
const unlimitedRun = int64(365 * 24 * 3600)

// Config holds the plugin's slurm.conf-level settings.
type Config struct {
	// TrackMemory is CR_Memory: memory is a consumable resource, and a job
	// that asks for none gets the whole node's memory.
	TrackMemory bool
	// Preempt enables preemption of running jobs marked preemptable with a
	// lower priority than the pending job.
	Preempt bool
	// PreemptMode is how victims give their resources back.
	PreemptMode job.PreemptMode
}

// Plugin is select/linear over one cluster. It is not safe for concurrent
// use.
type Plugin struct {
	cl  *job.Cluster
	cfg Config
	st  *state
	rel *releaseChain // will-run's view of st, rebuilt when st changes
	// changed holds the jobs started or ended on logSt since the release
	// chain was made, while they are all its changes (logGen is logSt's
	// generation after the last), so that the chain keeps its answers
	// (noteChange).
	changed []*record
	logSt   *state
	logGen  uint64

	usable bitset.Set
	live   bitset.Set
	// tierSet are slurmctld's node sets: the nodes of each distinct node
	// configuration, lightest weight first.
	tierSet []bitset.Set
	// uniformCPUs is every live node's CPU count when they all agree, else
	// 0; minCPUs and minMem are the smallest over live nodes.
	uniformCPUs, minCPUs int
	minMem               uint64
	// scratch, reused between calls
	sets []consecSet
	ids  []uint32
	tmp  bitset.Set
	bufs [5]bitset.Set
	// gang is SetGang's setting.
	gang bool
}

// Scratch set slots; a call chain never uses one slot for two live sets.
const (
	bufAll = iota
	bufUsable
	bufAcc
	bufFilter
	bufOut
)

// buf returns scratch slot i, emptied.
func (p *Plugin) buf(i int) bitset.Set {
	if len(p.bufs[i]) != (p.cl.N+63)/64 {
		p.bufs[i] = bitset.New(p.cl.N)
	}
	p.bufs[i].Clear()
	return p.bufs[i]
}

var _ job.Plugin = (*Plugin)(nil)

// New returns a plugin with no jobs over cl.
func New(cl *job.Cluster, cfg Config) *Plugin {
	p := &Plugin{cl: cl, cfg: cfg, st: newState(cl.N), usable: bitset.FromRoaring(cl.Usable, cl.N)}
	live := bitset.FromRoaring(cl.Snap.Live(), cl.N)
	byConf := map[nodeConfig]int{}
	var weights []uint32
	p.minCPUs, p.minMem = int(^uint(0)>>1), ^uint64(0)
	p.uniformCPUs = -1
	live.Each(func(id uint32) bool {
		key := configOf(cl, id)
		i, ok := byConf[key]
		if !ok {
			i = len(p.tierSet)
			byConf[key] = i
			p.tierSet = append(p.tierSet, bitset.New(cl.N))
			weights = append(weights, cl.Weight[id])
		}
		p.tierSet[i].Add(id)
		c := cl.CPUs[id]
		p.minCPUs = min(p.minCPUs, c)
		p.minMem = min(p.minMem, cl.MemoryMB[id])
		if p.uniformCPUs == -1 {
			p.uniformCPUs = c
		} else if p.uniformCPUs != c {
			p.uniformCPUs = 0
		}
		return true
	})
	p.uniformCPUs = max(p.uniformCPUs, 0)
	// read_config.c sorts the config records by weight (a stable sort of
	// slurm.conf order) and merges identical ones into the first; node
	// sets keep that order.
	order := make([]int, len(p.tierSet))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weights[a], weights[b]) })
	sets := make([]bitset.Set, len(order))
	for k, i := range order {
		sets[k] = p.tierSet[i]
	}
	p.tierSet = sets
	p.st.clean.And(live)
	p.st.idle.And(live)
	p.live = live
	return p
}

// nodeConfig identifies a node's config record: nodes whose slurm.conf
// resources, features, GRES and weight all agree share one
// (node_mgr.c _is_dup_config_record).
type nodeConfig struct {
	weight                                uint32
	cpus, boards, sockets, cores, threads int
	mem                                   uint64
	features, gres                        string
}

func configOf(cl *job.Cluster, id uint32) nodeConfig {
	n, _ := cl.Snap.Node(id)
	k := nodeConfig{weight: cl.Weight[id], cpus: n.CPUs, boards: n.Boards, sockets: n.Sockets, cores: n.CoresPerSocket,
		threads: n.ThreadsPerCore, mem: n.MemoryMB}
	if len(n.Features) > 0 {
		k.features = strings.Join(n.Features, ",")
	}
	if len(n.Gres) > 0 {
		var b strings.Builder
		for _, g := range n.Gres {
			fmt.Fprintf(&b, "%s:%s:%d,", g.Name, g.Type, g.Count)
		}
		k.gres = b.String()
	}
	return k
}

// Cluster is the cluster the plugin selects from.
func (p *Plugin) Cluster() *job.Cluster { return p.cl }

// SetGang implements job.GangPlugin: with on, Begin charges a job to its
// nodes whatever their jobs, as _add_job_to_nodes does (the gang scheduler
// suspends the lower tiers' jobs there, which keep their place in the
// counts).
func (p *Plugin) SetGang(on bool) { p.gang = on }

// AbsolutePlans implements job.AbsolutePlans: a will-run answer is the end
// of the running job whose release lets the job run, or now
// (willRunFit, job.StartAt).
func (p *Plugin) AbsolutePlans() bool { return true }

// job reduced for the best fit
func (p *Plugin) wantOf(r *job.Request, minN int) want {
	w := want{minCPUs: r.MinCPUs(minN), contiguous: r.Contiguous}
	if r.NTasksPerNode > 0 {
		w.cpuCap = r.NTasksPerNode * r.CPUsPerTaskOr1()
	}
	if r.NTasksPerCore > 0 {
		w.perCore = min(r.NTasksPerCore*r.CPUsPerTaskOr1(), 1<<30)
	}
	if r.RequiredSet != nil && !r.RequiredSet.IsEmpty() {
		w.required = bitset.FromRoaring(r.RequiredSet, p.cl.N)
	}
	return w
}

// jobMem is the memory job r takes on node id (reference §1.3); none
// unless memory is consumable (CR_Memory), as _job_count_bitmap checks.
func (p *Plugin) jobMem(r *job.Request, id int) uint64 {
	switch {
	case !p.cfg.TrackMemory:
		return 0
	case r.MemPerCPU > 0:
		return r.MemPerCPU * uint64(p.cl.CPUs[id])
	case r.MemPerNodeSet && r.MemPerNode > 0:
		return r.MemPerNode
	}
	return p.cl.MemoryMB[id]
}

// allocMem is the memory an allocation reports on node id: jobMem, but a
// per-CPU request with threads-per-core below the node's counts only
// those threads of each core (job_resources_get_node_cpu_cnt); the node's
// used memory still grows by jobMem.
func (p *Plugin) allocMem(r *job.Request, id int) uint64 {
	tpc := p.cl.Threads[id]
	if p.cfg.TrackMemory && r.MemPerCPU > 0 && r.ThreadsPerCore > 0 && r.ThreadsPerCore < tpc {
		cpus := (p.cl.CPUs[id] + tpc - 1) / tpc * r.ThreadsPerCore
		return r.MemPerCPU * uint64(cpus)
	}
	return p.jobMem(r, id)
}

// countBitmap is Slurm's _job_count_bitmap (reference §1.3): out = the nodes
// of in that can take the job with at most runCnt running and totCnt total
// jobs already on them. It returns the count kept.
func (p *Plugin) countBitmap(st *state, r *job.Request, in, out bitset.Set, runCnt, totCnt int, mode job.Mode) int {
	cpt := r.CPUsPerTaskOr1()
	kept := 0
	todo := in
	if !slowScan && p.emptyNodesFit(r, mode) {
		// Nodes with nothing on them take the job wholesale; only the others
		// are looked at one by one.
		out.Copy(in)
		if mode == job.TestOnly {
			return out.Count()
		}
		out.And(st.clean)
		kept = out.Count()
		todo = p.scratch(in)
		todo.AndNot(st.clean)
		// Nodes an exclusive job holds fail below anyway.
		todo.AndNot(st.held)
	} else {
		out.Clear()
	}
	todo.Each(func(u uint32) bool {
		if p.nodeFits(st, r, u, cpt, runCnt, totCnt, mode) {
			out.Add(u)
			kept++
		}
		return true
	})
	return kept
}

// nodeFits is countBitmap's test of one node. Releasing jobs only makes
// more nodes pass.
func (p *Plugin) nodeFits(st *state, r *job.Request, u uint32, cpt, runCnt, totCnt int, mode job.Mode) bool {
	if !p.staticFits(r, u, cpt) {
		return false
	}
	id := int(u)
	if mode != job.TestOnly {
		if m := p.jobMem(r, id); m > 0 && st.mem[id]+m > p.cl.MemoryMB[id] {
			return false
		}
		if st.excl[id] != 0 {
			return false
		}
		if int(st.run[id]) > runCnt || int(st.tot[id]) > totCnt {
			return false
		}
	}
	return true
}

// staticFits is the part of nodeFits that no allocation changes.
func (p *Plugin) staticFits(r *job.Request, u uint32, cpt int) bool {
	cpus := p.cl.CPUs[u]
	if cpus < cpt || cpus < r.NTasksPerNode {
		return false
	}
	if r.GPUsPerNode > 0 && p.cl.GPUCount(u, r.GPUType) < r.GPUsPerNode {
		return false
	}
	if r.GPUsPerJob > 0 && p.cl.GPUCount(u, r.GPUType) == 0 {
		return false
	}
	return true
}

// emptyNodesFit reports whether every live node with nothing allocated
// passes countBitmap's per-node checks for r.
func (p *Plugin) emptyNodesFit(r *job.Request, mode job.Mode) bool {
	cpt := r.CPUsPerTaskOr1()
	if r.GPUsPerNode > 0 || r.GPUsPerJob > 0 || cpt > p.minCPUs || r.NTasksPerNode > p.minCPUs {
		return false
	}
	if mode == job.TestOnly || !p.cfg.TrackMemory {
		return true
	}
	switch {
	case r.MemPerCPU > 0:
		return false
	case r.MemPerNodeSet && r.MemPerNode > 0:
		return r.MemPerNode <= p.minMem
	}
	return true
}

// scratch returns a reusable copy of s.
func (p *Plugin) scratch(s bitset.Set) bitset.Set {
	if len(p.tmp) != len(s) {
		p.tmp = bitset.New(p.cl.N)
	}
	p.tmp.Copy(s)
	return p.tmp
}

// maxShare is how many jobs may share a node with r (reference §1.2): the
// partition's OverSubscribe count when the job shares (it asked to, or the
// partition forces it), else 1.
func (p *Plugin) maxShare(r *job.Request) int {
	part := p.cl.Partitions[r.Partition]
	if r.Exclusive || (part != nil && part.Exclusive) {
		return 1
	}
	if r.OverSubscribe || (part != nil && part.Force) {
		return p.cl.MaxShare(r.Partition)
	}
	return 1
}

// Select implements job.Plugin.
func (p *Plugin) Select(r *job.Request, cand *roaring.Bitmap, mode job.Mode, now int64) (*job.Allocation, error) {
	all := p.buf(bufAll)
	if cand != nil && !cand.IsEmpty() {
		if int(cand.Maximum()) < p.cl.N {
			cand.WriteDenseTo(all)
		} else {
			all.Copy(bitset.FromRoaring(cand, p.cl.N))
		}
	}
	if err := p.screen(r, all); err != nil {
		return nil, err
	}
	switch mode {
	case job.TestOnly:
		return p.testOnly(r, all)
	case job.WillRun, job.Plan:
		if mode == job.WillRun {
			r = p.startData(r, all)
		}
		if r.Preempts(p.cfg.Preempt) {
			return p.willRunAll(r, all, now)
		}
		start, out, total, err := p.willRunMemo(r, all, now)
		if err != nil {
			return nil, err
		}
		return p.allocation(r, out, total, start, nil), nil
	}
	a, err := p.runNowTiers(r, p.usableOf(all), now)
	if err == nil {
		return a, nil
	}
	if _, _, terr := p.testOnlyFit(r, all); terr != nil {
		return nil, terr
	}
	return nil, err
}

// WillRunDense implements job.DenseWillRun: Select's Plan answer on the
// dense candidates cand (left unchanged), its start and nodes only.
// The nodes belong to the plugin: read them before its next call.
func (p *Plugin) WillRunDense(r *job.Request, cand bitset.Set, now int64) (int64, bitset.Set, error) {
	all := p.buf(bufAll)
	all.Copy(cand)
	if err := p.screen(r, all); err != nil {
		return 0, nil, err
	}
	if r.Preempts(p.cfg.Preempt) {
		a, err := p.willRunAll(r, all, now)
		if err != nil {
			return 0, nil, err
		}
		out := p.buf(bufOut)
		out.Fill(a.Nodes)
		return a.Start, out, nil
	}
	start, out, _, err := p.willRunMemo(r, all, now)
	return start, out, err
}

// screen is Select's checks of every mode: all loses the excluded nodes;
// required nodes outside it, or more CPUs than the partition has, fail.
func (p *Plugin) screen(r *job.Request, all bitset.Set) error {
	if r.ExcludedSet != nil && !r.ExcludedSet.IsEmpty() {
		all.AndNot(bitset.FromRoaring(r.ExcludedSet, p.cl.N))
	}
	if r.RequiredSet != nil && !r.RequiredSet.IsEmpty() && !bitset.FromRoaring(r.RequiredSet, p.cl.N).SubsetOf(all) {
		return &job.Unsatisfied{Never: true, Reason: "required nodes are not all candidates"}
	}
	if r.NTasksPerCore <= 0 {
		return nil
	}
	if part := p.cl.Partitions[r.Partition]; part != nil {
		// job_mgr.c refuses more CPUs than the partition has
		// (PartitionConfig) before ntasks-per-core lets linear count
		// more CPUs per node than a node has.
		total := 0
		it := part.Nodes.Iterator()
		for it.HasNext() {
			if id := it.Next(); int(id) < p.cl.N {
				total += p.cl.CPUs[id]
			}
		}
		if r.MinCPUs(max(r.MinNodes, 1)) > total {
			return &job.Unsatisfied{Never: true, Reason: "more CPUs than the partition has"}
		}
	}
	return nil
}

// willRunAll is Select's will-run mode on the screened candidates all
// (changed) with preemption.
func (p *Plugin) willRunAll(r *job.Request, all bitset.Set, now int64) (*job.Allocation, error) {
	usable := p.usableOf(all)
	a, err := p.willRun(r, usable, now)
	if err != nil {
		if _, _, terr := p.testOnlyFit(r, all); terr != nil {
			return nil, terr
		}
	}
	return a, err
}

// willRunFitAll is Select's will-run mode on the screened candidates all
// (changed) without preemption: the nodes (scratch), their CPUs and the
// end of the release that lets the job run (fitsNow if it runs now). A job
// that cannot run even after every release gets _test_only's answer when
// that fails too.
func (p *Plugin) willRunFitAll(r *job.Request, all bitset.Set) (bitset.Set, int, int64, error) {
	usable := p.usableOf(all)
	out, total, end, err := p.willRunFit(r, usable)
	if err != nil {
		if _, _, terr := p.testOnlyFit(r, all); terr != nil {
			return nil, 0, 0, terr
		}
	}
	return out, total, end, err
}

// startData is what job_start_data (sbatch --test-only) asks will-run
// about: r with its implicit max_nodes = ntasks (job_mgr.c), on its node
// list only (all narrowed) when it has one. Backfill's Plan asks neither.
func (p *Plugin) startData(r *job.Request, all bitset.Set) *job.Request {
	if r.MaxNodes == 0 && r.NTasks > 0 {
		wr := *r
		wr.MaxNodes, wr.ReqNodes = r.NTasks, r.NTasks
		r = &wr
	}
	if r.RequiredSet != nil && !r.RequiredSet.IsEmpty() {
		all.And(bitset.FromRoaring(r.RequiredSet, p.cl.N))
	}
	return r
}

// usableOf is the usable ones of the candidates all.
func (p *Plugin) usableOf(all bitset.Set) bitset.Set {
	usable := p.buf(bufUsable)
	usable.Copy(all)
	usable.And(p.usable)
	return usable
}

// testOnly is _test_only (reference §1.5): capacity only, memory ignored.
func (p *Plugin) testOnly(r *job.Request, cand bitset.Set) (*job.Allocation, error) {
	out, total, err := p.testOnlyFit(r, cand)
	if err != nil {
		return nil, err
	}
	return p.allocation(r, out, total, 0, nil), nil
}

// testOnlyFit is testOnly's nodes (in scratch) and their CPUs, for the
// callers that only ask whether the job could ever run.
func (p *Plugin) testOnlyFit(r *job.Request, cand bitset.Set) (bitset.Set, int, error) {
	minN, maxN, reqN := r.NodeCounts(cand.Count())
	f := p.buf(bufFilter)
	if p.countBitmap(p.st, r, cand, f, noShareLimit, noShareLimit, job.TestOnly) < minN {
		return nil, 0, &job.Unsatisfied{Never: true, Reason: fmt.Sprintf("fewer than %d nodes could ever take the job", minN)}
	}
	out := p.buf(bufOut)
	total, ok := p.jobTest(new(p.wantOf(r, minN)), f, out, minN, maxN, reqN)
	if !ok {
		return nil, 0, &job.Unsatisfied{Never: true, Reason: "no set of candidate nodes is large enough"}
	}
	return out, total, nil
}

// runNowTiers is node_scheduler's weight loop for linear (reference §1.7):
// add node weight tiers lightest first and try a run-now test whenever the
// accumulated nodes could hold the job; preemption only on the last tier.
func (p *Plugin) runNowTiers(r *job.Request, usable bitset.Set, now int64) (*job.Allocation, error) {
	weights := p.tiers(usable)
	minN, _, reqN := r.NodeCounts(usable.Count())
	acc := p.buf(bufAcc)
	if r.RequiredSet != nil {
		acc.Or(bitset.FromRoaring(r.RequiredSet, p.cl.N))
		acc.And(usable)
	}
	var victims []*record
	if r.Preempts(p.cfg.Preempt) {
		victims = p.preemptCandidates(r)
	}
	for i, tier := range weights {
		t := p.scratch(tier)
		t.And(usable)
		if victims == nil && p.maxShare(r) <= 1 {
			// node_scheduler.c counts a job that does not share only
			// the idle nodes of each weight when deciding whether it
			// has enough to try (a node whose jobs are suspended is
			// idle there).
			t.And(p.st.idle)
		}
		acc.Or(t)
		last := i == len(weights)-1
		n := acc.Count()
		if n < minN || (n < reqN && !last) {
			continue
		}
		var pv []*record
		if last {
			pv = victims
		}
		if a, ok := p.runNow(r, acc, now, pv); ok {
			return a, nil
		}
	}
	return nil, &job.Unsatisfied{Reason: "not enough free nodes now"}
}

// tiers returns the weight tiers holding nodes of s, lightest first.
func (p *Plugin) tiers(s bitset.Set) []bitset.Set {
	var out []bitset.Set
	for _, t := range p.tierSet {
		if t.Intersects(s) {
			out = append(out, t)
		}
	}
	return out
}

// preemptCandidates are the running jobs r may preempt, lowest priority
// first (ties: lower id).
func (p *Plugin) preemptCandidates(r *job.Request) []*record {
	if r.PreemptCandidates != nil {
		var out []*record
		for _, id := range r.PreemptCandidates {
			if j, ok := p.st.jobs[id]; ok && id != r.ID {
				out = append(out, j)
			}
		}
		return out
	}
	var out []*record
	for _, j := range p.st.sortedJobs() {
		if j.preemptable && j.priority < r.Priority && j.id != r.ID {
			out = append(out, j)
		}
	}
	slices.SortStableFunc(out, func(a, b *record) int { return cmpU32(a.priority, b.priority) })
	return out
}

// runNow is _run_now (reference §1.5).
func (p *Plugin) runNow(r *job.Request, cand bitset.Set, now int64, victims []*record) (*job.Allocation, bool) {
	maxShare := p.maxShare(r)
	minN, maxN, reqN := r.NodeCounts(cand.Count())
	w := new(p.wantOf(r, minN))
	f := p.buf(bufFilter)
	out := p.buf(bufOut)
	prev := -1
	for maxRun := 0; maxRun < maxShare; maxRun++ {
		lastIter := maxRun == maxShare-1
		for sus := 0; sus < 5; sus += 4 {
			if lastIter {
				sus = noShareLimit
			}
			j := p.countBitmap(p.st, r, cand, f, maxRun, maxRun+sus, job.RunNow)
			if j == prev || j < minN {
				continue
			}
			prev = j
			if maxRun > 0 {
				if mate := p.findJobMate(r, w, f, reqN); mate != nil {
					out.Clear()
					for _, id := range mate.nodes {
						out.Add(id)
					}
					return p.allocation(r, out, mate.totalCPUs, now, nil), true
				}
			}
			if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
				return p.allocation(r, out, total, now, nil), true
			}
		}
	}
	if len(victims) == 0 {
		return nil, false
	}
	if r.PreemptAll {
		exp := p.st.dup()
		for _, v := range victims {
			exp.remove(v, r.VictimsFreeMemory(p.cfg.PreemptMode))
		}
		if p.countBitmap(exp, r, cand, f, maxShare-1, noShareLimit, job.RunNow) < minN {
			return nil, false
		}
		total, ok := p.jobTest(w, f, out, minN, maxN, reqN)
		if !ok {
			return nil, false
		}
		return p.allocation(r, out, total, now, victimsOn(victims, out)), true
	}
	order := slices.Clone(victims)
	for pass := 0; pass < 2; pass++ {
		exp := p.st.dup()
		found := -1
		var total int
		for k, v := range order {
			exp.remove(v, r.VictimsFreeMemory(p.cfg.PreemptMode))
			if p.countBitmap(exp, r, cand, f, maxShare-1, noShareLimit, job.RunNow) < minN {
				continue
			}
			if t, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
				found, total = k, t
				break
			}
		}
		if found < 0 {
			return nil, false
		}
		if pass == 1 || found == 0 {
			return p.allocation(r, out, total, now, victimsOn(victims, out)), true
		}
		// Redo once with the job that enabled success first: it tends to
		// need fewer victims.
		order = append([]*record{order[found]}, append(slices.Clone(order[:found]), order[found+1:]...)...)
	}
	return nil, false
}

// victimsOn are the ids of the victims holding a node of out.
func victimsOn(victims []*record, out bitset.Set) []uint32 {
	var ids []uint32
	for _, v := range victims {
		for _, id := range v.nodes {
			if out.Has(id) {
				ids = append(ids, v.id)
				break
			}
		}
	}
	return ids
}

// findJobMate is _find_job_mate: a running job of the same size and shape
// whose nodes r can share exactly.
func (p *Plugin) findJobMate(r *job.Request, w *want, cand bitset.Set, reqN int) *record {
	for _, j := range p.st.sortedJobs() {
		if j.suspended || len(j.nodes) != reqN || j.totalCPUs < w.minCPUs || j.contiguous != r.Contiguous {
			continue
		}
		ok := true
		for _, id := range j.nodes {
			if !cand.Has(id) {
				ok = false
				break
			}
		}
		if ok && w.required != nil {
			w.required.Each(func(id uint32) bool {
				if _, found := slices.BinarySearch(j.nodes, id); !found {
					ok = false
				}
				return ok
			})
		}
		if ok {
			return j
		}
	}
	return nil
}

// willRunPlain is _will_run_test (reference §1.5) as Slurm runs it: copy the state, release
// the running jobs one at a time in end order and recount the candidates
// after each. willRun gives the same answers faster; this is its
// reference, and the path taken with preemption.
func (p *Plugin) willRunPlain(r *job.Request, cand bitset.Set, now int64) (*job.Allocation, error) {
	maxRun := max(p.maxShare(r)-1, 1)
	minN, maxN, reqN := r.NodeCounts(cand.Count())
	w := new(p.wantOf(r, minN))
	f := p.buf(bufFilter)
	out := p.buf(bufOut)
	if p.countBitmap(p.st, r, cand, f, maxRun, noShareLimit, job.RunNow) >= minN {
		if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
			return p.allocation(r, out, total, now, nil), nil
		}
	}
	exp := p.st.dup()
	var pre []*record
	if r.Preempts(p.cfg.Preempt) {
		pre = p.preemptCandidates(r)
		for _, v := range pre {
			exp.remove(v, r.VictimsFreeMemory(p.cfg.PreemptMode))
		}
		if len(pre) > 0 && p.countBitmap(exp, r, cand, f, maxRun, noShareLimit, job.RunNow) >= minN {
			if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
				return p.allocation(r, out, total, now, victimsOn(pre, out)), nil
			}
		}
	}
	var running []*record
	for _, j := range exp.sortedJobs() {
		if !slices.Contains(pre, j) {
			running = append(running, j)
		}
	}
	slices.SortStableFunc(running, func(a, b *record) int {
		switch {
		case a.end < b.end:
			return -1
		case a.end > b.end:
			return 1
		}
		return 0
	})
	for _, j := range running {
		exp.remove(j, true)
		if p.countBitmap(exp, r, cand, f, maxRun, noShareLimit, job.RunNow) < minN {
			continue
		}
		if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
			start := j.end
			if start <= now {
				start = now + 1
			}
			return p.allocation(r, out, total, start, nil), nil
		}
	}
	return nil, &job.Unsatisfied{Reason: "does not fit even after every running job ends"}
}

// allocation builds the answer for the nodes in out.
func (p *Plugin) allocation(r *job.Request, out bitset.Set, total int, start int64, pre []uint32) *job.Allocation {
	a := &job.Allocation{Nodes: out.Roaring(), TotalCPUs: total, Start: start, Preempted: pre,
		PerNode: make([]job.NodeAlloc, 0, out.Count())}
	out.Each(func(id uint32) bool {
		a.PerNode = append(a.PerNode, job.NodeAlloc{ID: id, CPUs: p.cl.CPUs[id], MemoryMB: p.allocMem(r, int(id)), GPUs: p.cl.GPUCount(id, r.GPUType)})
		return true
	})
	return a
}

// endOf is when a job started at start with limit ends.
func endOf(start int64, limit time.Duration) int64 {
	if limit <= 0 {
		return start + unlimitedRun
	}
	s := int64(limit / time.Second)
	if start > math.MaxInt64-s {
		return math.MaxInt64
	}
	return start + s
}
