package limits

import "math"

// Submit is acct_policy_add_job_submit: the job counts against submit
// limits of its QOS (per user and account) and of every association up to
// root until Remove. Call it after Validate accepts the job.
func (p *Policy) Submit(j *Job) {
	if p.Enforce&EnforceLimits == 0 || j.assoc == nil || j.submitted {
		return
	}
	j.submitted = true
	cnt := j.jobCount()
	q1, q2 := j.qosOrder()
	j.submitQOS = [2]*QOS{q1, q2}
	j.submitAssoc = j.assoc
	n := p.TRES.Len()
	for _, q := range j.submitQOS {
		if q == nil {
			continue
		}
		q.usage.grpUsedSubmitJobs += cnt
		q.usage.user(j.User, n).submitJobs += cnt
		q.usage.account(j.assoc.Account, n).submitJobs += cnt
	}
	for a := j.assoc; a != nil; a = a.Parent {
		a.usage.usedSubmitJobs += cnt
	}
}

// Remove is acct_policy_remove_job_submit: the job no longer counts
// against submit limits (it ended or was cancelled).
func (p *Policy) Remove(j *Job) {
	if !j.submitted {
		return
	}
	j.submitted = false
	cnt := j.jobCount()
	n := p.TRES.Len()
	dec := func(v *uint32) {
		if *v >= cnt {
			*v -= cnt
		} else {
			*v = 0
		}
	}
	for _, q := range j.submitQOS {
		if q == nil {
			continue
		}
		dec(&q.usage.grpUsedSubmitJobs)
		dec(&q.usage.user(j.User, n).submitJobs)
		dec(&q.usage.account(j.submitAssoc.Account, n).submitJobs)
	}
	for a := j.submitAssoc; a != nil; a = a.Parent {
		dec(&a.usage.usedSubmitJobs)
	}
}

// Begin is acct_policy_job_begin: the job started at now with the TRES of
// alloc on nodes. Every association up to root and each of its QOS (with
// the user's and the account's usage) count it: running jobs, TRES (nodes
// once each), and TRES-seconds to run (count × time limit × UsageFactor).
func (p *Policy) Begin(j *Job, alloc Vector, nodes []uint32, now int64) {
	if p.Enforce&EnforceLimits == 0 || j.assoc == nil || j.running {
		return
	}
	n := p.TRES.Len()
	j.running = true
	j.start = now
	j.alloc = make([]uint64, n)
	for i := range j.alloc {
		if i < len(alloc) && alloc[i] != Infinite64 && i != TRESEnergy {
			j.alloc[i] = alloc[i]
		}
	}
	// Without node ids, the job's node count is added as it is (as Slurm
	// does for a job validated before allocation).
	j.nodes = nil
	if len(nodes) > 0 {
		j.nodes = append([]uint32(nil), nodes...)
	}
	t := j.TimeLimit
	if t == NoVal {
		t = Infinite
	}
	secs := uint64(t) * 60
	if j.qos != nil && j.qos.UsageFactor >= 0 {
		secs = uint64(float64(secs) * j.qos.UsageFactor)
	}
	j.runBase, j.runRate = make([]uint64, n), make([]uint64, n)
	for i, c := range j.alloc {
		j.runRate[i] = c
		j.runBase[i] = c * (uint64(now) + secs)
	}
	q1, q2 := j.qosOrder()
	j.runQOS = [2]*QOS{q1, q2}
	j.runAssoc = j.assoc
	for _, q := range j.runQOS {
		if q == nil {
			continue
		}
		u := &q.usage
		u.grpUsedJobs++
		ul, ua := u.user(j.User, n), u.account(j.assoc.Account, n)
		ul.jobs++
		ua.jobs++
		p.addTRES(j, u.grpUsedTRES, &u.nodes, &u.run)
		p.addTRES(j, ul.tres, &ul.nodes, &ul.run)
		p.addTRES(j, ua.tres, &ua.nodes, &ua.run)
	}
	for a := j.assoc; a != nil; a = a.Parent {
		a.usage.usedJobs++
		p.addTRES(j, a.usage.grpUsedTRES, &a.usage.nodes, &a.usage.run)
	}
}

