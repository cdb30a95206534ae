package constres

import (
	"slices"
	"sort"

	"github.com/nodesift/sift/bitops"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// minReachStep is the fewest jobs between two of a chain's reached sets
// (tests lower it).
var minReachStep = 16

// maxChainStates bounds the release states a chain keeps (each is a copy of
// the plugin state).
const maxChainStates = 16

// releaseChain is what every will-run test shares while the plugin state
// does not change: the running jobs in the order _will_run_test releases
// them, where each is, the free cores, a scratch state and copies of the
// state with a prefix of them released. A backfill pass asks will-run
// thousands of times between two changes of the state; without the chain
// each answer copied the state and released hundreds of jobs again.
type releaseChain struct {
	base    *state
	gen     uint64
	running []*record // by end time, ties by id
	// free is the cores in no row of base; freeAny the nodes with one:
	// only they can hold a job that does not share before any job is
	// released.
	free    bitset.Set
	freeAny bitset.Set
	// nodeJobs lists, per node, the indexes in running of the jobs on it,
	// increasing.
	nodeJobs [][]int32
	// scratch is base with some jobs released for one test, scratchFree
	// its cores in no row; both return to base after the test.
	scratch     *state
	scratchFree bitset.Set
	scratchRows []bitset.Set // every row of scratch
	released    []bool       // per running index: released in scratch
	done        []int32      // the released indexes, reused
	coreMasks   [][]coreMask
	nodeMasks   [][]coreMask // per running index: its node ids as words, made once
	states      []releaseState
	clock       uint64
	// memo holds WillRunDense's answers on this state.
	memo job.Memo
	// reached[k] is the nodes of running[:k*reachStep], made as far as
	// asked: a test from a later start releases every job ended by then,
	// often hundreds, and its nodeBound takes their nodes from here.
	reached   []bitset.Set
	reachStep int
}

// releaseState is base with running[:n] released.
type releaseState struct {
	n    int
	st   *state
	used uint64
}

// chain is the release chain of the current state, rebuilt when the state
// changed since it was made.
func (p *Plugin) chain() *releaseChain {
	if c := p.rel; c != nil && c.base == p.st && c.gen == p.st.gen {
		return c
	}
	running := sortedJobs(p.st)
	slices.SortStableFunc(running, func(a, b *record) int {
		switch {
		case a.end < b.end:
			return -1
		case a.end > b.end:
			return 1
		}
		return 0
	})
	free := p.freeCores(p.st)
	freeAny := bitset.New(p.cl.N)
	for id := 0; id < p.cl.N; id++ {
		if free.CountRange(p.coreOff[id], p.coreOff[id+1]) > 0 {
			freeAny.Add(uint32(id))
		}
	}
	nodeJobs := make([][]int32, p.cl.N)
	for k, j := range running {
		for _, id := range j.nodes {
			nodeJobs[id] = append(nodeJobs[id], int32(k))
		}
	}
	p.rel = &releaseChain{base: p.st, gen: p.st.gen, running: running, free: free, freeAny: freeAny, nodeJobs: nodeJobs,
		released: make([]bool, len(running)), coreMasks: make([][]coreMask, len(running)), nodeMasks: make([][]coreMask, len(running)),
		reachStep: max(minReachStep, len(running)/256)}
	return p.rel
}

// stateAt is the base state with running[:n] released, in that order, as
// _will_run_test's copy holds it after those releases. It starts from the
// kept state with the longest prefix and keeps the result, dropping the
// least recently used state when full. The states are only read.
func (p *Plugin) stateAt(c *releaseChain, n int) *state {
	if n == 0 {
		return c.base
	}
	c.clock++
	from, src := 0, c.base
	for i := range c.states {
		s := &c.states[i]
		if s.n == n {
			s.used = c.clock
			return s.st
		}
		if s.n < n && s.n >= from {
			from, src = s.n, s.st
		}
	}
	st := src.dup()
	for _, j := range c.running[from:n] {
		p.removeJob(st, j, true)
	}
	if len(c.states) < maxChainStates {
		c.states = append(c.states, releaseState{n: n, st: st, used: c.clock})
		return st
	}
	lru := 0
	for i := range c.states {
		if c.states[i].used < c.states[lru].used {
			lru = i
		}
	}
	c.states[lru] = releaseState{n: n, st: st, used: c.clock}
	return st
}

// nodeBound is a cheap necessary test of fit for a job that does not
// share: it needs minN nodes with a free core, and only the nodes with a
// free core before any release or held by a released job can have one.
type nodeBound struct {
	cand   bitset.Set
	lo, hi int        // the words holding cand's members
	seen   bitset.Set // candidates that may have a free core
	count  int        // members of seen
	minN   int
}

// newNodeBound is the plugin's nodeBound, set for a test of r on cand.
func newNodeBound(p *Plugin, c *releaseChain, r *job.Request, cand bitset.Set) *nodeBound {
	minN, _, _ := r.NodeCounts(0)
	seen := p.scratchSet(&p.seen)
	lo, hi := cand.Span()
	for w := lo; w < hi; w++ {
		seen[w] = c.freeAny[w] & cand[w]
	}
	p.bound = nodeBound{cand: cand, lo: lo, hi: hi, seen: seen, count: bitops.Count(seen[lo:hi]), minN: minN}
	return &p.bound
}

// releaseTo counts the candidates of running[:n], released at once.
func (b *nodeBound) releaseTo(c *releaseChain, n int) {
	k := n / c.reachStep
	if k > 0 {
		reached := c.reachedBy(k)
		for w := b.lo; w < b.hi; w++ {
			b.seen[w] |= reached[w] & b.cand[w]
		}
		b.count = bitops.Count(b.seen[b.lo:b.hi])
	}
	for _, j := range c.running[k*c.reachStep : n] {
		b.release(j)
	}
}

// reachedBy is reached[k], made (with those before it) if need be.
func (c *releaseChain) reachedBy(k int) bitset.Set {
	for len(c.reached) <= k {
		m := len(c.reached)
		if m == 0 {
			c.reached = append(c.reached, bitset.New(len(c.freeAny)*64))
			continue
		}
		b := c.reached[m-1].Clone()
		for _, j := range c.running[(m-1)*c.reachStep : m*c.reachStep] {
			for _, id := range j.nodes {
				b.Add(id)
			}
		}
		c.reached = append(c.reached, b)
	}
	return c.reached[k]
}

// release counts the candidates of a released job.
func (b *nodeBound) release(j *record) {
	for _, id := range j.nodes {
		if b.cand.Has(id) && !b.seen.Has(id) {
			b.seen.Add(id)
			b.count++
		}
	}
}

// mayFit is false when fit surely fails.
func (b *nodeBound) mayFit() bool { return b.count >= b.minN }

// willRun is _will_run_test (reference §2.7): willRunPlain's answer,
// without its copies. A job that shares is tested on copies kept in the
// release chain. One that does not is tested on the chain's scratch state
// with only the released jobs on its candidates taken off, skipping the
// boundaries where too few candidates can have a free core (the fit would
// fail), and, when it has a maximum node count, with only the candidates
// that can have a free core (the others cannot be chosen). With preemption
// it is willRunPlain.
func (p *Plugin) willRun(r *job.Request, cand bitset.Set, now int64) (*job.Allocation, error) {
	if r.Preempts(p.cfg.Preempt) {
		return p.willRunPlain(r, cand, now)
	}
	c := p.chain()
	if p.nodeReqOf(r) == crAvailable {
		return p.willRunShared(c, r, cand, now)
	}
	bound := newNodeBound(p, c, r, cand)
	// Without a maximum node count the job's maximum is the number of
	// candidates, so all of them are fitted; with one, only those that can
	// have a free core, which are all the fit could choose.
	narrow := r.MaxNodes > 0
	fitCand := func() bitset.Set {
		if narrow {
			return bound.seen
		}
		return cand
	}
	if bound.mayFit() && !c.overdue(now) {
		if pk, free, ok := p.fitFree(p.st, r, fitCand(), c.free); ok {
			return p.build(p.st, r, pk, free, now)
		}
	}
	return c.walk(now, r.PlanEnd, cand, p.willRunTimer(), bound, func(n, last int) (*job.Allocation, bool, error) {
		if !bound.mayFit() {
			return nil, false, nil
		}
		st, free1, undo := p.releaseFor(c, bound.seen, n)
		defer undo()
		pk, free, ok := p.fitFree(st, r, fitCand(), free1)
		if !ok {
			return nil, false, nil
		}
		a, err := p.build(st, r, pk, free, now)
		if err != nil {
			return nil, false, err
		}
		a.Start = c.startOf(a, n, last, now)
		return a, true, nil
	})
}

// overdue reports whether a running job ends by now. _will_run_test, asked
// for a start (backfill's start_res), first releases those jobs and only
// then tests, so no test is made on the state that still holds them: with
// more nodes free the fit may choose other ones.
func (c *releaseChain) overdue(now int64) bool {
	return len(c.running) > 0 && c.running[0].end <= now
}

// walk is _will_run_test's release loop over the chain: the jobs ending by
// now, tested once released, then futureBatches over the others (up to
// end, 0 for no bound), for a job whose candidates are cand. bound, unless
// nil, counts the jobs as they are released; test is asked with
// running[:n] released, last the index of the latest job released, until
// it succeeds, fails with an error, or spent says the 2 s cap is used up.
func (c *releaseChain) walk(now, end int64, cand bitset.Set, spent func() bool, bound *nodeBound, test func(n, last int) (*job.Allocation, bool, error)) (*job.Allocation, error) {
	running := c.running
	// running is in end order.
	i := sort.Search(len(running), func(k int) bool { return running[k].end > now })
	if i > 0 {
		if bound != nil {
			bound.releaseTo(c, i)
		}
		if a, ok, err := test(i, i-1); ok || err != nil {
			return a, err
		}
	}
	return futureBatches(running, i, end, func(k int) bool { return c.onAny(k, cand) }, spent, func(k int) {
		if bound != nil {
			bound.release(running[k])
		}
	}, test)
}

// onAny is onAny(running[k], cand) a word of node ids at a time.
func (c *releaseChain) onAny(k int, cand bitset.Set) bool {
	ms := c.nodeMasks[k]
	if ms == nil {
		ms = []coreMask{}
		for _, id := range c.running[k].nodes {
			ms = addBit(ms, int(id))
		}
		c.nodeMasks[k] = ms
	}
	for _, m := range ms {
		if cand[m.w]&m.m != 0 {
			return true
		}
	}
	return false
}

// onAny reports whether job j holds a node of cand.
func onAny(j *record, cand bitset.Set) bool {
	for _, id := range j.nodes {
		if cand.Has(id) {
			return true
		}
	}
	return false
}

// yearSeconds caps the window's growth (Slurm's YEAR_SECONDS).
const yearSeconds = 365 * 24 * 60 * 60

// futureBatches is _future_run_test's loop over the running jobs from i on
// (in end order), up to the first that ends after end (when end is not
// zero: will_run_data_t's end): a job on none of the candidates (on(k)
// false) is skipped;
// the others are released in batches, and test is asked after each with
// running[:n] released and last the latest released. The windows are
// measured from one barrier, the first released job's end rounded up to
// the next 30 s: a batch takes jobs while the next job in end order ends
// within the barrier plus the window (30 s at first); after a failed test
// the window doubles until that next job ends within it.
func futureBatches(running []*record, i int, end int64, on func(k int) bool, spent func() bool, release func(k int), test func(n, last int) (*job.Allocation, bool, error)) (*job.Allocation, error) {
	window, barrier := int64(30), int64(0)
	for i < len(running) {
		last, next := -1, int64(-1)
		over := false
		for i < len(running) {
			if end != 0 && running[i].end > end {
				over = true
				break
			}
			k := i
			i++
			if !on(k) {
				continue
			}
			if barrier == 0 {
				barrier = running[k].end + 30 - running[k].end%30
			}
			release(k)
			last = k
			if i < len(running) && running[i].end > barrier+window {
				next = running[i].end
				break
			}
		}
		if last < 0 {
			break
		}
		if a, ok, err := test(i, last); ok || err != nil {
			return a, err
		}
		if over {
			break
		}
		for window <= yearSeconds {
			window *= 2
			if next < 0 || next <= barrier+window {
				break
			}
		}
		if spent() {
			return nil, errWillRunCap
		}
	}
	return nil, &job.Unsatisfied{Reason: "does not fit even after every running job ends"}
}

// startOf is the start of a, found with running[:n] released: the end of
// the latest of them on a node of a (_get_last_relevant_job), else of the
// last one released (running[last]), and at least now+1. The jobs are
// indexed in end order.
func (c *releaseChain) startOf(a *job.Allocation, n, last int, now int64) int64 {
	rel := -1
	for _, na := range a.PerNode {
		js := c.nodeJobs[na.ID]
		if k, _ := slices.BinarySearch(js, int32(n)); k > 0 {
			rel = max(rel, int(js[k-1]))
		}
	}
	start := c.running[last].end
	if rel >= 0 {
		start = c.running[rel].end
	}
	return max(start, now+1)
}

// releaseFor makes the chain's scratch state agree on every node of cand
// with base after releasing running[:n], in a test whose candidates that
// can have a free core are seen, and returns it with its free cores and a
// function that returns it to base. A job of running[:n] on a candidate is
// on a node of seen; those are released. Fit reads the state of its
// candidates only, for a job that does not share, so it answers there as
// on _will_run_test's copy.
func (p *Plugin) releaseFor(c *releaseChain, seen bitset.Set, n int) (*state, bitset.Set, func()) {
	if c.scratch == nil {
		c.scratch, c.scratchFree = c.base.dup(), c.free.Clone()
		// Releases never add rows, so this list stays the scratch's.
		for _, pr := range c.scratch.parts {
			c.scratchRows = append(c.scratchRows, pr.rows...)
		}
	}
	done := c.done[:0]
	seen.Each(func(id uint32) bool {
		for _, k := range c.nodeJobs[id] {
			if int(k) >= n {
				break
			}
			if !c.released[k] {
				c.released[k] = true
				done = append(done, k)
			}
		}
		return true
	})
	// In end order, as _will_run_test releases them.
	slices.Sort(done)
	c.done = done
	for _, k := range done {
		p.release(c, k)
	}
	return c.scratch, c.scratchFree, func() {
		for x := len(done) - 1; x >= 0; x-- {
			p.unrelease(c, done[x])
			c.released[done[x]] = false
		}
	}
}

// coreMask is one word of a bitset: of a job's cores in a core bitset, or
// of its nodes (nodeMasks).
type coreMask struct {
	w int
	m uint64
}

// masks is running[k]'s cores as words of a core bitset, made once.
func (p *Plugin) masks(c *releaseChain, k int32) []coreMask {
	if c.coreMasks[k] != nil {
		return c.coreMasks[k]
	}
	out := []coreMask{}
	rec := c.running[k]
	for i, id := range rec.nodes {
		for _, core := range rec.cores[i] {
			out = addBit(out, p.coreOff[id]+core)
		}
	}
	c.coreMasks[k] = out
	return out
}

// addBit adds bit b to the words ms, which hold bits in increasing order.
func addBit(ms []coreMask, b int) []coreMask {
	if n := len(ms); n > 0 && ms[n-1].w == b>>6 {
		ms[n-1].m |= 1 << (b & 63)
		return ms
	}
	return append(ms, coreMask{w: b >> 6, m: 1 << (b & 63)})
}

// release is removeJob(scratch, running[k], true) a word at a time, but
// for the list of jobs, which fit does not read; the cores no row holds
// any more become free.
func (p *Plugin) release(c *releaseChain, k int32) {
	st, rec := c.scratch, c.running[k]
	st.gen++
	if !rec.suspended {
		if pr := st.parts[rec.partition]; pr != nil && rec.row < len(pr.rows) {
			row := pr.rows[rec.row]
			ms := p.masks(c, k)
			for _, cm := range ms {
				row[cm.w] &^= cm.m
			}
			pr.jobs[rec.row]--
			for _, cm := range ms {
				var held uint64
				for _, rw := range c.scratchRows {
					held |= rw[cm.w]
				}
				c.scratchFree[cm.w] |= cm.m &^ held
			}
		}
		for _, id := range rec.nodes {
			p.chargeNode(st, rec, id, -1)
		}
	}
	for i, id := range rec.nodes {
		st.mem[id] -= rec.mem[i]
		for g, n := range rec.gpus[i] {
			st.gpus[id][g] -= n
		}
	}
}

// unrelease undoes release exactly: the cores go back to the job's row
// and are no longer free.
func (p *Plugin) unrelease(c *releaseChain, k int32) {
	st, rec := c.scratch, c.running[k]
	st.gen++
	if !rec.suspended {
		if pr := st.parts[rec.partition]; pr != nil && rec.row < len(pr.rows) {
			row := pr.rows[rec.row]
			for _, cm := range p.masks(c, k) {
				row[cm.w] |= cm.m
				c.scratchFree[cm.w] &^= cm.m
			}
			pr.jobs[rec.row]++
		}
		for _, id := range rec.nodes {
			p.chargeNode(st, rec, id, 1)
		}
	}
	for i, id := range rec.nodes {
		st.mem[id] += rec.mem[i]
		for g, n := range rec.gpus[i] {
			st.gpus[id][g] += n
		}
	}
}

// willRunShared is willRun for a job that shares cores (test 3 and 4 of
// fit read every row), on full copies of the state from the chain.
func (p *Plugin) willRunShared(c *releaseChain, r *job.Request, cand bitset.Set, now int64) (*job.Allocation, error) {
	if !c.overdue(now) {
		if pk, free, ok := p.fit(p.st, r, cand); ok {
			return p.build(p.st, r, pk, free, now)
		}
	}
	return c.walk(now, r.PlanEnd, cand, p.willRunTimer(), nil, func(n, last int) (*job.Allocation, bool, error) {
		st := p.stateAt(c, n)
		pk, free, ok := p.fit(st, r, cand)
		if !ok {
			return nil, false, nil
		}
		a, err := p.build(st, r, pk, free, now)
		if err != nil {
			return nil, false, err
		}
		a.Start = c.startOf(a, n, last, now)
		return a, true, nil
	})
}
