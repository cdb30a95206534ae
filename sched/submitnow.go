package sched

import "cmp"

// AllocateAtSubmit is job_allocate's attempt when a job is submitted: a
// pending job that is independent, passes its partition's limits and is
// top priority (_top_priority: no eligible pending job of a higher
// PriorityTier, or of the same tier and higher precedence, in a partition
// sharing nodes with its own) is selected at once, as select_nodes does,
// preemption included; any other waits for a pass. p collects what
// happened.
func (q *Queue) AllocateAtSubmit(id uint32, now int64, p *Pass) {
	q.releaseCompleting(now)
	// Its tests write what the main pass reads outside the reason count
	// (the job's partition, its eligible time).
	q.mainLast.ok = false
	e, ok := q.jobs[id]
	if !ok || e.j.State != Pending || e.j.Priority == 0 {
		return
	}
	j := e.j
	if !q.runnable1(e, now) {
		return
	}
	part := j.Partitions[0]
	if !q.runnable2(e, part, q.opt.Partitions[part], false) {
		return
	}
	if !q.topPriority(e, part, now) {
		if j.Reason == ReasonNone {
			j.setReason(ReasonPriority, "")
		}
		return
	}
	if q.opt.Limits != nil {
		if ok, reason, detail := q.opt.Limits.PreSelect(j, now); !ok {
			j.setReason(reason, detail)
			return
		}
	}
	j.Partition = part
	if q.startNow(e, part, q.cl.Usable.Clone(), now, limitSeconds(e.part(part).req.TimeLimit), p) == started {
		p.Started = append(p.Started, id)
	}
}

// topPriority is _top_priority for e's job in part.
func (q *Queue) topPriority(e *entry, part string, now int64) bool {
	j := e.j
	tier := q.cl.Partitions[part].PriorityTier
	nodes := q.cl.Partitions[part].Nodes
	for _, id := range q.ids {
		o := q.jobs[id]
		j2 := o.j
		if j2 == j || j2.State != Pending || j2.Priority == 0 {
			continue
		}
		if _, limit := j2.Reason.Limit(); limit || j2.Reason.isPartReason() || j2.Reason == ReasonDependency ||
			j2.Reason == ReasonDepInvalid || j2.Begin > now {
			continue
		}
		for _, p2 := range j2.Partitions {
			cp := q.cl.Partitions[p2]
			if cp == nil || !cp.Nodes.Intersects(nodes) {
				continue
			}
			c := cmp.Compare(cp.PriorityTier, tier)
			if c > 0 || (c == 0 && (j2.Priority > j.Priority || (j2.Priority == j.Priority && j2.ID < j.ID))) {
				return false
			}
		}
	}
	return true
}
