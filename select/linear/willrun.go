package linear

import (
	"slices"

	"github.com/nodesift/sift/select/internal/bits"
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
	marked  bits.Set
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
		marked:  bits.New(p.cl.N)}
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

// willRun is _will_run_test (reference §1.5): willRunPlain's answer without
// its copy. The candidates that pass countBitmap only grow as jobs are
// released, and only on the nodes of the released job, so they are kept
// up to date a node at a time instead of recounted; the best fit reads
// nothing else of the state. With preemption it is willRunPlain.
func (p *Plugin) willRun(r *job.Request, cand bits.Set, now int64) (*job.Allocation, error) {
	if p.cfg.Preempt {
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
	defer c.reset()
	cpt := r.CPUsPerTaskOr1()
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
