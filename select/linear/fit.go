package linear

import (
	"slices"

	"github.com/nodesift/sift/select/internal/bits"
)

// slowPick and slowScan disable the fast paths (fastPick; word-level runs
// and wholesale empty nodes), for differential tests.
var slowPick, slowScan = false, false

// want is a request reduced to what the best fit reads.
type want struct {
	minCPUs    int
	cpuCap     int // ntasks-per-node x cpus-per-task, 0 for none
	perCore    int // ntasks-per-core x cpus-per-task, 0 for none
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

// availCPUs is Slurm's _get_avail_cpus for linear: all CPUs of the node
// (or ntasks-per-core x cpus-per-task on each core when that is more, as
// adjust_cpus_nppcu counts), capped by ntasks-per-node x cpus-per-task.
func (p *Plugin) availCPUs(w *want, id int) int {
	c := p.cl.CPUs[id]
	if w.perCore > 0 {
		c = max(c, p.cl.Cores(uint32(id))*w.perCore)
	}
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
	if w.required == nil && p.uniformCPUs > 0 && !slowScan {
		// Every node offers the same CPUs: runs come straight from the words.
		a := p.uniformCPUs
		if w.cpuCap > 0 && a > w.cpuCap {
			a = w.cpuCap
		}
		first, low = a, a
		cand.Runs(func(s, e int) bool {
			n := e - s + 1
			sets = append(sets, consecSet{start: s, end: e, nodes: n, cpus: n * a, req: -1})
			return true
		})
		cur.nodes = 0
	} else {
		seen := false
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
			if !seen {
				first, seen = a, true
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
	}
	if cur.nodes != 0 {
		cur.end = last
		sets = append(sets, cur)
	}
	p.sets = sets

	if hetero && remCPUs > low*remNodes {
		return p.heterogeneous(w, cand, out, remNodes, remCPUs, maxN, totalCPUs)
	}

	liveReq := 0
	for i := range sets {
		if sets[i].req != -1 {
			liveReq++
		}
	}
	var fast *fastPick
	ok := false
	for len(sets) > 0 && maxN > 0 {
		best := -1
		bestSufficient := false
		if !hetero && liveReq == 0 && !slowPick && !(w.contiguous && w.required != nil) {
			// Every set's CPUs grow with its nodes, so the scan below reduces
			// to two ordered lookups (see fastPick).
			if fast == nil {
				fast = p.newFastPick(sets)
			}
			best = fast.pick(sets, first, remCPUs, remNodes, minN, reqN)
		}
		for i := range sets {
			if fast != nil {
				break
			}
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
		if b.req != -1 {
			liveReq--
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

// fastPick answers the best-set scan of reference §1.4 step 5 in sub-linear
// time when every candidate offers the same CPUs and no live set holds a
// required node. Then a set's CPUs are its nodes times that count, whether a
// set is sufficient depends only on its node count (at least some T), and
// the scan's answer is: the first (lowest index) of the smallest sets with at
// least T nodes if any, else the first of the largest sets. Sets are kept in
// buckets by size, each in index order; a set only dies by being picked, and
// picks take a bucket's first live set, so each bucket is a queue.
type fastPick struct {
	sizes   []int     // distinct set sizes, ascending
	buckets [][]int32 // set indices of each size, ascending
	heads   []int     // buckets[i][:heads[i]] are dead
}

func (p *Plugin) newFastPick(sets []consecSet) *fastPick {
	f := &fastPick{}
	at := map[int]int{}
	for i := range sets {
		n := sets[i].nodes
		b, ok := at[n]
		if !ok {
			b = len(f.sizes)
			at[n] = b
			f.sizes = append(f.sizes, n)
			f.buckets = append(f.buckets, nil)
		}
		f.buckets[b] = append(f.buckets[b], int32(i))
	}
	order := make([]int, len(f.sizes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return f.sizes[a] - f.sizes[b] })
	sizes, buckets := make([]int, len(order)), make([][]int32, len(order))
	for i, o := range order {
		sizes[i], buckets[i] = f.sizes[o], f.buckets[o]
	}
	f.sizes, f.buckets, f.heads = sizes, buckets, make([]int, len(order))
	return f
}

// first returns the first live set of bucket b, or -1.
func (f *fastPick) first(sets []consecSet, b int) int {
	q := f.buckets[b]
	for f.heads[b] < len(q) && sets[q[f.heads[b]]].nodes == 0 {
		f.heads[b]++
	}
	if f.heads[b] == len(q) {
		return -1
	}
	return int(q[f.heads[b]])
}

func (f *fastPick) pick(sets []consecSet, cpusPerNode, remCPUs, remNodes, minN, reqN int) int {
	largest := -1
	for b := len(f.sizes) - 1; b >= 0 && largest < 0; b-- {
		largest = f.first(sets, b)
	}
	if largest < 0 {
		return -1
	}
	needed := remNodes
	if reqN > minN {
		needed = remNodes + minN - reqN
	}
	t := max(needed, 0)
	switch {
	case remCPUs <= 0:
	case cpusPerNode <= 0:
		t = int(^uint(0) >> 1)
	default:
		t = max(t, (remCPUs+cpusPerNode-1)/cpusPerNode)
	}
	if sets[largest].nodes < t {
		return largest
	}
	b, _ := slices.BinarySearch(f.sizes, t)
	for ; b < len(f.sizes); b++ {
		if s := f.first(sets, b); s >= 0 {
			return s
		}
	}
	return largest
}
