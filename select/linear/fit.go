package linear

import (
	"slices"
	"sort"

	"github.com/nodesift/sift/select/bitset"
)

// slowPick and slowScan disable the fast paths (fastPick; word-level runs
// and wholesale empty nodes), for differential tests.
var slowPick, slowScan = false, false

// fastPickSets is the number of runs above which fromRuns builds a
// fastPick (a variable so that the differential test can lower it).
var fastPickSets = 32

// want is a request reduced to what the best fit reads.
type want struct {
	minCPUs    int
	cpuCap     int // ntasks-per-node x cpus-per-task, 0 for none
	perCore    int // ntasks-per-core x cpus-per-task, 0 for none
	contiguous bool
	required   bitset.Set // nil when the job names no required nodes
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
// cand is not modified; out must be as long as cand. Its steps:
// eligibility, the runs of candidates (required nodes taken on the way),
// the heterogeneous shortcut, and, while nodes are still needed, the best
// run and the nodes taken from it.
func (p *Plugin) jobTest(w *want, cand, out bitset.Set, minN, maxN, reqN int) (int, bool) {
	out.Clear()
	if cand.Count() < minN {
		return 0, false
	}
	if w.required != nil && !w.required.SubsetOf(cand) {
		return 0, false
	}
	f := fit{p: p, w: w, out: out, minN: minN, reqN: reqN,
		left: need{nodes: max(reqN, minN), cpus: w.minCPUs, maxNodes: maxN}}
	var sets []consecSet
	var spread cpuSpread
	if w.required == nil && w.perCore == 0 && p.uniformCPUs > 0 && !slowScan {
		sets, spread = f.uniformRuns(cand)
		f.uniform = spread.first
	} else {
		sets, spread = f.runs(cand)
	}
	p.sets = sets

	if spread.hetero && f.left.cpus > spread.low*f.left.nodes {
		return f.heterogeneous(cand)
	}
	ok := f.fromRuns(sets, spread)
	if !ok && f.left.cpus <= 0 && enoughNodes(0, f.left.nodes, minN, reqN) {
		ok = true
	}
	return f.left.taken, ok
}

// countThreshold is, when jobTest's answer on a candidate set depends on
// its count alone, the fewest candidates it succeeds on (more than any
// set holds if none), and true. That is uniformRuns' case without a
// contiguous job: every run offers the same CPUs a node, and fromRuns
// takes nodes run after run until the job needs nothing more or no node
// is allowed, whatever the runs, so it takes min(count, maxN, the nodes
// the job needs).
func (p *Plugin) countThreshold(w *want, minN, maxN, reqN int) (int, bool) {
	if !p.countDecides(w) {
		return 0, false
	}
	a := p.uniformCPUs
	if w.cpuCap > 0 && a > w.cpuCap {
		a = w.cpuCap
	}
	nodes := max(reqN, minN)
	need := max(nodes, 0)
	if w.minCPUs > 0 {
		need = max(need, (w.minCPUs+a-1)/a)
	}
	fits := func(count int) bool {
		if count < minN {
			return false
		}
		taken := min(count, max(maxN, 0), need)
		left, cpus := nodes-taken, w.minCPUs-taken*a
		return cpus <= 0 && (left <= 0 || enoughNodes(0, left, minN, reqN))
	}
	return sort.Search(p.cl.N+1, fits), true
}

// countDecides reports whether jobTest's answer for w depends on the
// count of its candidates alone (countThreshold's case).
func (p *Plugin) countDecides(w *want) bool {
	return w.required == nil && w.perCore == 0 && p.uniformCPUs > 0 && !slowScan && !w.contiguous
}

// need is what a job still needs while jobTest takes nodes for it, and
// what those nodes hold.
type need struct {
	nodes    int // rem_nodes
	cpus     int // rem_cpus
	maxNodes int // nodes still allowed
	taken    int // total CPUs of the nodes taken
}

// met reports whether the job needs nothing more.
func (n *need) met() bool { return n.nodes <= 0 && n.cpus <= 0 }

// fit is one jobTest call: the job, where its nodes go and what it still
// needs.
type fit struct {
	p          *Plugin
	w          *want
	out        bitset.Set
	minN, reqN int
	left       need
	// uniform is the CPUs every candidate offers when uniformRuns listed
	// the runs (no node taken before fromRuns), else 0.
	uniform int
}

// cpuSpread is how the candidates' usable CPUs vary: the first
// candidate's, the lowest, and whether any differs from the first.
type cpuSpread struct {
	first, low int
	hetero     bool
}

// add takes node id, which offers avail CPUs to the job.
func (f *fit) add(id uint32, avail int) {
	f.out.Add(id)
	f.left.nodes--
	f.left.maxNodes--
	f.left.cpus -= avail
	f.left.taken += f.p.cl.CPUs[id]
}

// uniformRuns lists the runs of candidates when every node offers the same
// CPUs (no ntasks-per-core, which lets availCPUs count a node's cores
// instead) and no node is required: runs come straight from the words.
func (f *fit) uniformRuns(cand bitset.Set) ([]consecSet, cpuSpread) {
	a := f.p.uniformCPUs
	if f.w.cpuCap > 0 && a > f.w.cpuCap {
		a = f.w.cpuCap
	}
	sets := f.p.sets[:0]
	cand.Runs(func(s, e int) bool {
		n := e - s + 1
		sets = append(sets, consecSet{start: s, end: e, nodes: n, cpus: n * a, req: -1})
		return true
	})
	return sets, cpuSpread{first: a, low: a}
}

// runs lists the runs of consecutive candidates node by node and takes the
// required nodes (while nodes are allowed) on the way: they mark their run
// but are not counted in it.
func (f *fit) runs(cand bitset.Set) ([]consecSet, cpuSpread) {
	w := f.w
	sets := f.p.sets[:0]
	cur := consecSet{req: -1}
	last := -2
	spread := cpuSpread{low: int(^uint(0) >> 1)}
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
		a := f.p.availCPUs(w, id)
		if !seen {
			spread.first, seen = a, true
		} else if a != spread.first {
			spread.hetero = true
		}
		spread.low = min(spread.low, a)
		if w.required != nil && f.left.maxNodes > 0 && w.required.Has(u) {
			if cur.req == -1 {
				cur.req = id
			}
			f.add(u, a)
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
	return sets, spread
}

// fromRuns takes nodes run by run, the best run first, until the job needs
// nothing more; it reports success only when it stopped for that reason or
// after the one run a contiguous job may use.
func (f *fit) fromRuns(sets []consecSet, spread cpuSpread) bool {
	w := f.w
	liveReq := 0
	for i := range sets {
		if sets[i].req != -1 {
			liveReq++
		}
	}
	var fast *fastPick
	for len(sets) > 0 && f.left.maxNodes > 0 {
		if fast == nil && len(sets) > fastPickSets && !spread.hetero && liveReq == 0 && !slowPick && !(w.contiguous && w.required != nil) {
			// Every set's CPUs grow with its nodes, so the scan of bestRun
			// reduces to two ordered lookups (see fastPick); building them
			// costs more than a scan of a few sets.
			fast = f.p.newFastPick(sets)
		}
		var best int
		if fast != nil {
			best = fast.pick(sets, spread.first, f.left.cpus, f.left.nodes, f.minN, f.reqN)
		} else {
			best = f.bestRun(sets)
		}
		if best == -1 {
			break
		}
		b := &sets[best]
		if w.contiguous && (b.cpus < f.left.cpus || !enoughNodes(b.nodes, f.left.nodes, f.minN, f.reqN)) {
			break // no hole large enough
		}
		f.takeFromRun(b)
		if w.contiguous || f.left.met() {
			return true
		}
		if b.req != -1 {
			liveReq--
		}
		b.cpus, b.nodes = 0, 0
	}
	return false
}

// bestRun is the index of the run to take nodes from next, or -1: a run
// holding a required node, else the smallest sufficient run, else the
// largest.
func (f *fit) bestRun(sets []consecSet) int {
	w := f.w
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
		sufficient := s.cpus >= f.left.cpus && enoughNodes(s.nodes, f.left.nodes, f.minN, f.reqN)
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
			for j := i + 1; j < len(sets); j++ {
				if sets[j].req != -1 {
					return -1
				}
			}
		}
	}
	return best
}

