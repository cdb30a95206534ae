package limits

// Accrue limits (GrpJobsAccrue, MaxJobsAccrue, MaxJobsAccruePerUser,
// MaxJobsAccruePerAccount) bound how many pending jobs accrue age
// priority at once; they never keep a job from running. Slurm counts an
// accruing job at its own QOS (never the partition QOS: the limit "only
// applies to the job's QOS"), at that QOS's per-user and per-account
// records, and at every association from the job's up to root
// (acct_policy.c: _add_accrue_time_internal).
//
// The scheduler drives it: HandleAccrue for every queued job in queue
// order at the start of each pass (build_job_queue), RemoveAccrue when a
// pending job stops being eligible (held, a dependency); End removes a
// job that leaves the queue still counted. AccrueTime is what the age
// factor of [priority] reads.

// AccrueTime is when the job began to accrue age priority, 0 if it does
// not (yet).
func (j *Job) AccrueTime() int64 { return j.accrueTime }

// AccrueCount is the number of pending jobs accruing age priority in the
// association and its children (usage->accrue_cnt).
func (a *Assoc) AccrueCount() uint32 { return a.usage.accrue }

// AccrueCount is the number of pending jobs of the QOS accruing age
// priority.
func (q *QOS) AccrueCount() uint32 { return q.usage.accrue }

// UserAccrueCount is the number of the user's pending jobs of the QOS
// accruing age priority.
func (q *QOS) UserAccrueCount(user string) uint32 {
	if ul, ok := q.usage.users[user]; ok {
		return ul.accrue
	}
	return 0
}

// AccountAccrueCount is the number of the account's pending jobs of the
// QOS accruing age priority.
func (q *QOS) AccountAccrueCount(account string) uint32 {
	if ul, ok := q.usage.accounts[account]; ok {
		return ul.accrue
	}
	return 0
}

// HandleAccrue is acct_policy_handle_accrue_time for a bound job: a job
// no longer pending leaves the counts (it keeps its AccrueTime); a
// pending eligible job (not held, no unmet dependency, begin time
// reached; the caller decides) that does not accrue yet starts to when
// no accrue limit is full: from begin when no limit applies, else from
// now. begin is the job's begin (eligible) time. Without
// AccountingStorageEnforce=limits every job accrues from begin and
// nothing is counted.
func (p *Policy) HandleAccrue(j *Job, pending, eligible bool, begin, now int64) {
	if p.Enforce&EnforceLimits == 0 {
		if j.accrueTime == 0 {
			j.accrueTime = begin
		}
		return
	}
	if !eligible && pending {
		return
	}
	if !pending {
		p.uncountAccrue(j)
		return
	}
	if j.accrueTime != 0 || j.assoc == nil || begin == 0 {
		return
	}
	max, room := p.accrueRoom(j)
	if max != Infinite && room == 0 {
		return
	}
	j.accrueTime = now
	if max == Infinite {
		j.accrueTime = begin
	}
	p.countAccrue(j)
}

// RemoveAccrue is acct_policy_remove_accrue_time: a pending job that
// stopped being eligible leaves the counts and no longer accrues.
func (p *Policy) RemoveAccrue(j *Job) {
	if p.Enforce&EnforceLimits == 0 || j.running {
		return
	}
	p.uncountAccrue(j)
	j.accrueTime = 0
}

// accrueRoom is _get_accrue_limits: the most restrictive accrue limit of
// the job's QOS (GrpJobsAccrue, MaxJobsAccruePerAccount, PerUser), else
// the first association up the tree with a GrpJobsAccrue, or on the
// job's own association its (inherited) MaxJobsAccrue; and how many more
// jobs it lets accrue.
func (p *Policy) accrueRoom(j *Job) (max, room uint32) {
	max = Infinite
	take := func(limit, used uint32) {
		if limit == Infinite || max != Infinite && max <= limit {
			return
		}
		max, room = limit, 0
		if limit > used {
			room = limit - used
		}
	}
	if q := j.qos; q != nil {
		take(q.GrpJobsAccrue, q.usage.accrue)
		take(q.MaxJobsAccruePerAccount, q.AccountAccrueCount(j.assoc.Account))
		take(q.MaxJobsAccruePerUser, q.UserAccrueCount(j.User))
	}
	for a, parent := j.assoc, false; a != nil && max == Infinite; a, parent = a.Parent, true {
		take(a.Limits.GrpJobsAccrue, a.usage.accrue)
		if !parent {
			take(a.eff.MaxJobsAccrue, a.usage.accrue)
		}
	}
	return max, room
}

func (p *Policy) countAccrue(j *Job) {
	j.accrueCounted, j.accrueQOS, j.accrueAssoc = true, j.qos, j.assoc
	if q := j.qos; q != nil {
		n := p.TRES.Len()
		q.usage.accrue++
		q.usage.user(j.User, n).accrue++
		q.usage.account(j.assoc.Account, n).accrue++
	}
	for a := j.assoc; a != nil; a = a.Parent {
		a.usage.accrue++
	}
}

func (p *Policy) uncountAccrue(j *Job) {
	if !j.accrueCounted {
		return
	}
	j.accrueCounted = false
	if q := j.accrueQOS; q != nil {
		decAccrue(&q.usage.accrue)
		if ul, ok := q.usage.users[j.User]; ok {
			decAccrue(&ul.accrue)
		}
		if ul, ok := q.usage.accounts[j.accrueAssoc.Account]; ok {
			decAccrue(&ul.accrue)
		}
	}
	for a := j.accrueAssoc; a != nil; a = a.Parent {
		decAccrue(&a.usage.accrue)
	}
}

// decAccrue lowers a count by one, never below zero (Slurm logs an
// underflow and sets 0).
func decAccrue(v *uint32) {
	if *v > 0 {
		*v--
	}
}

// PrioThreshold is acct_policy_get_prio_thresh: the first MinPrioThreshold
// set on the job's QOS in Slurm's order (the partition QOS first unless
// the job's has OverPartQOS), else on its association (inherited from the
// nearest ancestor); 0 when none is set, or without
// AccountingStorageEnforce=limits. A job whose priority is below it gets
// no backfill reservation and does not keep lower jobs of its partition
// from starting (it stands in for bf_min_prio_reserve).
func (p *Policy) PrioThreshold(j *Job) uint32 {
	if p.Enforce&EnforceLimits == 0 || j.assoc == nil {
		return 0
	}
	q1, q2 := j.qosOrder()
	for _, v := range []uint32{qosThresh(q1), qosThresh(q2), j.assoc.eff.MinPrioThreshold} {
		if v != 0 && v != Infinite {
			return v
		}
	}
	return 0
}

func qosThresh(q *QOS) uint32 {
	if q == nil {
		return 0
	}
	return q.MinPrioThreshold
}