func (p *Policy) addTRES(j *Job, used []uint64, nodes *nodeCounts, run *runSecs) {
	for i, c := range j.alloc {
		if i != TRESNode {
			used[i] += c
		}
	}
	if j.nodes != nil {
		used[TRESNode] += nodes.addJob(j.nodes)
	} else {
		used[TRESNode] += j.alloc[TRESNode]
	}
	run.add(j, 1)
}

func (p *Policy) removeTRES(j *Job, used []uint64, nodes nodeCounts, run *runSecs) {
	for i, c := range j.alloc {
		if i == TRESNode {
			continue
		}
		if used[i] >= c {
			used[i] -= c
		} else {
			used[i] = 0
		}
	}
	var freed uint64
	if j.nodes != nil {
		freed = nodes.removeJob(j.nodes)
	} else {
		freed = j.alloc[TRESNode]
	}
	if used[TRESNode] >= freed {
		used[TRESNode] -= freed
	} else {
		used[TRESNode] = 0
	}
	run.add(j, math.MaxUint64) // wraps: subtracts exactly what add added
}

// End is acct_policy_job_fini followed by acct_policy_remove_job_submit:
// the job ended (or, if it never started, was cancelled) at now. A
// started job's TRES-seconds and wall time are charged to the usage
// (TRES-minutes limits, GrpWall) of its associations and QOS, scaled by
// UsageFactor. Slurm's priority plugin charges usage as the job runs;
// sift charges it when the job ends.
func (p *Policy) End(j *Job, now int64) {
	if j.running {
		j.running = false
		n := p.TRES.Len()
		elapsed := float64(now - j.start)
		if elapsed < 0 {
			elapsed = 0
		}
		uf := 1.0
		if j.qos != nil && j.qos.UsageFactor >= 0 {
			uf = j.qos.UsageFactor
		}
		for _, q := range j.runQOS {
			if q == nil {
				continue
			}
			u := &q.usage
			if u.grpUsedJobs > 0 {
				u.grpUsedJobs--
			}
			ul, ua := u.user(j.User, n), u.account(j.runAssoc.Account, n)
			if ul.jobs > 0 {
				ul.jobs--
			}
			if ua.jobs > 0 {
				ua.jobs--
			}
			p.removeTRES(j, u.grpUsedTRES, u.nodes, &u.run)
			p.removeTRES(j, ul.tres, ul.nodes, &ul.run)
			p.removeTRES(j, ua.tres, ua.nodes, &ua.run)
			for i, c := range j.alloc {
				u.usageRaw[i] += float64(c) * elapsed * uf
			}
			u.usedWall += elapsed * uf
		}
		for a := j.runAssoc; a != nil; a = a.Parent {
			if a.usage.usedJobs > 0 {
				a.usage.usedJobs--
			}
			p.removeTRES(j, a.usage.grpUsedTRES, a.usage.nodes, &a.usage.run)
			for i, c := range j.alloc {
				a.usage.usageRaw[i] += float64(c) * elapsed * uf
			}
			a.usage.usedWall += elapsed * uf
		}
	}
	p.uncountAccrue(j)
	p.Remove(j)
}

// Decay multiplies the charged usage (TRES-minutes and wall time) of every
// association and of every QOS without NoDecay by 2^(-dt/halfLife), as
// PriorityDecayHalfLife does over dt seconds.
func (p *Policy) Decay(dt int64) {
	if p.DecayHalfLife <= 0 || dt <= 0 {
		return
	}
	f := math.Exp2(-float64(dt) / float64(p.DecayHalfLife))
	p.Walk(func(a *Assoc) {
		for i := range a.usage.usageRaw {
			a.usage.usageRaw[i] *= f
		}
		a.usage.usedWall *= f
	})
	for _, q := range p.qosOrder {
		if q.Flags&NoDecay != 0 {
			continue
		}
		for i := range q.usage.usageRaw {
			q.usage.usageRaw[i] *= f
		}
		q.usage.usedWall *= f
	}
}
