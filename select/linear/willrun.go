package linear

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// releaseChain is what every will-run test shares while the plugin state
// does not change: the running jobs in the order _will_run_test releases
// them, and a scratch copy of the per-node books to release them on. A
// backfill pass asks will-run hundreds of times between two changes of
// the state; without the chain each answer copied and sorted it again.
type releaseChain struct {
	base    *state
	gen     uint64
	running []*record // by end time, ties by id
	// scratch holds base's per-node books (not its job list or node
	// sets) with some jobs released for one test, copied when a test
	// first needs them (books); touched lists the nodes changed, which go
	// back to base's values after the test.
	scratch *state
	copied  bool
	touched []uint32
	marked  bitset.Set
	// freed holds, per running-job count a node may share with
	// (maxRun), the nodes in the order releases free them; see freedAt.
	freed map[int]*freeOrder
	// memo holds will-run's answers (willRunMemo), kept across the
	// starts and ends of jobs in changes while they still hold (holds).
	memo    job.Memo
	changes []*record
	// carried counts the answers memo gave after a change, early the
	// starts now answered from an order freedLater had not finished (for
	// tests).
	carried, early int
}

// freeOrder is, for one maxRun, each node's release count: how many of
// running, released in order, leave it without an exclusive job and with
// at most maxRun running jobs (and so passing countBitmap when memory is
// not consumable), and the nodes the running jobs hold (busy) sorted by
// it: nodes[at[k]:at[k+1]] are those freed by the k-th release, and the
// clean nodes (base's clean, count 0) are left out.
type freeOrder struct {
	nodes []uint32
	at    []int
	busy  []uint32
	// stale marks an order of an earlier state, whose storage the next
	// freedAt for its maxRun reuses; full one that freedLater finished
	// (else only reached[0] is made); single one whose busy nodes are
	// each held by one running exclusive job alone.
	stale, full, single bool
	maxRun              int
	// excl, run, tot, count and next are freedAt's working storage.
	excl, run, tot, count []int32
	next                  []int
	// reached[m] is the nodes freed by the first cps[m] releases
	// (release count at most that), made as far as asked (reachedTo).
	// cps starts at 0 and ends at the number of releases; between two
	// of its counts the releases free about reachNodes nodes (or one
	// release frees more), so that a walk from one reached set to the
	// next visits few nodes.
	reached []bitset.Set
	cps     []int
}

// reachNodes is about how many nodes the releases between two of a
// freeOrder's reached sets free (tests lower it).
var reachNodes = 32

// checkpoints sets cps for n releases.
func (o *freeOrder) checkpoints(n int) {
	o.cps = append(o.cps[:0], 0)
	freed := 0
	for c := 1; c <= n; c++ {
		freed += o.at[c+1] - o.at[c]
		if freed >= reachNodes || c == n {
			o.cps = append(o.cps, c)
			freed = 0
		}
	}
}

// reachedTo is reached[m], made (with those after freedNow's reached[0])
// if need be; the storage of an earlier state's sets is reused.
func (o *freeOrder) reachedTo(m, words int) bitset.Set {
	for k := len(o.reached); k <= m; k++ {
		b := o.reachedStore(k, words)
		b.Copy(o.reached[k-1])
		for _, id := range o.nodes[o.at[o.cps[k-1]+1]:o.at[o.cps[k]+1]] {
			b.Add(id)
		}
		o.reached = append(o.reached, b)
	}
	return o.reached[m]
}

// reachedStore is storage of words words for reached[k], len(o.reached)
// being k: an earlier state's set's, if any.
func (o *freeOrder) reachedStore(k, words int) bitset.Set {
	var b bitset.Set
	if k < cap(o.reached) {
		b = o.reached[:k+1][k]
	}
	if len(b) != words {
		b = make(bitset.Set, words)
	}
	return b
}

