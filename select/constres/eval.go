package constres

import (
	"slices"

	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// pick is the nodes chosen for a job with the CPUs and GPUs to take on each.
type pick struct {
	nodes []uint32 // increasing
	cpus  []int
	gpus  []int
}

// cset is one run of consecutive eligible nodes of one weight.
type cset struct {
	start, end int
	nodes      int
	cpus       int
	gpus       int
	weight     uint64
	hasWeight  bool
	req        int // first required id inside, or -1
}

// enoughNodes is Slurm's _enough_nodes.
func enoughNodes(avail, rem, min, req int) bool {
	needed := rem
	if req > min {
		needed = rem + min - req
	}
	return avail >= needed
}

// selectNodes is _select_nodes and eval_nodes' default path (reference
// §2.4) over the cores in free (nil: every core) with allocations in st
// (nil: ignored). Its steps: eligibility, the one-node path, then
// common_topo_choose_nodes: the consecutive-runs evaluation, and when it
// fails, the same evaluation again with the nodes of fewest resources taken
// out one at a time (retry).
func (p *Plugin) selectNodes(st *state, r *job.Request, cand bitset.Set, free bitset.Set) (*pick, bool) {
	var s selection
	if !s.eligibility(p, st, r, cand, free) {
		return nil, false
	}
	if s.maxN == 1 {
		return s.oneNode()
	}
	if pk, ok := s.consec(); ok {
		return pk, true
	}
	return s.retry()
}

// consec is eval_nodes_consec over the eligible nodes: the required nodes,
// the runs of eligible nodes, and, while nodes are still needed, the best
// run and the nodes taken from it.
func (s *selection) consec() (*pick, bool) {
	r := s.r
	s.start()
	if s.required != nil {
		s.takeRequired()
		if s.left.met() {
			return s.p.picked(r, s.chosen), true
		}
		if s.left.maxNodes <= 0 {
			return nil, false
		}
	}
	sets := s.runs()
	for s.left.maxNodes > 0 {
		best, suff := s.bestRun(sets)
		if best == -1 || (r.Contiguous && !suff) {
			break // none left, or no hole large enough
		}
		b := &sets[best]
		s.takeFromRun(b)
		if s.left.met() {
			break
		}
		b.nodes, b.cpus, b.gpus = 0, 0, 0
	}
	if !(s.left.cpus <= 0 && enoughNodes(0, s.left.nodes, s.minN, s.reqN) && s.left.gpus <= 0) {
		return nil, false
	}
	return s.p.picked(r, s.chosen), true
}

// retry is common_topo_choose_nodes after a failed evaluation (retryLoop),
// skipped when the largest maxN free CPU counts cannot cover the job: then
// no subset of the nodes can either, and the loop, up to one evaluation per
// node, would end in the same failure.
func (s *selection) retry() (*pick, bool) {
	var cpus []int
	s.eligible.Each(func(id uint32) bool {
		cpus = append(cpus, s.p.avail[id])
		return true
	})
	slices.SortFunc(cpus, func(a, b int) int { return b - a })
	top := 0
	for _, c := range cpus[:min(s.maxN, len(cpus))] {
		top += c
	}
	if top < s.minCPUs {
		return nil, false
	}
	return s.retryLoop()
}

// retryLoop is common_topo_choose_nodes' answer to a failed evaluation, "to
// avoid a possible knapsack problem": it takes the eligible nodes that are
// not required out one at a time, fewest resources first (avail_res_prod:
// free CPUs, times free GPUs for a job that asks for GPUs; lowest index
// among equals, as glibc's merge-sort qsort keeps them), and evaluates
// again, until an evaluation succeeds, no more than the job's minimum node
// count is left, or the last such node would be taken out. So a few
// partly used nodes ahead of idle ones no longer sink a multi-node job
// that needs whole nodes.
func (s *selection) retryLoop() (*pick, bool) {
	p, r := s.p, s.r
	var ids []uint32
	left := 0
	s.eligible.Each(func(id uint32) bool {
		left++
		if s.required == nil || !s.required.Has(id) {
			ids = append(ids, id)
		}
		return true
	})
	gpus := r.GPUsPerJob > 0 || r.GPUsPerNode > 0
	prod := func(id uint32) int {
		if gpus {
			return p.avail[id] * p.availGPU[id]
		}
		return p.avail[id]
	}
	slices.SortStableFunc(ids, func(a, b uint32) int { return prod(a) - prod(b) })
	for k, id := range ids {
		if left <= s.minN || k == len(ids)-1 {
			break
		}
		s.eligible.Del(id)
		left--
		if pk, ok := s.consec(); ok {
			return pk, true
		}
	}
	return nil, false
}

// need is what a job still needs while nodes are taken for it: the
// counters eval_nodes keeps.
type need struct {
	nodes    int // rem_nodes
	minNodes int // min_rem_nodes: nodes still needed to reach the minimum
	maxNodes int // nodes still allowed
	cpus     int // rem_cpus
	maxCPUs  int // rem_max_cpus (eval_nodes_get_rem_max_cpus without max_cpus or GRES CPUs)
	gpus     int // per-job GPUs still wanted
}

// met reports whether the job needs nothing more.
func (n *need) met() bool { return n.nodes <= 0 && n.cpus <= 0 && n.gpus <= 0 }

// selection is one selectNodes call: the job, the nodes it may use and
// what it has taken so far.
type selection struct {
	p        *Plugin
	r        *job.Request
	eligible bitset.Set
	required bitset.Set // nil when the job names no required nodes
	chosen   bitset.Set

	minN, maxN, reqN int  // node counts of the request
	minCPUs          int  // CPUs of the whole job
	minPer           int  // fewest CPUs the job takes on a node
	whole            bool // the job takes whole nodes
	left             need
}

// eligibility fills avail and availGPU for the candidates, keeps those that
// can run the job, and reports whether the job's node counts and required
// nodes can be met by them at all.
func (s *selection) eligibility(p *Plugin, st *state, r *job.Request, cand bitset.Set, free bitset.Set) bool {
	s.p, s.r = p, r
	cpt := r.CPUsPerTaskOr1()
	s.minN, s.maxN, s.reqN = r.NodeCounts(cand.Count())
	s.eligible = p.scratchSet(&p.eligible)
	n := 0
	whole := p.nodeReqOf(r) == crReserved
	cand.Each(func(id uint32) bool {
		c, g := p.canRun(st, r, id, free, whole)
		p.avail[id], p.availGPU[id] = c, g
		if c > 0 {
			s.eligible.Add(id)
			n++
		}
		return true
	})
	if r.RequiredSet != nil && !r.RequiredSet.IsEmpty() {
		s.required = bitset.FromRoaring(r.RequiredSet, p.cl.N)
		if !s.required.SubsetOf(s.eligible) {
			return false
		}
	}
	if r.NTasks > 0 && r.NTasksPerNode > 0 {
		s.minN = max(s.minN, (r.NTasks+r.NTasksPerNode-1)/r.NTasksPerNode)
	}
	if n < s.minN || s.maxN < s.minN {
		return false
	}
	s.minPer = cpt
	if r.NTasksPerNode > 0 {
		s.minPer = r.NTasksPerNode * cpt
	}
	s.minPer = max(s.minPer, r.MinCPUsPerNode)
	s.whole = whole
	s.minCPUs = r.MinCPUs(s.minN)
	return true
}

// oneNode is _get_one_res: lowest weight, then lowest index; the first node
// that fits wins. Required nodes are the only candidates.
func (s *selection) oneNode() (*pick, bool) {
	p, r := s.p, s.r
	var ids []uint32
	s.eligible.Each(func(id uint32) bool {
		if s.required == nil || s.required.Has(id) {
			ids = append(ids, id)
		}
		return true
	})
	slices.SortStableFunc(ids, func(a, b uint32) int {
		wa, wb := p.schedWeight(r, a), p.schedWeight(r, b)
		switch {
		case wa < wb:
			return -1
		case wa > wb:
			return 1
		}
		return 0
	})
	for _, id := range ids {
		if p.avail[id] >= s.minCPUs && p.availGPU[id] >= r.GPUsPerJob {
			c := p.avail[id]
			if !s.whole {
				c = max(s.minCPUs, s.minPer)
			}
			return &pick{nodes: []uint32{id}, cpus: []int{c}, gpus: []int{p.gpusToUse(r, id, r.GPUsPerJob)}}, true
		}
	}
	return nil, false
}

// start sets what the job needs before any node is taken and clears the
// CPUs chosen per node.
func (s *selection) start() {
	r := s.r
	s.left = need{nodes: max(s.minN, s.reqN), minNodes: s.minN, maxNodes: s.maxN,
		cpus: s.minCPUs, maxCPUs: s.minCPUs, gpus: r.GPUsPerJob}
	if r.GPUsPerJob > 0 {
		s.left.nodes = min(s.minN, s.reqN)
	}
	s.chosen = s.p.scratchSet(&s.p.chosen)
	clear(s.p.use)
}

// take adds node id to the job with the CPUs and GPUs it uses there.
func (s *selection) take(id uint32) {
	p, r := s.p, s.r
	c := p.avail[id]
	if !s.whole {
		// eval_nodes_cpus_to_use: keep a core for each node still
		// needed to reach the minimum.
		resv := max(s.left.minNodes-1, 0) * p.coreCPUs(r, id)
		if p.cfg.Units == UnitSocket {
			resv *= p.cl.CoresPerSocket[id] // a socket per node
		}
		rm := s.left.maxCPUs - resv
		if c > rm {
			c = max(rm, s.minPer)
		}
	}
	g := p.gpusToUse(r, id, s.left.gpus)
	s.chosen.Add(id)
	p.use[id] = c
	p.gpuUse[id] = g
	s.left.cpus -= c
	s.left.maxCPUs -= c
	s.left.nodes--
	s.left.minNodes--
	s.left.maxNodes--
	if r.GPUsPerJob > 0 {
		s.left.gpus -= g
	}
}

// takeRequired takes the required nodes in id order while nodes are still
// allowed.
func (s *selection) takeRequired() {
	s.required.Each(func(id uint32) bool {
		if s.left.maxNodes <= 0 {
			return false
		}
		s.take(id)
		return true
	})
}

// runs lists the runs of eligible nodes as eval_nodes_consec builds them:
// split at ineligible nodes and, unless contiguous, where sched_weight
// changes; required nodes mark their run but are not counted. A run opened
// by a weight change starts with weight 0, as Slurm's zeroed record does.
func (s *selection) runs() []cset {
	p, r := s.p, s.r
	sets := p.sets[:0]
	cur := cset{req: -1}
	last := -2
	s.eligible.Each(func(u uint32) bool {
		id := int(u)
		if last >= 0 && id != last+1 {
			if cur.nodes == 0 {
				cur.req, cur.hasWeight = -1, false
			} else {
				cur.end = last
				sets = append(sets, cur)
				cur = cset{req: -1}
			}
		}
		last = id
		w := p.schedWeight(r, u)
		if !r.Contiguous && cur.hasWeight && w != cur.weight {
			if cur.nodes == 0 {
				cur.req = -1
			} else {
				cur.end = id - 1
				sets = append(sets, cur)
				cur = cset{req: -1, hasWeight: true}
			}
		}
		if cur.nodes == 0 {
			cur.start = id
		}
		if s.required != nil && s.required.Has(u) {
			if cur.req == -1 {
				cur.req = id
			}
			return true
		}
		cur.nodes++
		cur.cpus += p.avail[id]
		cur.gpus += p.availGPU[id]
		cur.weight, cur.hasWeight = w, true
		return true
	})
	if cur.nodes > 0 {
		cur.end = last
		sets = append(sets, cur)
	}
	p.sets = sets
	return sets
}

// bestRun is the index of the run to take nodes from next (-1 for none)
// and whether it covers all the job still needs.
func (s *selection) bestRun(sets []cset) (int, bool) {
	r := s.r
	best := -1
	bestSuff := false
	for i := range sets {
		c := &sets[i]
		if c.nodes == 0 {
			continue
		}
		if r.Contiguous && s.required != nil && c.req == -1 {
			continue
		}
		suff := c.cpus >= s.left.cpus && enoughNodes(c.nodes, s.left.nodes, s.minN, s.reqN) && c.gpus >= s.left.gpus
		// The predicate of eval_nodes_consec, literally: an insufficient
		// but larger run can displace a sufficient best of equal weight.
		newBest := false
		if best == -1 {
			newBest = true
		} else {
			b := &sets[best]
			switch {
			case b.req == -1 && c.req != -1, c.weight < b.weight:
				newBest = true
			case c.weight == b.weight && ((suff && !bestSuff) || (suff && c.cpus < b.cpus) || (!suff && c.cpus > b.cpus)):
				newBest = true
			case !bestSuff && r.Contiguous && suff:
				newBest = true
			}
		}
		if newBest {
			best, bestSuff = i, suff
		}
		if r.Contiguous && s.required != nil && otherRequired(sets[i+1:]) {
			// All required nodes must sit in one run.
			return -1, false
		}
	}
	return best, bestSuff
}

// takeFromRun takes nodes of run b: outward from its first required node,
// or, with at most one node left, the smallest that covers the rest, or
// else from its start, until the job needs nothing more.
func (s *selection) takeFromRun(b *cset) {
	switch {
	case b.req != -1:
		for id := b.req; id <= b.end && s.walk(id); id++ {
		}
		for id := b.req - 1; id >= b.start && s.walk(id); id-- {
		}
	case s.left.nodes <= 1 && s.takeSmallest(b):
		// The one node still needed came from this run.
	default:
		s.takeInOrder(b)
	}
}

// walk takes node id if it is eligible and not yet taken, and reports
// whether the walk goes on.
func (s *selection) walk(id int) bool {
	if s.left.maxNodes <= 0 || s.left.met() {
		return false
	}
	if u := uint32(id); !s.chosen.Has(u) && s.eligible.Has(u) {
		s.take(u)
	}
	return true
}

// takeSmallest is the case of at most one node left: the smallest node of
// b that covers what remains (stopping at an exact fit) is the only one
// taken from the run. It reports false when no node covers it.
func (s *selection) takeSmallest(b *cset) bool {
	p := s.p
	bi, bc := -1, 0
	for id := b.start; id <= b.end; id++ {
		u := uint32(id)
		if s.chosen.Has(u) || !s.eligible.Has(u) || p.avail[id] < s.left.cpus || p.availGPU[id] < s.left.gpus {
			continue
		}
		if bi == -1 || p.avail[id] < bc {
			bi, bc = id, p.avail[id]
			if bc == s.left.cpus {
				break
			}
		}
	}
	if bi < 0 {
		return false
	}
	if !(s.left.maxNodes == 1 && p.avail[bi] < s.left.cpus) {
		s.take(uint32(bi))
	}
	return true
}

// takeInOrder takes the eligible nodes of b from its start until the job
// needs nothing more; the last allowed node must cover the rest.
func (s *selection) takeInOrder(b *cset) {
	p := s.p
	for id := b.start; id <= b.end; id++ {
		u := uint32(id)
		if s.left.maxNodes <= 0 || s.left.met() {
			break
		}
		if s.chosen.Has(u) || !s.eligible.Has(u) {
			continue
		}
		if s.left.maxNodes == 1 && p.avail[id] < s.left.cpus {
			continue
		}
		s.take(u)
	}
}

// otherRequired reports whether any of sets holds a required node.
func otherRequired(sets []cset) bool {
	for i := range sets {
		if sets[i].req != -1 {
			return true
		}
	}
	return false
}

// picked lists the chosen nodes with the CPUs and GPUs taken on each.
func (p *Plugin) picked(r *job.Request, chosen bitset.Set) *pick {
	n := chosen.Count()
	pk := &pick{nodes: make([]uint32, 0, n), cpus: make([]int, 0, n), gpus: make([]int, 0, n)}
	chosen.Each(func(id uint32) bool {
		pk.nodes = append(pk.nodes, id)
		pk.cpus = append(pk.cpus, p.use[id])
		pk.gpus = append(pk.gpus, p.gpuUse[id])
		return true
	})
	if r.GPUsPerJob > 0 && p.nodeReqOf(r) != crReserved {
		// gres_select_filter.c _set_job_bits1: required nodes first, then
		// the others in node order, each node takes what is left but one
		// GPU per later node, and at least one GPU even when that
		// overshoots the job's count.
		order := make([]int, 0, len(pk.nodes))
		for pass := 0; pass < 2; pass++ {
			for i, id := range pk.nodes {
				req := r.RequiredSet != nil && r.RequiredSet.Contains(id)
				if req == (pass == 0) {
					order = append(order, i)
				}
			}
		}
		total := 0
		for k, i := range order {
			later := len(order) - k - 1
			g := max(min(r.GPUsPerJob-total-later, p.availGPU[pk.nodes[i]]), 1)
			pk.gpus[i] = g
			total += g
		}
	}
	return pk
}

// gpusToUse is the GPUs the job takes on node id with rem per-job GPUs
// still wanted.
func (p *Plugin) gpusToUse(r *job.Request, id uint32, rem int) int {
	switch {
	case p.nodeReqOf(r) == crReserved:
		return p.availGPU[id]
	case r.GPUsPerNode > 0:
		return r.GPUsPerNode
	case r.GPUsPerJob > 0:
		return min(p.availGPU[id], max(rem, 0))
	}
	return 0
}

// schedWeight is node id's sched_weight for the job (reference §2.4): the
// admin weight, then a node still completing after the others
// (Request.Completing), then, for jobs that ask for GPUs, more free GPUs
// first (low byte 0xff - near GPUs). canRun must have filled availGPU.
func (p *Plugin) schedWeight(r *job.Request, id uint32) uint64 {
	near := 0
	if r.GPUsPerNode > 0 || r.GPUsPerJob > 0 {
		near = p.availGPU[id]
		// _foreach_remove_unusable caps the count at what the job can
		// use on one node: its per-node count, else its per-job count.
		if p.nodeReqOf(r) != crReserved {
			if r.GPUsPerNode > 0 {
				near = min(near, r.GPUsPerNode)
			} else {
				near = min(near, r.GPUsPerJob)
			}
		}
		near = min(near, 0xff)
	}
	w := uint64(p.cl.Weight[id])<<9 | uint64(0xff-near)
	if r.Completing != nil && r.Completing.Contains(id) {
		w |= 0x100
	}
	return w
}
