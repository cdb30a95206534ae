package linear

import (
	"slices"

	"github.com/nodesift/sift/select/internal/bits"
)

// want is a request reduced to what the best fit reads.
type want struct {
	minCPUs    int
	cpuCap     int // ntasks-per-node x cpus-per-task, 0 for none
	contiguous bool
	required   bits.Set // nil when the job names no required nodes
}

// consecSet is one run of consecutive candidate ids.
type consecSet struct {
	start, end int
	nodes      int
	cpus       int
	req        int // first required id inside, or -1
}

// enoughNodes is Slurm's _enough_nodes: with a node range the job may stop
// at min instead of req.
func enoughNodes(avail, rem, min, req int) bool {
	needed := rem
	if req > min {
		needed = rem + min - req
	}
	return avail >= needed
}

// availCPUs is Slurm's _get_avail_cpus for linear: all CPUs of the node,
// capped by ntasks-per-node x cpus-per-task.
func (p *Plugin) availCPUs(w *want, id int) int {
	c := p.cl.CPUs[id]
	if w.cpuCap > 0 && c > w.cpuCap {
		c = w.cpuCap
	}
	return c
}

// jobTest is select/linear's _job_test (reference §1.4): on success out
// holds the chosen nodes and the total CPUs of those nodes is returned.
// cand is not modified; out must be as long as cand.
func (p *Plugin) jobTest(w *want, cand, out bits.Set, minN, maxN, reqN int) (int, bool) {
	out.Clear()
	if cand.Count() < minN {
		return 0, false
	}
	if w.required != nil && !w.required.SubsetOf(cand) {
		return 0, false
	}
	remNodes := max(reqN, minN)
	remCPUs := w.minCPUs
	totalCPUs := 0
	sets := p.sets[:0]
	cur := consecSet{req: -1}
	last := -2
	first, low := 0, int(^uint(0)>>1)
	hetero := false
	cand.Each(func(u uint32) bool {
		id := int(u)
		if id != last+1 && last >= 0 {
			// A gap: close the run, or reuse an empty record (a run of only
			// required nodes leaves no set).
			if cur.nodes == 0 {
				cur.req = -1
			} else {
				cur.end = last
				sets = append(sets, cur)
				cur = consecSet{req: -1}
			}
		}
		last = id
		if cur.nodes == 0 {
			cur.start = id
		}
		a := p.availCPUs(w, id)
		if first == 0 {
			first = a
		} else if a != first {
			hetero = true
		}
		low = min(low, a)
		if w.required != nil && maxN > 0 && w.required.Has(u) {
			if cur.req == -1 {
				cur.req = id
			}
			out.Add(u)
			remNodes--
			maxN--
			remCPUs -= a
			totalCPUs += p.cl.CPUs[id]
		} else {
			cur.cpus += a
			cur.nodes++
		}
		return true
	})
	if cur.nodes != 0 {
		cur.end = last
		sets = append(sets, cur)
	}
	p.sets = sets

	if hetero && remCPUs > low*remNodes {
		return p.heterogeneous(w, cand, out, remNodes, remCPUs, maxN, totalCPUs)
	}

	ok := false
	for len(sets) > 0 && maxN > 0 {
		best := -1
		bestSufficient := false
		for i := range sets {
			s := &sets[i]
			if s.nodes == 0 {
				continue
			}
			if w.contiguous && w.required != nil && s.req == -1 {
				continue
			}
			sufficient := s.cpus >= remCPUs && enoughNodes(s.nodes, remNodes, minN, reqN)
			if best == -1 ||
				(sets[best].req == -1 && s.req != -1) ||
				(sufficient && !bestSufficient) ||
				(sufficient && s.cpus < sets[best].cpus) ||
				(!sufficient && s.cpus > sets[best].cpus) {
				best = i
				bestSufficient = sufficient
			}
			if w.contiguous && w.required != nil {
				// All required nodes must sit in one run.
				other := false
				for j := i + 1; j < len(sets); j++ {
					if sets[j].req != -1 {
						other = true
						break
					}
				}
				if other {
					best = -1
					break
				}
			}
		}
		if best == -1 {
			break
		}
		b := &sets[best]
		if w.contiguous && (b.cpus < remCPUs || !enoughNodes(b.nodes, remNodes, minN, reqN)) {
			break // no hole large enough
		}
		take := func(id int) bool {
			if maxN <= 0 || (remNodes <= 0 && remCPUs <= 0) {
				return false
			}
			if out.Has(uint32(id)) {
				return true
			}
			out.Add(uint32(id))
			remNodes--
			maxN--
			remCPUs -= p.availCPUs(w, id)
			totalCPUs += p.cl.CPUs[id]
			return true
		}
		if b.req != -1 {
			for id := b.req; id <= b.end && take(id); id++ {
			}
			for id := b.req - 1; id >= b.start && take(id); id-- {
			}
		} else {
			for id := b.start; id <= b.end && take(id); id++ {
			}
		}
		if w.contiguous || (remNodes <= 0 && remCPUs <= 0) {
			ok = true
			break
		}
		b.cpus, b.nodes = 0, 0
	}
	if !ok && remCPUs <= 0 && enoughNodes(0, remNodes, minN, reqN) {
		ok = true
	}
	return totalCPUs, ok
}

// heterogeneous is the shortcut of reference §1.4 step 4: ignore runs and
// take the candidates with the most CPUs (ties: highest id) until the node
// and CPU needs are met. Unlike Slurm it never adds non-candidates.
func (p *Plugin) heterogeneous(w *want, cand, out bits.Set, remNodes, remCPUs, maxN, totalCPUs int) (int, bool) {
	ids := p.ids[:0]
	cand.Each(func(id uint32) bool {
		if !out.Has(id) {
			ids = append(ids, id)
		}
		return true
	})
	p.ids = ids
	slices.SortFunc(ids, func(a, b uint32) int {
		ca, cb := p.availCPUs(w, int(a)), p.availCPUs(w, int(b))
		if ca != cb {
			return cb - ca
		}
		return cmpU32(b, a)
	})
	for _, id := range ids {
		if maxN <= 0 || (remNodes <= 0 && remCPUs <= 0) {
			break
		}
		out.Add(id)
		remNodes--
		maxN--
		remCPUs -= p.availCPUs(w, int(id))
		totalCPUs += p.cl.CPUs[id]
	}
	return totalCPUs, remNodes <= 0 && remCPUs <= 0
}