// chain is the release chain of the current state, rebuilt when the state
// changed since it was made.
func (p *Plugin) chain() *releaseChain {
	if c := p.rel; c != nil && c.base == p.st && c.gen == p.st.gen {
		return c
	}
	st := p.st
	c := p.rel
	if c == nil || len(c.marked) != (p.cl.N+63)/64 {
		c = &releaseChain{scratch: &state{}, marked: bitset.New(p.cl.N), freed: map[int]*freeOrder{}}
	}
	// The answers stay, to be checked against the changes when asked
	// again, when the jobs started and ended since are all the changes;
	// the running jobs then follow them, each in or out of the order.
	running := c.running
	if c.base == st && p.logSt == st && p.logGen == st.gen && len(c.changes)+len(p.changed) <= changeLimit {
		c.changes = append(c.changes, p.changed...)
		for _, j := range p.changed {
			if i, found := slices.BinarySearchFunc(running, j, byEnd); found {
				running = slices.Delete(running, i, i+1)
			} else {
				running = slices.Insert(running, i, j)
			}
		}
	} else {
		c.changes = c.changes[:0]
		c.memo.Reset()
		running = running[:0]
		for _, j := range st.jobs {
			running = append(running, j)
		}
		slices.SortFunc(running, byEnd)
	}
	clear(p.changed)
	p.changed, p.logSt, p.logGen = p.changed[:0], st, st.gen
	// The last chain's storage is reused: a replay changes the state
	// thousands of times, and the chains were most of its allocations.
	c.base, c.gen, c.running, c.copied = st, st.gen, running, false
	clear(c.marked)
	c.touched = c.touched[:0]
	for _, o := range c.freed {
		o.stale = true
	}
	p.rel = c
	return c
}

// byEnd orders running jobs as _will_run_test releases them: by end,
// then id.
func byEnd(a, b *record) int {
	switch {
	case a.end < b.end:
		return -1
	case a.end > b.end:
		return 1
	}
	return cmpU32(a.id, b.id)
}

// changeLimit bounds the changes a chain checks its answers against;
// past it the answers are forgotten.
const changeLimit = 1 << 10

// noteChange logs j, started or ended on st (from generation gen), when
// the log holds every change of st since the chain was made.
func (p *Plugin) noteChange(st *state, gen uint64, j *record) {
	if p.logSt == st && p.logGen == gen {
		p.changed = append(p.changed, j)
		p.logGen = st.gen
	}
}

// holds reports whether a, remembered for candidates cand, is still the
// answer after the changes since a.Checked. A change's job j holds or
// held nodes whose fit changes; no other node's does. The answer is the
// first release k after which the candidates that fit, F(k), pass the
// best fit (a failure: none does), and j's start or end changes F only
// on j's nodes: before j's release they lose nodes to j (a start) or
// gain j's (an end), and from it on they are the old ones (shifted by
// one release). So an answer on candidates without j's nodes holds. An
// answer after j's release (a later end: the chain's order is by end,
// then id; a failure) holds too when a smaller set fails wherever a
// larger one did (a.Monotone; jobTest is not so in general): the sets
// before j's release are then smaller than ones the walk failed on
// (without j: F(k); with j gone: F at j's old release), the sets after
// it are the old ones, and the answer's is the same set at the same end.
func (c *releaseChain) holds(a *job.Answer, cand bitset.Set) bool {
	for _, j := range c.changes[a.Checked:] {
		if a.Monotone && (a.Err != nil || a.End != job.FitsNow && a.End > j.end) {
			continue
		}
		for _, id := range j.nodes {
			if cand.Has(id) {
				return false
			}
		}
	}
	return true
}

// books makes the scratch books base's, if not yet done for this state
// (only tests with consumable memory release jobs on them).
func (c *releaseChain) books() {
	if c.copied {
		return
	}
	s, st := c.scratch, c.base
	s.mem, s.excl, s.run, s.tot = append(s.mem[:0], st.mem...), append(s.excl[:0], st.excl...), append(s.run[:0], st.run...), append(s.tot[:0], st.tot...)
	c.copied = true
}

// release takes j off the scratch books as state.remove(j, true) does.
func (c *releaseChain) release(j *record) {
	s := c.scratch
	for i, id := range j.nodes {
		if !c.marked.Has(id) {
			c.marked.Add(id)
			c.touched = append(c.touched, id)
		}
		if !j.suspended {
			s.run[id]--
			if j.exclusive {
				s.excl[id]--
			}
		}
		s.mem[id] -= j.mem[i]
		s.tot[id]--
	}
}

