package priority

import "github.com/nodesift/sift/limits"

// Accrue decides when pending jobs start accruing age, as slurmctld's
// acct_policy_handle_accrue_time does on every scheduling pass: a job
// that is eligible (not held, not waiting on a dependency, past its
// --begin) accrues from when it became eligible if no accrue limit
// applies, else from the pass that finds room under the first limit found
// (the job QOS's GrpJobsAccrue, MaxJobsAccruePerAccount,
// MaxJobsAccruePerUser, then the association's GrpJobsAccrue and
// MaxJobsAccrue up to root), and not at all while that limit is full.
// With ACCRUE_ALWAYS every job accrues from submit; without enforced
// limits from eligibility.
type Accrue struct {
	flags   Flags
	enforce bool
	qos     map[*limits.QOS]*accrueCount
	assoc   map[*limits.Assoc]uint32
}

type accrueCount struct {
	grp            uint32
	users, account map[string]uint32
}

// NewAccrue returns accrue bookkeeping with no job counted.
func NewAccrue(cfg Config) *Accrue {
	return &Accrue{flags: cfg.Flags, enforce: cfg.EnforceLimits, qos: map[*limits.QOS]*accrueCount{},
		assoc: map[*limits.Assoc]uint32{}}
}

func (a *Accrue) qosCount(q *limits.QOS) *accrueCount {
	c := a.qos[q]
	if c == nil {
		c = &accrueCount{users: map[string]uint32{}, account: map[string]uint32{}}
		a.qos[q] = c
	}
	return c
}

// Count is how many jobs accrue under an association (with its
// children).
func (a *Accrue) Count(as *limits.Assoc) uint32 { return a.assoc[as] }

// Update is one pass over the pending jobs in queue order at now (the
// jobs must be bound, see Multifactor.Bind).
func (a *Accrue) Update(jobs []*Job, now int64) {
	for _, j := range jobs {
		a.handle(j, now)
	}
}

func (a *Accrue) handle(j *Job, now int64) {
	if j.Running {
		a.Remove(j)
		return
	}
	if a.flags&AccrueAlways != 0 {
		if j.Accrue == 0 {
			j.Accrue = j.Submit
		}
		return
	}
	if !a.enforce {
		if j.Accrue == 0 {
			j.Accrue = j.Eligible
		}
		return
	}
	if j.Held || j.Dependent || j.Eligible == 0 || j.Eligible > now || j.Accrue != 0 || j.assoc == nil {
		return
	}
	limit, room := uint32(limits.Infinite), uint32(0)
	consider := func(lim, used uint32) {
		if lim == limits.Infinite || (limit != limits.Infinite && limit <= lim) {
			return
		}
		limit, room = lim, 0
		if lim > used {
			room = lim - used
		}
	}
	if q := j.qos; q != nil {
		c := a.qosCount(q)
		consider(q.GrpJobsAccrue, c.grp)
		consider(q.MaxJobsAccruePerAccount, c.account[j.assoc.Account])
		consider(q.MaxJobsAccruePerUser, c.users[j.User])
	}
	for as, parent := j.assoc, false; as != nil && limit == limits.Infinite; as, parent = as.Parent, true {
		consider(as.Limits.GrpJobsAccrue, a.assoc[as])
		if !parent {
			consider(as.Effective().MaxJobsAccrue, a.assoc[as])
		}
	}
	if limit != limits.Infinite && room == 0 {
		return
	}
	j.Accrue = now
	if limit == limits.Infinite {
		j.Accrue = j.Eligible
	}
	a.add(j, 1)
}

func (a *Accrue) add(j *Job, sign uint32) {
	j.accrueHeld = sign == 1
	if q := j.qos; q != nil {
		c := a.qosCount(q)
		c.grp += sign
		c.users[j.User] += sign
		c.account[j.assoc.Account] += sign
	}
	for as := j.assoc; as != nil; as = as.Parent {
		a.assoc[as] += sign
	}
}

// Remove takes a job out of the accrue counts (it started, ended, was
// held or its eligibility was reset); its accrue time is cleared if it is
// still pending.
func (a *Accrue) Remove(j *Job) {
	if !j.accrueHeld {
		return
	}
	a.add(j, ^uint32(0)) // wraps: subtracts one
	j.accrueHeld = false
	if !j.Running {
		j.Accrue = 0
	}
}
