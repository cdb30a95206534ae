package linear

import (
	"slices"

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
	// sets) with some jobs released for one test; touched lists the nodes
	// changed, which go back to base's values after the test.
	scratch *state
	touched []uint32
	marked  bitset.Set
	// freed holds, per running-job count a node may share with
	// (maxRun), the nodes in the order releases free them; see freedAt.
	freed map[int]*freeOrder
}

// freeOrder is, for one maxRun, each node's release count: how many of
// running, released in order, leave it without an exclusive job and with
// at most maxRun running jobs (and so passing countBitmap when memory is
// not consumable), and the nodes sorted by it: nodes[at[k]:at[k+1]] are
// those freed by the k-th release.
type freeOrder struct {
	nodes []uint32
	at    []int
}

// chain is the release chain of the current state, rebuilt when the state
// changed since it was made.
func (p *Plugin) chain() *releaseChain {
	if c := p.rel; c != nil && c.base == p.st && c.gen == p.st.gen {
		return c
	}
	running := p.st.sortedJobs()
	slices.SortStableFunc(running, func(a, b *record) int {
		switch {
		case a.end < b.end:
			return -1
		case a.end > b.end:
			return 1
		}
		return 0
	})
	st := p.st
	p.rel = &releaseChain{base: st, gen: st.gen, running: running,
		scratch: &state{mem: slices.Clone(st.mem), excl: slices.Clone(st.excl), run: slices.Clone(st.run), tot: slices.Clone(st.tot)},
		marked:  bitset.New(p.cl.N), freed: map[int]*freeOrder{}}
	return p.rel
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
	if o := c.freed[maxRun]; o != nil {
		return o
	}
	n := len(c.running)
	excl, run, tot := slices.Clone(c.base.excl), slices.Clone(c.base.run), slices.Clone(c.base.tot)
	fits := func(id uint32) bool { return excl[id] == 0 && int(run[id]) <= maxRun && int(tot[id]) <= noShareLimit }
	count := make([]int32, p.cl.N) // release count, n+1: never
	for id := range count {
		count[id] = int32(n + 1)
		if fits(uint32(id)) {
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
	o := &freeOrder{nodes: make([]uint32, p.cl.N), at: make([]int, n+3)}
	for _, k := range count {
		o.at[k+1]++
	}
	for k := 1; k < len(o.at); k++ {
		o.at[k] += o.at[k-1]
	}
	next := slices.Clone(o.at)
	for id, k := range count {
		o.nodes[next[k]] = uint32(id)
		next[k]++
	}
	c.freed[maxRun] = o
	return o
}

// willRun is _will_run_test (reference §1.5): willRunPlain's answer without
// its copy. The candidates that pass countBitmap only grow as jobs are
// released, and only on the nodes of the released job, so they are kept
// up to date a node at a time instead of recounted (from the chain's
// release counts when memory is not consumable, else on scratch books);
// the best fit reads nothing else of the state. With preemption it is
// willRunPlain.
func (p *Plugin) willRun(r *job.Request, cand bitset.Set, now int64) (*job.Allocation, error) {
	if r.Preempts(p.cfg.Preempt) {
		return p.willRunPlain(r, cand, now)
	}
	maxRun := max(p.maxShare(r)-1, 1)
	minN, maxN, reqN := r.NodeCounts(cand.Count())
	w := p.wantOf(r, minN)
	f := p.buf(bufFilter)
	out := p.buf(bufOut)
	count := p.countBitmap(p.st, r, cand, f, maxRun, noShareLimit, job.RunNow)
	if count >= minN {
		if total, ok := p.jobTest(w, f, out, minN, maxN, reqN); ok {
			return p.allocation(r, out, total, now, nil), nil
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
				return p.allocation(r, out, total, max(j.end, now+1), nil), nil
			}
		}
		return nil, &job.Unsatisfied{Reason: "does not fit even after every running job ends"}
	}
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
			return p.allocation(r, out, total, max(j.end, now+1), nil), nil
		}
	}
	return nil, &job.Unsatisfied{Reason: "does not fit even after every running job ends"}
}