// reset returns the scratch books to base.
func (c *releaseChain) reset() {
	s, b := c.scratch, c.base
	for _, id := range c.touched {
		s.mem[id], s.excl[id], s.run[id], s.tot[id] = b.mem[id], b.excl[id], b.run[id], b.tot[id]
		c.marked.Del(id)
	}
	c.touched = c.touched[:0]
}

// freedAt is the chain's freeOrder for maxRun, made on first use.
func (p *Plugin) freedAt(c *releaseChain, maxRun int) *freeOrder {
	o := p.freedNow(c, maxRun)
	if !o.full {
		p.freedLater(c, o)
	}
	return o
}

// freedNow is freedAt's order as far as its first reached set, the nodes
// that fit with no release: a test of a start now reads nothing else, and
// about half of the states of a CEA-Curie replay are asked nothing but
// such tests (a job backfilled now; then the next start changes the
// state). freedLater makes the rest when a test needs it.
func (p *Plugin) freedNow(c *releaseChain, maxRun int) *freeOrder {
	o := c.freed[maxRun]
	if o != nil && !o.stale {
		return o
	}
	if o == nil {
		o = &freeOrder{}
	}
	o.stale, o.full, o.maxRun = false, false, maxRun
	// A clean node (no job) fits from the start; only the others, which
	// the running jobs hold, are counted and sorted.
	base := c.base
	o.busy = o.busy[:0]
	for i, w := range base.clean {
		for x := ^w; x != 0; x &= x - 1 {
			id := i<<6 | bits.TrailingZeros64(x)
			if id >= p.cl.N {
				break
			}
			o.busy = append(o.busy, uint32(id))
		}
	}
	// reached[0] is made here, as reachedTo makes it: the clean nodes and
	// the busy ones of release count 0. A busy node held by one running
	// exclusive job alone (every busy node, when every job is exclusive, as
	// on CTC-SP2) is freed by that job's release: single notes that all
	// are, which spares freedLater the books.
	o.reached = o.reached[:0]
	b := o.reachedStore(0, len(base.clean))
	b.Copy(base.clean)
	o.single = true
	for _, id := range o.busy {
		excl, run, tot := base.excl[id], base.run[id], base.tot[id]
		if excl == 1 && run == 1 && tot == 1 {
			continue
		}
		o.single = false
		if excl == 0 && int(run) <= maxRun && int(tot) <= noShareLimit {
			b.Add(id)
		}
	}
	o.reached = append(o.reached, b)
	c.freed[maxRun] = o
	return o
}

// freedLater finishes o, made by freedNow: the release count of each busy
// node, the nodes in release order and the reached sets' checkpoints.
func (p *Plugin) freedLater(c *releaseChain, o *freeOrder) {
	n, maxRun := len(c.running), o.maxRun
	o.at = slices.Grow(o.at[:0], n+3)[:n+3]
	if o.single {
		// Each running job's nodes (increasing) are those of its release.
		o.nodes = o.nodes[:0]
		o.at[0], o.at[1] = 0, 0
		for k, j := range c.running {
			o.nodes = append(o.nodes, j.nodes...)
			o.at[k+2] = len(o.nodes)
		}
		o.checkpoints(n)
		o.full = true
		return
	}
	base := c.base
	o.excl, o.run, o.tot = slices.Grow(o.excl[:0], p.cl.N)[:p.cl.N], slices.Grow(o.run[:0], p.cl.N)[:p.cl.N], slices.Grow(o.tot[:0], p.cl.N)[:p.cl.N]
	o.count = slices.Grow(o.count[:0], p.cl.N)[:p.cl.N]
	excl, run, tot, count := o.excl, o.run, o.tot, o.count
	fits := func(id uint32) bool { return excl[id] == 0 && int(run[id]) <= maxRun && int(tot[id]) <= noShareLimit }
	for _, id := range o.busy {
		excl[id], run[id], tot[id] = base.excl[id], base.run[id], base.tot[id]
		count[id] = int32(n + 1) // never
		if fits(id) {
			count[id] = 0
		}
	}
	for k, j := range c.running {
		for _, id := range j.nodes {
			if !j.suspended {
				run[id]--
				if j.exclusive {
					excl[id]--
				}
			}
			tot[id]--
			if count[id] > int32(k+1) && fits(id) {
				count[id] = int32(k + 1)
			}
		}
	}
	o.nodes = slices.Grow(o.nodes[:0], len(o.busy))[:len(o.busy)]
	clear(o.at)
	for _, id := range o.busy {
		o.at[count[id]+1]++
	}
	for k := 1; k < len(o.at); k++ {
		o.at[k] += o.at[k-1]
	}
	o.next = append(o.next[:0], o.at...)
	next := o.next
	for _, id := range o.busy {
		k := count[id]
		o.nodes[next[k]] = id
		next[k]++
	}
	o.checkpoints(n)
	o.full = true
}

