package constres

import (
	"errors"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

func nodesOf(ids []uint32) *roaring.Bitmap { return roaring.BitmapOf(ids...) }

// coreBits marks rec's cores in a core bitset.
func (p *Plugin) coreBits(rec *record) bitset.Set {
	s := bitset.New(p.totalCores())
	for i, id := range rec.nodes {
		for _, c := range rec.cores[i] {
			s.Add(uint32(p.coreOff[id] + c))
		}
	}
	return s
}

// place puts rec's cores in the first row of its partition they do not
// overlap (job_res_add_job), a new row if the partition has one left.
// Jobs that do not share may overlap no row of any partition (after
// SetGang(true), of their own only).
func (p *Plugin) place(st *state, rec *record, restoring bool) error {
	st.gen++
	cb := p.coreBits(rec)
	if rec.nodeReq != crAvailable && !p.gang {
		for _, pr := range st.parts {
			for _, row := range pr.rows {
				if row.Intersects(cb) {
					return errors.New("a core is already allocated")
				}
			}
		}
	}
	pr := st.parts[rec.partition]
	if pr == nil {
		pr = &partRows{}
		st.parts[rec.partition] = pr
	}
	row := -1
	if rec.row >= 0 && restoring {
		// A restored job goes back to its own row.
		if rec.row >= p.numRows(rec.partition) {
			return fmt.Errorf("row %d beyond the partition's %d", rec.row, p.numRows(rec.partition))
		}
		for len(pr.rows) <= rec.row {
			pr.rows = append(pr.rows, bitset.New(p.totalCores()))
			pr.jobs = append(pr.jobs, 0)
		}
		if pr.rows[rec.row].Intersects(cb) {
			return errors.New("two jobs of one row share a core")
		}
		row = rec.row
	}
	for i, rw := range pr.rows {
		if row != -1 {
			break
		}
		if !rw.Intersects(cb) {
			row = i
		}
	}
	if row == -1 {
		if len(pr.rows) >= p.numRows(rec.partition) {
			return errors.New("every row of the partition already holds one of these cores")
		}
		pr.rows = append(pr.rows, bitset.New(p.totalCores()))
		pr.jobs = append(pr.jobs, 0)
		row = len(pr.rows) - 1
	}
	pr.rows[row].Or(cb)
	pr.jobs[row]++
	rec.row = row
	return nil
}

// unplace clears rec's cores from its row.
func (p *Plugin) unplace(st *state, rec *record) {
	st.gen++
	pr := st.parts[rec.partition]
	if pr == nil || rec.row >= len(pr.rows) {
		return
	}
	row := pr.rows[rec.row]
	for i, id := range rec.nodes {
		for _, c := range rec.cores[i] {
			row.Del(uint32(p.coreOff[id] + c))
		}
	}
	pr.jobs[rec.row]--
}

// addJob charges rec to st, or changes nothing and fails. A restoring add
// keeps the job's row and leaves the sharing-mode test to the caller, since
// it depends on the order jobs started in.
func (p *Plugin) addJob(st *state, rec *record, restoring bool) error {
	st.gen++
	for i, id := range rec.nodes {
		if p.cfg.TrackMemory && st.mem[id]+rec.mem[i] > p.cl.MemoryMB[id] {
			return fmt.Errorf("node %d lacks memory", id)
		}
		for k, g := range rec.gpus[i] {
			used := 0
			if st.gpus[id] != nil {
				used = st.gpus[id][k]
			}
			if used+g > int(p.cl.GPUs[id][k].Count) {
				return fmt.Errorf("node %d lacks GPUs", id)
			}
		}
	}
	if !rec.suspended {
		for _, id := range rec.nodes {
			if !restoring && !p.gang && !p.stateAllows(st, rec.nodeReq, rec.partition, id) {
				return fmt.Errorf("node %d runs jobs that do not allow this job's sharing mode", id)
			}
		}
		if err := p.place(st, rec, restoring); err != nil {
			return err
		}
	}
	for i, id := range rec.nodes {
		st.mem[id] += rec.mem[i]
		if len(rec.gpus[i]) > 0 {
			if st.gpus[id] == nil {
				st.gpus[id] = make([]int, len(p.cl.GPUs[id]))
			}
			for k, g := range rec.gpus[i] {
				st.gpus[id][k] += g
			}
		}
		if !rec.suspended {
			p.chargeNode(st, rec, id, 1)
		}
	}
	st.jobs[rec.id] = rec
	return nil
}

func (p *Plugin) chargeNode(st *state, rec *record, id uint32, sign int32) {
	st.gen++
	st.nodeReq[id] += sign * rec.nodeReq
	st.jobCnt[id] += sign
	if rec.nodeReq == crAvailable {
		st.shareCnt[id] += sign
		if st.sharePart[id] == nil {
			st.sharePart[id] = map[string]int32{}
		}
		st.sharePart[id][rec.partition] += sign
		if st.sharePart[id][rec.partition] == 0 {
			delete(st.sharePart[id], rec.partition)
		}
	}
}

// removeJob releases rec from st; with all false (suspension) the memory
// and GPUs stay charged and the job stays listed.
func (p *Plugin) removeJob(st *state, rec *record, all bool) {
	st.gen++
	if !rec.suspended {
		p.unplace(st, rec)
		for _, id := range rec.nodes {
			p.chargeNode(st, rec, id, -1)
		}
	}
	if !all {
		return
	}
	for i, id := range rec.nodes {
		st.mem[id] -= rec.mem[i]
		for k, g := range rec.gpus[i] {
			st.gpus[id][k] -= g
		}
	}
	delete(st.jobs, rec.id)
}

// splitGPUs spreads n GPUs of type typ over node id's GPU entries, first
// entries first, within what st leaves free.
func (p *Plugin) splitGPUs(st *state, id uint32, typ string, n int) ([]int, bool) {
	if n == 0 {
		return nil, true
	}
	out := make([]int, len(p.cl.GPUs[id]))
	for k, g := range p.cl.GPUs[id] {
		if typ != "" && g.Type != typ {
			continue
		}
		free := int(g.Count)
		if st.gpus[id] != nil {
			free -= st.gpus[id][k]
		}
		t := min(free, n)
		out[k] = t
		n -= t
	}
	return out, n == 0
}

// Begin implements job.Plugin: it preempts a.Preempted, then charges r's
// cores, memory and GPUs as a lists them. It refuses, changing nothing, a
// job id already held or resources already taken.
func (p *Plugin) Begin(r *job.Request, a *job.Allocation) error {
	fail := func(err error) error { return lifecycleError("begin", r.ID, err) }
	if _, dup := p.st.jobs[r.ID]; dup {
		return fail(errors.New("already running"))
	}
	if a == nil || len(a.PerNode) == 0 {
		return fail(errors.New("empty allocation"))
	}
	exp := p.st
	if len(a.Preempted) > 0 {
		// Preemption is tried on a copy, so a refusal changes nothing.
		exp = p.st.dup()
	}
	for _, v := range a.Preempted {
		j, ok := exp.jobs[v]
		if !ok {
			return fail(fmt.Errorf("preempted job %d: %w", v, job.ErrNoJob))
		}
		if p.cfg.PreemptMode == job.Suspend {
			p.removeJob(exp, j, false)
			sj := *j
			sj.suspended = true
			exp.jobs[v] = &sj
		} else {
			p.removeJob(exp, j, true)
		}
	}
	rec := &record{id: r.ID, partition: r.Partition, nodeReq: p.nodeReqOf(r), preemptable: r.Preemptable,
		priority: r.Priority, start: a.Start, end: endOf(r, a.Start)}
	nodes := bitset.New(p.cl.N)
	for i, na := range a.PerNode {
		if int(na.ID) >= p.cl.N || !p.usable.Has(na.ID) {
			return fail(fmt.Errorf("node %d is not usable", na.ID))
		}
		if i > 0 && na.ID <= rec.nodes[i-1] {
			return fail(errors.New("nodes must be listed once, in increasing order"))
		}
		for k, c := range na.Cores {
			if c < 0 || c >= p.cl.Cores(na.ID) || (k > 0 && c <= na.Cores[k-1]) {
				return fail(fmt.Errorf("node %d: core %d is unknown or out of order", na.ID, c))
			}
		}
		if len(na.Cores) == 0 {
			return fail(fmt.Errorf("node %d: no cores", na.ID))
		}
		g, ok := p.splitGPUs(exp, na.ID, r.GPUType, na.GPUs)
		if !ok {
			return fail(fmt.Errorf("node %d lacks GPUs", na.ID))
		}
		nodes.Add(na.ID)
		rec.nodes = append(rec.nodes, na.ID)
		rec.cores = append(rec.cores, slices.Clone(na.Cores))
		rec.cpus = append(rec.cpus, na.CPUs)
		rec.mem = append(rec.mem, na.MemoryMB)
		rec.gpus = append(rec.gpus, g)
	}
	if !p.gang && !p.verifyShare(exp, p.nodeReqOf(r), r.Partition, nodes) {
		return fail(errors.New("a node's jobs do not allow this job's sharing mode"))
	}
	if err := p.addJob(exp, rec, false); err != nil {
		return fail(err)
	}
	p.st = exp
	return nil
}

// verifyShare applies the node-state part of _verify_node_state, for a job
// of node requirement req in partition part, to every node of s.
func (p *Plugin) verifyShare(st *state, req int32, part string, s bitset.Set) bool {
	ok := true
	s.Each(func(id uint32) bool {
		ok = p.stateAllows(st, req, part, id)
		return ok
	})
	return ok
}

// stateAllows is the node-state test of _verify_node_state: an exclusive
// job needs a node without jobs; a node running a non-sharing job takes
// only non-sharing jobs; a non-sharing job avoids nodes running sharing jobs
// of other sharing partitions (_is_node_busy with sharing_only).
func (p *Plugin) stateAllows(st *state, req int32, part string, id uint32) bool {
	switch ns := st.nodeReq[id]; {
	case ns >= crReserved:
		return false
	case ns >= crOneRow:
		return req == crOneRow && !p.sharesElsewhere(st, id, part)
	case req == crReserved:
		return st.jobCnt[id] == 0
	case req == crOneRow:
		return !p.sharesElsewhere(st, id, part)
	}
	return true
}

// sharesElsewhere reports whether node id runs sharing jobs of a partition
// other than part that has more than one row.
func (p *Plugin) sharesElsewhere(st *state, id uint32, part string) bool {
	for q, n := range st.sharePart[id] {
		if n > 0 && q != part && p.numRows(q) > 1 {
			return true
		}
	}
	return false
}

// Fini implements job.Plugin.
func (p *Plugin) Fini(id uint32) error {
	j, ok := p.st.jobs[id]
	if !ok {
		return lifecycleError("fini", id, job.ErrNoJob)
	}
	p.removeJob(p.st, j, true)
	return nil
}

// Suspend implements job.Plugin: the job's cores are released, its memory
// and GPUs stay allocated.
func (p *Plugin) Suspend(id uint32) error {
	j, ok := p.st.jobs[id]
	if !ok {
		return lifecycleError("suspend", id, job.ErrNoJob)
	}
	if j.suspended {
		return lifecycleError("suspend", id, errors.New("already suspended"))
	}
	p.removeJob(p.st, j, false)
	j.suspended = true
	return nil
}

// Resume implements job.Plugin; it fails, changing nothing, when the job's
// cores were taken meanwhile.
func (p *Plugin) Resume(id uint32) error {
	j, ok := p.st.jobs[id]
	if !ok {
		return lifecycleError("resume", id, job.ErrNoJob)
	}
	if !j.suspended {
		return lifecycleError("resume", id, errors.New("not suspended"))
	}
	s := bitset.New(p.cl.N)
	for _, n := range j.nodes {
		s.Add(n)
	}
	if !p.verifyShare(p.st, j.nodeReq, j.partition, s) {
		return lifecycleError("resume", id, errors.New("its nodes are in use"))
	}
	j.suspended = false
	if err := p.place(p.st, j, false); err != nil {
		j.suspended = true
		return lifecycleError("resume", id, err)
	}
	for _, n := range j.nodes {
		p.chargeNode(p.st, j, n, 1)
	}
	return nil
}

// Expand implements job.Plugin: job to ends up with the cores, memory and
// GPUs of both jobs and job from with nothing.
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
	p.removeJob(exp, f, true)
	p.removeJob(exp, t, true)
	m := &record{id: t.id, partition: t.partition, nodeReq: t.nodeReq, preemptable: t.preemptable, priority: t.priority, start: t.start, end: t.end}
	at := map[uint32]int{}
	for _, src := range []*record{t, f} {
		for i, id := range src.nodes {
			k, ok := at[id]
			if !ok {
				k = len(m.nodes)
				at[id] = k
				m.nodes = append(m.nodes, id)
				m.cores = append(m.cores, nil)
				m.cpus = append(m.cpus, 0)
				m.mem = append(m.mem, 0)
				m.gpus = append(m.gpus, make([]int, len(p.cl.GPUs[id])))
			}
			m.cores[k] = append(m.cores[k], src.cores[i]...)
			m.cpus[k] += src.cpus[i]
			m.mem[k] += src.mem[i]
			for g, c := range src.gpus[i] {
				m.gpus[k][g] += c
			}
		}
	}
	sortRecord(m)
	ns := bitset.New(p.cl.N)
	for _, id := range m.nodes {
		ns.Add(id)
	}
	if !p.verifyShare(exp, m.nodeReq, m.partition, ns) {
		return lifecycleError("expand", to, errors.New("a node's other jobs do not allow the merged job's sharing mode"))
	}
	if err := p.addJob(exp, m, false); err != nil {
		return lifecycleError("expand", to, err)
	}
	p.st = exp
	return nil
}

