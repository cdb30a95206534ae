package constres

import (
	"slices"

	"github.com/nodesift/sift/select/internal/bits"
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
// (nil: ignored).
func (p *Plugin) selectNodes(st *state, r *job.Request, cand bits.Set, free bits.Set) (*pick, bool) {
	cpt := r.CPUsPerTaskOr1()
	minN, maxN, reqN := r.NodeCounts(cand.Count())
	eligible := bits.New(p.cl.N)
	n := 0
	cand.Each(func(id uint32) bool {
		c, g := p.canRun(st, r, id, free)
		p.avail[id], p.availGPU[id] = c, g
		if c > 0 {
			eligible.Add(id)
			n++
		}
		return true
	})
	var required bits.Set
	if r.RequiredSet != nil && !r.RequiredSet.IsEmpty() {
		required = bits.FromRoaring(r.RequiredSet, p.cl.N)
		if !required.SubsetOf(eligible) {
			return nil, false
		}
	}
	if r.NTasks > 0 && r.NTasksPerNode > 0 {
		minN = max(minN, (r.NTasks+r.NTasksPerNode-1)/r.NTasksPerNode)
	}
	if n < minN || maxN < minN {
		return nil, false
	}
	minPer := cpt
	if r.NTasksPerNode > 0 {
		minPer = r.NTasksPerNode * cpt
	}
	minPer = max(minPer, r.MinCPUsPerNode)
	whole := p.nodeReqOf(r) == crReserved
	minCPUs := r.MinCPUs(minN)

	if maxN == 1 {
		// _get_one_res: lowest weight, then lowest index; the first node
		// that fits wins. Required nodes are the only candidates.
		var ids []uint32
		eligible.Each(func(id uint32) bool {
			if required == nil || required.Has(id) {
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
			if p.avail[id] >= minCPUs && p.availGPU[id] >= r.GPUsPerJob {
				c := p.avail[id]
				if !whole {
					c = max(minCPUs, minPer)
				}
				return &pick{nodes: []uint32{id}, cpus: []int{c}, gpus: []int{p.gpusToUse(r, id, r.GPUsPerJob)}}, true
			}
		}
		return nil, false
	}

	remNodes := max(minN, reqN)
	if r.GPUsPerJob > 0 {
		remNodes = min(minN, reqN)
	}
	minRem := minN
	remCPUs := minCPUs
	remMax := minCPUs // eval_nodes_get_rem_max_cpus without max_cpus or GRES CPUs
	remGPUs := r.GPUsPerJob
	chosen := bits.New(p.cl.N)
	for i := range p.use {
		p.use[i] = 0
	}
	gpuUse := map[uint32]int{}
	take := func(id uint32) {
		c := p.avail[id]
		if !whole {
			// eval_nodes_cpus_to_use: keep a core for each node still
			// needed to reach the minimum.
			resv := max(minRem-1, 0) * p.coreCPUs(r, id)
			if p.cfg.Units == UnitSocket {
				resv *= p.cl.CoresPerSocket[id] // a socket per node
			}
			rm := remMax - resv
			if c > rm {
				c = max(rm, minPer)
			}
		}
		g := p.gpusToUse(r, id, remGPUs)
		chosen.Add(id)
		p.use[id] = c
		gpuUse[id] = g
		remCPUs -= c
		remMax -= c
		remNodes--
		minRem--
		maxN--
		if r.GPUsPerJob > 0 {
			remGPUs -= g
		}
	}
	done := func() bool { return remNodes <= 0 && remCPUs <= 0 && remGPUs <= 0 }
	if required != nil {
		required.Each(func(id uint32) bool {
			if maxN <= 0 {
				return false
			}
			take(id)
			return true
		})
		if done() {
			return p.picked(r, chosen, gpuUse), true
		}
		if maxN <= 0 {
			return nil, false
		}
	}

	// Runs of eligible nodes as eval_nodes_consec builds them: split at
	// ineligible nodes and, unless contiguous, where sched_weight changes;
	// required nodes mark their run but are not counted. A run opened by a
	// weight change starts with weight 0, as Slurm's zeroed record does.
	sets := p.sets[:0]
	cur := cset{req: -1}
	last := -2
	eligible.Each(func(u uint32) bool {
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
		if required != nil && required.Has(u) {
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

	for maxN > 0 {
		best := -1
		bestSuff := false
		for i := range sets {
			s := &sets[i]
			if s.nodes == 0 {
				continue
			}
			if r.Contiguous && required != nil && s.req == -1 {
				continue
			}
			suff := s.cpus >= remCPUs && enoughNodes(s.nodes, remNodes, minN, reqN) && s.gpus >= remGPUs
			// The predicate of eval_nodes_consec, literally: an insufficient
			// but larger run can displace a sufficient best of equal weight.
			newBest := false
			if best == -1 {
				newBest = true
			} else {
				b := &sets[best]
				switch {
				case b.req == -1 && s.req != -1, s.weight < b.weight:
					newBest = true
				case s.weight == b.weight && ((suff && !bestSuff) || (suff && s.cpus < b.cpus) || (!suff && s.cpus > b.cpus)):
					newBest = true
				case !bestSuff && r.Contiguous && suff:
					newBest = true
				}
			}
			if newBest {
				best, bestSuff = i, suff
			}
			if r.Contiguous && required != nil && otherRequired(sets[i+1:]) {
				// All required nodes must sit in one run.
				best = -1
				break
			}
		}
		if best == -1 {
			break
		}
		b := &sets[best]
		if r.Contiguous && !bestSuff {
			break // no hole large enough
		}
		walk := func(id int) bool {
			if maxN <= 0 || done() {
				return false
			}
			if !chosen.Has(uint32(id)) && eligible.Has(uint32(id)) {
				take(uint32(id))
			}
			return true
		}
		switch {
		case b.req != -1:
			for id := b.req; id <= b.end && walk(id); id++ {
			}
			for id := b.req - 1; id >= b.start && walk(id); id-- {
			}
		case remNodes <= 1:
			// At most one node left: the smallest that covers what remains
			// (stopping at an exact fit) is the only one taken from the run.
			bi, bc := -1, 0
			for id := b.start; id <= b.end; id++ {
				u := uint32(id)
				if chosen.Has(u) || !eligible.Has(u) || p.avail[id] < remCPUs || p.availGPU[id] < remGPUs {
					continue
				}
				if bi == -1 || p.avail[id] < bc {
					bi, bc = id, p.avail[id]
					if bc == remCPUs {
						break
					}
				}
			}
			if bi >= 0 {
				if !(maxN == 1 && p.avail[bi] < remCPUs) {
					take(uint32(bi))
				}
				break
			}
			fallthrough
		default:
			for id := b.start; id <= b.end; id++ {
				u := uint32(id)
				if maxN <= 0 || done() {
					break
				}
				if chosen.Has(u) || !eligible.Has(u) {
					continue
				}
				if maxN == 1 && p.avail[id] < remCPUs {
					continue // the last allowed node must cover the rest
				}
				take(u)
			}
		}
		if done() {
			break
		}
		b.nodes, b.cpus, b.gpus = 0, 0, 0
	}
	if !(remCPUs <= 0 && enoughNodes(0, remNodes, minN, reqN) && remGPUs <= 0) {
		return nil, false
	}
	return p.picked(r, chosen, gpuUse), true
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
func (p *Plugin) picked(r *job.Request, chosen bits.Set, gpuUse map[uint32]int) *pick {
	pk := &pick{}
	chosen.Each(func(id uint32) bool {
		pk.nodes = append(pk.nodes, id)
		pk.cpus = append(pk.cpus, p.use[id])
		pk.gpus = append(pk.gpus, gpuUse[id])
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
// admin weight, then, for jobs that ask for GPUs, more free GPUs first (low
// byte 0xff - near GPUs). canRun must have filled availGPU.
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
	return uint64(p.cl.Weight[id])<<8 | uint64(0xff-near)
}