// willRun is _will_run_test (reference §1.5): willRunPlain's answer without
// its copy. With preemption it is willRunPlain.
func (p *Plugin) willRun(r *job.Request, cand bitset.Set, now int64) (*job.Allocation, error) {
	if r.Preempts(p.cfg.Preempt) {
		return p.willRunPlain(r, cand, now)
	}
	out, total, end, err := p.willRunFit(r, cand)
	if err != nil {
		return nil, err
	}
	return p.allocation(r, out, total, job.StartAt(end, now), nil), nil
}

// willRunFit is willRun without preemption, whose answer depends on now
// only through its start: the nodes (in scratch), their CPUs, and the end
// of the running job whose release lets the job run (job.FitsNow if none is
// needed). The candidates that pass countBitmap only grow as jobs are
// released, and only on the nodes of the released job, so they are kept
// up to date a node at a time instead of recounted (from the chain's
// release counts when memory is not consumable, else on scratch books);
// the best fit reads nothing else of the state.
func (p *Plugin) willRunFit(r *job.Request, cand bitset.Set) (bitset.Set, int, int64, error) {
	maxRun := max(p.maxShare(r)-1, 1)
	minN, maxN, reqN := r.NodeCounts(cand.Count())
	w := new(p.wantOf(r, minN))
	f := p.buf(bufFilter)
	out := p.buf(bufOut)
	if !p.cfg.TrackMemory && !slowScan && p.emptyNodesFit(r, job.RunNow) {
		return p.willRunReach(maxRun, w, cand, f, out, minN, maxN, reqN)
	}
	count := p.countBitmap(p.st, r, cand, f, maxRun, noShareLimit, job.RunNow)
	if count >= minN {
		if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
			return out, total, job.FitsNow, nil
		}
	}
	c := p.chain()
	cpt := r.CPUsPerTaskOr1()
	if !p.cfg.TrackMemory {
		// Without consumable memory a node passes from the release that
		// frees it on: no books to keep.
		o := p.freedAt(c, maxRun)
		for k, j := range c.running {
			for _, id := range o.nodes[o.at[k+1]:o.at[k+2]] {
				if cand.Has(id) && !f.Has(id) && p.staticFits(r, id, cpt) {
					f.Add(id)
					count++
				}
			}
			if count < minN {
				continue
			}
			if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
				return out, total, j.end, nil
			}
		}
		return nil, 0, 0, errNeverFits
	}
	c.books()
	defer c.reset()
	for _, j := range c.running {
		c.release(j)
		for _, id := range j.nodes {
			if cand.Has(id) && !f.Has(id) && p.nodeFits(c.scratch, r, id, cpt, maxRun, noShareLimit, job.RunNow) {
				f.Add(id)
				count++
			}
		}
		if count < minN {
			continue
		}
		if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
			return out, total, j.end, nil
		}
	}
	return nil, 0, 0, errNeverFits
}