// sortRecord orders a record's nodes by id, keeping the per-node slices
// aligned, and each node's cores ascending.
func sortRecord(m *record) {
	idx := make([]int, len(m.nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpU32(m.nodes[a], m.nodes[b]) })
	n := &record{}
	for _, i := range idx {
		n.nodes = append(n.nodes, m.nodes[i])
		c := slices.Clone(m.cores[i])
		slices.Sort(c)
		n.cores = append(n.cores, slices.Compact(c))
		n.cpus = append(n.cpus, m.cpus[i])
		n.mem = append(n.mem, m.mem[i])
		n.gpus = append(n.gpus, m.gpus[i])
	}
	m.nodes, m.cores, m.cpus, m.mem, m.gpus = n.nodes, n.cores, n.cpus, n.mem, n.gpus
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
	exp := p.st.dup()
	p.removeJob(exp, j, true)
	n := *j
	n.nodes = slices.Delete(slices.Clone(j.nodes), i, i+1)
	n.cores = slices.Delete(slices.Clone(j.cores), i, i+1)
	n.cpus = slices.Delete(slices.Clone(j.cpus), i, i+1)
	n.mem = slices.Delete(slices.Clone(j.mem), i, i+1)
	n.gpus = slices.Delete(slices.Clone(j.gpus), i, i+1)
	if err := p.addJob(exp, &n, false); err != nil {
		return lifecycleError("resize", id, err)
	}
	p.st = exp
	return nil
}

// Reserve implements job.Plugin: n whole nodes free of jobs, chosen like an
// exclusive job asking for exactly n nodes.
func (p *Plugin) Reserve(n int, cand *roaring.Bitmap) (*roaring.Bitmap, error) {
	if n <= 0 {
		return nil, errorf(true, "a reservation needs at least one node")
	}
	r := &job.Request{MinNodes: n, MaxNodes: n, ReqNodes: n, Exclusive: true, MemPerNodeSet: true}
	c := bitset.FromRoaring(cand, p.cl.N)
	c.And(p.usable)
	pk, _, ok := p.fit(p.st, r, c)
	if !ok {
		return nil, errorf(false, "fewer than %d free nodes", n)
	}
	return nodesOf(pk.nodes), nil
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
	jobs := sortedJobs(p.st)
	out := make([]job.Held, len(jobs))
	for i, j := range jobs {
		out[i] = job.Held{ID: j.id, Nodes: slices.Clone(j.nodes), Start: j.start, End: j.end, Suspended: j.suspended}
	}
	return out
}

// lifecycleError reports a refused lifecycle call of this plugin.
func lifecycleError(op string, id uint32, err error) error {
	return &job.LifecycleError{Plugin: "cons_tres", Op: op, Job: id, Err: err}
}
