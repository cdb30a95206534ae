package linear

import (
	"errors"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// Begin implements job.Plugin: it preempts a.Preempted, then charges r to
// a's nodes. It refuses, changing nothing, a job id already held or nodes
// that cannot take the job now.
func (p *Plugin) Begin(r *job.Request, a *job.Allocation) error {
	fail := func(err error) error { return lifecycleError("begin", r.ID, err) }
	if _, dup := p.st.jobs[r.ID]; dup {
		return fail(errors.New("already running"))
	}
	if a == nil || a.Nodes == nil || a.Nodes.IsEmpty() {
		return fail(errors.New("empty allocation"))
	}
	exp := p.st
	if len(a.Preempted) > 0 {
		exp = p.st.dup()
	}
	for _, v := range a.Preempted {
		j, ok := exp.jobs[v]
		if !ok {
			return fail(fmt.Errorf("preempted job %d: %w", v, job.ErrNoJob))
		}
		exp.remove(j, p.cfg.PreemptMode != job.Suspend)
		if p.cfg.PreemptMode == job.Suspend {
			sj := j.clone()
			sj.suspended = true
			exp.jobs[v] = sj
		}
	}
	want := bitset.FromRoaring(a.Nodes, p.cl.N)
	if want.Count() != int(a.Nodes.GetCardinality()) {
		return fail(errors.New("allocation names nodes outside the cluster"))
	}
	got := bitset.New(p.cl.N)
	p.countBitmap(exp, r, want, got, p.maxShare(r)-1, noShareLimit, job.RunNow)
	okNodes := want.Clone()
	okNodes.And(p.usable)
	got.And(okNodes)
	if got.Count() != want.Count() && (!p.gang || !want.SubsetOf(p.usable)) {
		return fail(errors.New("a node is unusable or already allocated"))
	}
	rec := &record{id: r.ID, exclusive: p.maxShare(r) <= 1, contiguous: r.Contiguous,
		preemptable: r.Preemptable, priority: r.Priority, start: a.Start, end: endOf(a.Start, r.TimeLimit)}
	want.Each(func(id uint32) bool {
		rec.nodes = append(rec.nodes, id)
		rec.mem = append(rec.mem, p.jobMem(r, int(id)))
		rec.totalCPUs += p.cl.CPUs[id]
		return true
	})
	gen := exp.gen
	exp.add(rec)
	p.noteChange(exp, gen, rec)
	p.st = exp
	return nil
}

// Fini implements job.Plugin.
func (p *Plugin) Fini(id uint32) error {
	j, ok := p.st.jobs[id]
	if !ok {
		return lifecycleError("fini", id, job.ErrNoJob)
	}
	gen := p.st.gen
	p.st.remove(j, true)
	p.noteChange(p.st, gen, j)
	return nil
}

// Suspend implements job.Plugin: the job keeps its memory and its place in
// the total job count but no longer counts as running.
func (p *Plugin) Suspend(id uint32) error {
	j, ok := p.st.jobs[id]
	if !ok {
		return lifecycleError("suspend", id, job.ErrNoJob)
	}
	if j.suspended {
		return lifecycleError("suspend", id, errors.New("already suspended"))
	}
	p.st.remove(j, false)
	j.suspended = true
	return nil
}

// Resume implements job.Plugin.
func (p *Plugin) Resume(id uint32) error {
	j, ok := p.st.jobs[id]
	if !ok {
		return lifecycleError("resume", id, job.ErrNoJob)
	}
	if !j.suspended {
		return lifecycleError("resume", id, errors.New("not suspended"))
	}
	for _, n := range j.nodes {
		if p.st.excl[n] != 0 || (j.exclusive && p.st.run[n] != 0) {
			return lifecycleError("resume", id, fmt.Errorf("node %d is in use", n))
		}
	}
	// A change will-run's release chain and memos must see.
	p.st.gen++
	for _, n := range j.nodes {
		p.st.run[n]++
		if j.exclusive {
			p.st.excl[n]++
		}
		p.st.touch(n)
	}
	j.suspended = false
	return nil
}

// Expand implements job.Plugin (select_p_job_expand): job to ends up with
// the nodes and memory of both jobs and job from with nothing.
func (p *Plugin) Expand(from, to uint32) error {
	f, ok1 := p.st.jobs[from]
	t, ok2 := p.st.jobs[to]
	if !ok1 || !ok2 || from == to {
		return lifecycleError("expand", to, job.ErrNoJob)
	}
	if f.suspended || t.suspended {
		return lifecycleError("expand", to, errors.New("cannot expand a suspended job"))
	}
	exp := p.st.dup()
	exp.remove(f, true)
	exp.remove(t, true)
	m := t.clone()
	mem := map[uint32]uint64{}
	for i, n := range t.nodes {
		mem[n] += t.mem[i]
	}
	for i, n := range f.nodes {
		mem[n] += f.mem[i]
	}
	m.nodes = m.nodes[:0]
	for n := range mem {
		m.nodes = append(m.nodes, n)
	}
	slices.Sort(m.nodes)
	m.mem = m.mem[:0]
	m.totalCPUs = 0
	for _, n := range m.nodes {
		m.mem = append(m.mem, mem[n])
		m.totalCPUs += p.cl.CPUs[n]
		if m.exclusive && exp.run[n] > 0 {
			// The exclusive job would share a node that job from shared.
			return lifecycleError("expand", to, fmt.Errorf("node %d runs other jobs", n))
		}
	}
	exp.add(m)
	p.st = exp
	return nil
}

// Resize implements job.Plugin: node leaves job id's allocation.
func (p *Plugin) Resize(id, node uint32) error {
	j, ok := p.st.jobs[id]
	if !ok {
		return lifecycleError("resize", id, job.ErrNoJob)
	}
	i, found := slices.BinarySearch(j.nodes, node)
	if !found {
		return lifecycleError("resize", id, fmt.Errorf("node %d is not in the job", node))
	}
	if len(j.nodes) == 1 {
		return lifecycleError("resize", id, errors.New("cannot remove the last node; use fini"))
	}
	p.st.remove(j, true)
	n := j.clone()
	n.nodes = slices.Delete(n.nodes, i, i+1)
	n.mem = slices.Delete(n.mem, i, i+1)
	n.totalCPUs -= p.cl.CPUs[node]
	p.st.add(n)
	return nil
}

// Reserve implements job.Plugin: n whole nodes free of jobs, chosen by the
// same best fit and weight order as a job asking for exactly n nodes.
func (p *Plugin) Reserve(n int, cand *roaring.Bitmap) (*roaring.Bitmap, error) {
	if n <= 0 {
		return nil, &job.Unsatisfied{Never: true, Reason: "a reservation needs at least one node"}
	}
	r := &job.Request{MinNodes: n, MaxNodes: n, ReqNodes: n, Exclusive: true}
	c := bitset.FromRoaring(cand, p.cl.N)
	c.And(p.usable)
	a, err := p.runNowTiers(r, c, 0)
	if err != nil {
		return nil, err
	}
	return a.Nodes, nil
}

// Jobs implements job.Plugin.
func (p *Plugin) Jobs() []uint32 {
	ids := make([]uint32, 0, len(p.st.jobs))
	for id := range p.st.jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Held implements job.Plugin.
func (p *Plugin) Held() []job.Held {
	jobs := p.st.sortedJobs()
	out := make([]job.Held, len(jobs))
	for i, j := range jobs {
		out[i] = job.Held{ID: j.id, Nodes: slices.Clone(j.nodes), Start: j.start, End: j.end, Suspended: j.suspended}
	}
	return out
}

// lifecycleError reports a refused lifecycle call of this plugin.
func lifecycleError(op string, id uint32, err error) error {
	return &job.LifecycleError{Plugin: "linear", Op: op, Job: id, Err: err}
}