// willRunReach is willRunFit when every candidate passes the static
// checks (emptyNodesFit; memory not consumable): the candidates that pass
// countBitmap after k releases are then cand and the nodes of release
// count at most k (the chain's freeOrder for maxRun), so f is made from
// the reached sets, first for no release (the test of a start now), and
// the walk starts at the last reached set that holds too few candidates,
// found by binary search, instead of at the first release. A release
// that adds no candidate is not tested again: the best fit reads nothing
// but f; nor is one that leaves fewer candidates than countThreshold.
func (p *Plugin) willRunReach(maxRun int, w *want, cand, f, out bitset.Set, minN, maxN, reqN int) (bitset.Set, int, int64, error) {
	c := p.chain()
	o := p.freedNow(c, maxRun)
	n := len(c.running)
	lo, hi := cand.Span()
	words := len(cand)
	// need is the fewest candidates the best fit may succeed on: minN,
	// or more when its answer is a matter of count alone.
	need := minN
	if t, ok := p.countThreshold(w, minN, maxN, reqN); ok {
		need = t
	}
	f.Copy(cand)
	f.And(o.reachedTo(0, words))
	count := f.Count()
	if count >= need {
		if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
			if !o.full {
				c.early++
			}
			return out, total, job.FitsNow, nil
		}
	}
	if !o.full {
		p.freedLater(c, o)
	}
	enough := func(m int) bool { return cand.AndCount(o.reachedTo(m, words), lo, hi) >= need }
	// The first reached set with enough candidates: among those made, by
	// binary search, else by making more.
	m := sort.Search(len(o.reached), enough)
	if m == len(o.reached) {
		last := len(o.cps) - 1
		for m <= last && !enough(m) {
			m++
		}
		if m > last {
			return nil, 0, 0, errNeverFits
		}
	}
	from := 0
	if m > 0 {
		from = o.cps[m-1]
		f.Copy(cand)
		f.And(o.reached[m-1])
		count = f.Count()
	}
	for k := from; k < n; k++ {
		added := false
		for _, id := range o.nodes[o.at[k+1]:o.at[k+2]] {
			if cand.Has(id) {
				f.Add(id)
				count++
				added = true
			}
		}
		if !added || count < need {
			continue
		}
		if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
			return out, total, c.running[k].end, nil
		}
	}
	return nil, 0, 0, errNeverFits
}

// errNeverFits is will-run's answer for a job that does not fit even when
// every running job has ended.
var errNeverFits = &job.Unsatisfied{Reason: "does not fit even after every running job ends"}

// noMemo disables the will-run memo, for differential tests.
var noMemo = false

// willRunMemo is willRunFitAll at now, remembered while the plugin's jobs
// do not change: a backfill pass asks the same shapes on the same
// candidates round after round, and pass after pass until a job starts or
// ends. The answer's nodes must not be changed.
func (p *Plugin) willRunMemo(r *job.Request, all bitset.Set, now int64) (int64, bitset.Set, int, error) {
	if noMemo || !r.Shaped() {
		out, total, end, err := p.willRunFitAll(r, all)
		return job.StartAt(end, now), out, total, err
	}
	c := p.chain()
	// The sharing the partition allows is read from the cluster, which
	// may change under the chain. Linear reads no PlanEnd (its answers
	// are ends of running jobs), so a job's later rounds on the same
	// candidates get its first round's answer.
	share := p.maxShare(r)
	a, h, ok := c.memo.Get(r, 0, share, all)
	if ok && a.Checked != len(c.changes) {
		ok = c.holds(a, all)
		if ok {
			c.carried++
		}
	}
	if ok {
		a.Checked = len(c.changes)
		return job.StartAt(a.End, now), a.Nodes, a.CPUs, a.Err
	}
	out, total, end, err := p.willRunFitAll(r, all)
	b := job.Answer{Nodes: out, CPUs: total, End: end, Err: err, Monotone: p.countDecides(new(p.wantOf(r, 0))), Checked: len(c.changes)}
	if a != nil {
		c.memo.Replace(a, b)
	} else {
		a = c.memo.Put(h, r, 0, share, all, b)
	}
	return job.StartAt(end, now), a.Nodes, total, err
}