// takeFromRun takes the nodes of run b not yet taken, outward from its
// first required node or else from its start, until the job needs nothing
// more or no node is allowed.
func (f *fit) takeFromRun(b *consecSet) {
	if b.req != -1 {
		for id := b.req; id <= b.end && f.take(id); id++ {
		}
		for id := b.req - 1; id >= b.start && f.take(id); id-- {
		}
		return
	}
	if f.uniform > 0 && !slowPick {
		f.takeRange(b)
		return
	}
	for id := b.start; id <= b.end && f.take(id); id++ {
	}
}

// takeRange is takeFromRun's walk over a run of uniformRuns (no node of it
// taken, each offering f.uniform CPUs): the first nodes the walk would
// take, at once.
func (f *fit) takeRange(b *consecSet) {
	a := f.uniform
	need := max(f.left.nodes, 0)
	if f.left.cpus > 0 {
		need = max(need, (f.left.cpus+a-1)/a)
	}
	k := min(b.end-b.start+1, max(f.left.maxNodes, 0), need)
	if k <= 0 {
		return
	}
	f.out.AddRange(b.start, b.start+k)
	f.left.nodes -= k
	f.left.maxNodes -= k
	f.left.cpus -= k * a
	f.left.taken += k * f.p.uniformCPUs
}

// take takes node id unless it is already taken, and reports whether the
// walk over a run goes on.
func (f *fit) take(id int) bool {
	if f.left.maxNodes <= 0 || f.left.met() {
		return false
	}
	if f.out.Has(uint32(id)) {
		return true
	}
	f.add(uint32(id), f.p.availCPUs(f.w, id))
	return true
}

// heterogeneous is the shortcut of reference §1.4 step 4: ignore runs and
// take the candidates with the most CPUs (ties: highest id) until the node
// and CPU needs are met. Unlike Slurm it never adds non-candidates.
func (f *fit) heterogeneous(cand bitset.Set) (int, bool) {
	p, w := f.p, f.w
	ids := p.ids[:0]
	cand.Each(func(id uint32) bool {
		if !f.out.Has(id) {
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
		if f.left.maxNodes <= 0 || f.left.met() {
			break
		}
		f.add(id, p.availCPUs(w, int(id)))
	}
	return f.left.taken, f.left.met()
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
