package limits

import "math"

// scratch is acct_policy's qos_rec: the QOS limits already imposed by the
// first QOS, so that a later QOS or an association does not impose the
// same limit again ("first level where a limit is defined wins").
type scratch struct {
	q                  *QOS
	vecs               []Vector
	counts             []*uint32
	grpTRES, maxTRESPJ []uint64 // limit-factored association limits
	req                []uint64 // post-select TRES with unique node counts
	tmins              []uint64 // job TRES × time limit
	usage              []uint64 // TRES-minutes used
	run                []uint64 // TRES-minutes still to run
	runPA              []uint64
	runPU              []uint64
}

func newScratch(n int) scratch {
	s := scratch{q: NewQOS("", n), grpTRES: make([]uint64, n), maxTRESPJ: make([]uint64, n),
		req: make([]uint64, n), tmins: make([]uint64, n), usage: make([]uint64, n),
		run: make([]uint64, n), runPA: make([]uint64, n), runPU: make([]uint64, n)}
	for _, f := range s.q.tresFields() {
		s.vecs = append(s.vecs, *f.p)
	}
	for _, f := range s.q.countFields() {
		s.counts = append(s.counts, f.p)
	}
	return s
}

func (s *scratch) reset() *QOS {
	for _, v := range s.vecs {
		v.Clear()
	}
	for _, c := range s.counts {
		*c = Infinite
	}
	return s.q
}

// applyLimitFactor is _apply_limit_factor.
func applyLimitFactor(limit uint64, f float64) uint64 {
	if f <= 0 || limit == Infinite64 {
		return limit
	}
	v := float64(limit) * f
	if v >= math.MaxInt64 {
		return Infinite64
	}
	return uint64(int64(v))
}

func limitFactor(q1, q2 *QOS) float64 {
	if q1 != nil && q1.LimitFactor > 0 {
		return q1.LimitFactor
	}
	if q2 != nil && q2.LimitFactor > 0 {
		return q2.LimitFactor
	}
	return 0
}

// tresForAssoc is _validate_tres_limits_for_assoc: false with the TRES
// position when a job TRES (divided per node when divisor is set) breaks
// an association limit the QOS did not already impose.
func tresForAssoc(j *Job, req []uint64, divisor uint64, limit, qosOut []uint64, strict, max bool) (int, bool) {
	if !strict {
		return 0, true
	}
	for i := range limit {
		if j.adminTRES(i) || qosOut[i] != Infinite64 || limit[i] == Infinite64 || req[i] == 0 {
			continue
		}
		v := req[i]
		if divisor != 0 {
			v /= divisor
		}
		if max && v > limit[i] || !max && v < limit[i] {
			return i, false
		}
	}
	return 0, true
}

// tresForQOS is _validate_tres_limits_for_qos: it records in out (and
// outGrp) each limit this QOS imposes first, and is false with the TRES
// position when the job breaks one.
func tresForQOS(j *Job, req []uint64, divisor uint64, grp, max, outGrp, outMax []uint64, strict, isMax bool) (int, bool) {
	if !strict {
		return 0, true
	}
	for i := range max {
		lim := max[i]
		if grp != nil && grp[i] < lim {
			lim = grp[i]
		}
		if j.adminTRES(i) || (outMax[i] != Infinite64 && (outGrp == nil || outGrp[i] != Infinite64)) ||
			lim == Infinite64 || req[i] == Infinite64 {
			continue
		}
		v := req[i]
		if divisor != 0 {
			v /= divisor
		}
		if outGrp != nil && grp != nil && outGrp[i] == Infinite64 {
			outGrp[i] = grp[i]
			if isMax && v > grp[i] || !isMax && v < grp[i] {
				return i, false
			}
		}
		if outMax[i] == Infinite64 {
			outMax[i] = max[i]
			if isMax && v > max[i] || !isMax && v < max[i] {
				return i, false
			}
		}
	}
	return 0, true
}

// setTimeLimit is _set_time_limit: a missing time limit becomes the
// limit's (or the partition's MaxTime), and one a limit set before is cut
// to this limit.
func setTimeLimit(t *uint32, partMax, limitMax uint32, setBy *uint8) {
	if *t == NoVal {
		switch {
		case limitMax != 0:
			*t = limitMax
		case partMax != Infinite:
			*t = partMax
		default:
			*t = Infinite
		}
		if setBy != nil {
			*setBy = setByLimit
		}
	} else if setBy != nil && *setBy != setByUser && *t > limitMax {
		*t = limitMax
	}
}

// timeLimit64 is _validate_time_limit for a TRES-minutes limit.
func timeLimit64(j *Job, partMax uint32, req, max uint64, out *uint64, strict bool) bool {
	if req == 0 || (j.TimeLimit != NoVal && (!strict || j.limitSetTime == setByAdmin)) {
		return true
	}
	if *out != Infinite64 || max == Infinite64 || req == Infinite64 {
		return true
	}
	mt := uint32(max / req)
	setTimeLimit(&j.TimeLimit, partMax, mt, &j.limitSetTime)
	*out = max
	return j.TimeLimit <= mt
}

// timeLimit32 is _validate_time_limit for a wall-time limit.
func timeLimit32(j *Job, partMax uint32, max uint32, out *uint32, strict bool) bool {
	if j.TimeLimit != NoVal && (!strict || j.limitSetTime == setByAdmin) {
		return true
	}
	if *out != Infinite || max == Infinite {
		return true
	}
	setTimeLimit(&j.TimeLimit, partMax, max, &j.limitSetTime)
	*out = max
	return j.TimeLimit <= max
}

// tresTimeLimits is _validate_tres_time_limits.
func tresTimeLimits(j *Job, partMax uint32, req []uint64, max, out []uint64, strict bool) (int, bool) {
	if !strict || j.limitSetTime == setByAdmin {
		return 0, true
	}
	for i := range max {
		if !timeLimit64(j, partMax, req[i], max[i], &out[i], strict) {
			return i, false
		}
	}
	return 0, true
}

type usageResult uint8

const (
	usageOK usageResult = iota
	usageCurExceeds
	usageReqExceeds
	usageNotSafe
)

// tresUsage is _validate_tres_usage_limits: req against limit with what
// is used (and, for TRES-minutes, what is already consumed in cur).
func tresUsage(j *Job, limit, out, req, used, cur []uint64, admin, safe, setOut bool) (int, usageResult) {
	for i := range limit {
		if (admin && j.adminTRES(i)) || (out != nil && out[i] != Infinite64) || limit[i] == Infinite64 {
			continue
		}
		if setOut && out != nil {
			out[i] = limit[i]
		}
		if cur != nil && req[i] != 0 && cur[i] >= limit[i] {
			return i, usageCurExceeds
		}
		if safe {
			if req[i] > limit[i] {
				return i, usageReqExceeds
			}
			var c uint64
			if cur != nil {
				c = cur[i]
			}
			if used != nil && req[i] != 0 && req[i]+used[i] > limit[i]-c {
				return i, usageNotSafe
			}
		}
	}
	return 0, usageOK
}

// FailedLevel names where the last check of j that failed found its
// limit: "partition QOS pq", "job QOS normal", "user association
// alice/phys", "account association phys", "root association".
func (p *Policy) FailedLevel(j *Job) string {
	switch {
	case j == nil:
		return ""
	case p.failQOS != nil && p.failQOS == j.pqos:
		return "partition QOS " + p.failQOS.Name
	case p.failQOS != nil:
		return "job QOS " + p.failQOS.Name
	case p.failAssoc != nil:
		return p.failAssoc.Level()
	}
	return ""
}

func (p *Policy) partMaxTime(j *Job) uint32 {
	if j.part == nil {
		return Infinite
	}
	return j.part.MaxTime
}

// Validate is acct_policy_validate at submit: it checks the job against
// the limits of its QOS (partition QOS and job QOS in order) and its
// associations up to root, fills in a missing time limit from MaxWall, and
// returns a *PolicyError naming the first limit broken. Submit-count
// limits always refuse; size and time limits refuse only when a QOS has
// DenyOnLimit or the job has no QOS (otherwise the job is accepted and
// pends later). Call Bind first.
func (p *Policy) Validate(j *Job) error {
	if p.Enforce&EnforceLimits == 0 || j.assoc == nil {
		return nil
	}
	if r, ok := p.validate(j); !ok {
		return &PolicyError{Reason: r, Level: p.FailedLevel(j)}
	}
	return nil
}

func (p *Policy) validate(j *Job) (Reason, bool) {
	out := p.scratch.reset()
	q1, q2 := j.qosOrder()
	cnt := j.jobCount()
	partMax := p.partMaxTime(j)
	strict := true
	if q1 != nil {
		strict = q1.Flags&DenyOnLimit != 0 || (q2 != nil && q2.Flags&DenyOnLimit != 0)
		for _, q := range []*QOS{q1, q2} {
			if q == nil {
				continue
			}
			p.failQOS, p.failAssoc = q, nil
			if r, ok := p.qosValidate(j, q, out, partMax, cnt, strict); !ok {
				return r, false
			}
		}
	}
	lf := limitFactor(q1, q2)
	s := &p.scratch
	for a, parent := j.assoc, false; a != nil; a, parent = a.Parent, true {
		p.failQOS, p.failAssoc = nil, a
		e := &a.eff
		for i := range s.grpTRES {
			s.grpTRES[i] = applyLimitFactor(e.GrpTRES[i], lf)
			s.maxTRESPJ[i] = applyLimitFactor(e.MaxTRESPerJob[i], lf)
		}
		if i, ok := tresForAssoc(j, j.Req, 0, s.grpTRES, out.GrpTRES, strict, true); !ok {
			return p.TRES.tresReason(i, kindAssocGrp), false
		}
		if out.GrpSubmitJobs == Infinite && e.GrpSubmitJobs != Infinite && a.usage.usedSubmitJobs+cnt > e.GrpSubmitJobs {
			return ReasonAssocGrpSubJob, false
		}
		if i, ok := tresTimeLimits(j, partMax, j.Req, e.GrpTRESMins, out.GrpTRESMins, strict); !ok {
			return p.TRES.tresReason(i, kindAssocGrpMin), false
		}
		if i, ok := tresTimeLimits(j, partMax, j.Req, e.GrpTRESRunMins, out.GrpTRESRunMins, strict); !ok {
			return p.TRES.tresReason(i, kindAssocGrpRunMin), false
		}
		if !timeLimit32(j, partMax, e.GrpWall, &out.GrpWall, strict) {
			return ReasonAssocGrpWall, false
		}
		// Max limits were propagated down by slurmdbd: only the job's own
		// association is looked at.
		if parent {
			continue
		}
		if i, ok := tresForAssoc(j, j.Req, 0, s.maxTRESPJ, out.MaxTRESPerJob, strict, true); !ok {
			return p.TRES.tresReason(i, kindAssocMaxPerJob), false
		}
		if i, ok := tresForAssoc(j, j.Req, j.Req[TRESNode], e.MaxTRESPerNode, out.MaxTRESPerNode, strict, true); !ok {
			return p.TRES.tresReason(i, kindAssocMaxPerNode), false
		}
		if out.MaxSubmitJobsPerAccount == Infinite && out.MaxSubmitJobsPerUser == Infinite &&
			e.MaxSubmitJobs != Infinite && a.usage.usedSubmitJobs+cnt > e.MaxSubmitJobs {
			return ReasonAssocMaxSubJob, false
		}
		if i, ok := tresTimeLimits(j, partMax, j.Req, e.MaxTRESMinsPerJob, out.MaxTRESMinsPerJob, strict); !ok {
			return p.TRES.tresReason(i, kindAssocMaxMinsPerJob), false
		}
		if !timeLimit32(j, partMax, e.MaxWall, &out.MaxWall, strict) {
			return ReasonAssocMaxWallPerJob, false
		}
	}
	return ReasonNone, true
}

// qosValidate is _qos_policy_validate.
func (p *Policy) qosValidate(j *Job, q, out *QOS, partMax, cnt uint32, strict bool) (Reason, bool) {
	u := &q.usage
	n := p.TRES.Len()
	if i, ok := tresForQOS(j, j.Req, 0, nil, q.MaxTRESPerAccount, nil, out.MaxTRESPerAccount, strict, true); !ok {
		if j.Req[i] > q.MaxTRESPerAccount[i] {
			return p.TRES.tresReason(i, kindQOSMaxPerAcct), false
		}
	}
	if i, ok := tresForQOS(j, j.Req, 0, q.GrpTRES, q.MaxTRESPerUser, out.GrpTRES, out.MaxTRESPerUser, strict, true); !ok {
		if j.Req[i] > q.MaxTRESPerUser[i] {
			return p.TRES.tresReason(i, kindQOSMaxPerUser), false
		} else if j.Req[i] > q.GrpTRES[i] {
			return p.TRES.tresReason(i, kindQOSGrp), false
		}
	}
	if out.GrpSubmitJobs == Infinite && q.GrpSubmitJobs != Infinite {
		out.GrpSubmitJobs = q.GrpSubmitJobs
		if u.grpUsedSubmitJobs+cnt > q.GrpSubmitJobs {
			return ReasonQOSGrpSubJob, false
		}
	}
	if j.limitSetTime != setByAdmin {
		if i, ok := tresTimeLimits(j, partMax, j.Req, q.MaxTRESMinsPerJob, out.MaxTRESMinsPerJob, strict); !ok {
			return p.TRES.tresReason(i, kindQOSMaxMinsPerJob), false
		}
		if i, ok := tresTimeLimits(j, partMax, j.Req, q.GrpTRESMins, out.GrpTRESMins, strict); !ok {
			return p.TRES.tresReason(i, kindQOSGrpMin), false
		}
		if i, ok := tresTimeLimits(j, partMax, j.Req, q.GrpTRESRunMins, out.GrpTRESRunMins, strict); !ok {
			return p.TRES.tresReason(i, kindQOSGrpRunMin), false
		}
		if i, ok := tresTimeLimits(j, partMax, j.Req, q.MaxTRESRunMinsPerAccount, out.MaxTRESRunMinsPerAccount, strict); !ok {
			return p.TRES.tresReason(i, kindQOSMaxRunMinsPerAcct), false
		}
		if i, ok := tresTimeLimits(j, partMax, j.Req, q.MaxTRESRunMinsPerUser, out.MaxTRESRunMinsPerUser, strict); !ok {
			return p.TRES.tresReason(i, kindQOSMaxRunMinsPerUser), false
		}
		if out.MaxWall == Infinite && q.MaxWall != Infinite {
			setTimeLimit(&j.TimeLimit, partMax, q.MaxWall, &j.limitSetTime)
			out.MaxWall = q.MaxWall
			if strict && j.TimeLimit > q.MaxWall {
				return ReasonQOSMaxWallPerJob, false
			}
		}
		if out.GrpWall == Infinite && q.GrpWall != Infinite {
			setTimeLimit(&j.TimeLimit, partMax, q.GrpWall, &j.limitSetTime)
			out.GrpWall = q.GrpWall
			if strict && j.TimeLimit > q.GrpWall {
				return ReasonQOSGrpWall, false
			}
		}
	}
	if i, ok := tresForQOS(j, j.Req, 0, nil, q.MaxTRESPerJob, nil, out.MaxTRESPerJob, strict, true); !ok {
		return p.TRES.tresReason(i, kindQOSMaxPerJob), false
	}
	if i, ok := tresForQOS(j, j.Req, j.Req[TRESNode], nil, q.MaxTRESPerNode, nil, out.MaxTRESPerNode, strict, true); !ok {
		return p.TRES.tresReason(i, kindQOSMaxPerNode), false
	}
	if out.MaxSubmitJobsPerAccount == Infinite && q.MaxSubmitJobsPerAccount != Infinite {
		out.MaxSubmitJobsPerAccount = q.MaxSubmitJobsPerAccount
		if u.account(j.assoc.Account, n).submitJobs+cnt > q.MaxSubmitJobsPerAccount {
			return ReasonQOSMaxSubJobPerAcct, false
		}
	}
	if out.MaxSubmitJobsPerUser == Infinite && q.MaxSubmitJobsPerUser != Infinite {
		out.MaxSubmitJobsPerUser = q.MaxSubmitJobsPerUser
		if u.user(j.User, n).submitJobs+cnt > q.MaxSubmitJobsPerUser {
			return ReasonQOSMaxSubJob, false
		}
	}
	if i, ok := tresForQOS(j, j.Req, 0, nil, q.MinTRESPerJob, nil, out.MinTRESPerJob, strict, false); !ok {
		return p.TRES.tresReason(i, kindQOSMin), false
	}
	return ReasonNone, true
}

// usageFactorTime applies a UsageFactorSafe QOS's UsageFactor to a time
// limit, as the start checks do.
func usageFactorTime(j *Job, t uint32) uint32 {
	q := j.qos
	if q != nil && q.Flags&UsageFactorSafe != 0 && q.UsageFactor >= 0 && (t != Infinite || q.UsageFactor < 1) {
		return uint32(float64(t) * q.UsageFactor)
	}
	return t
}

// PreSelect is acct_policy_job_runnable_pre_select, before nodes are
// chosen: job counts (GrpJobs, MaxJobsPerAccount/PerUser, MaxJobs), wall
// time (GrpWall used, MaxWall) and, as get_node_cnts does with
// acct_policy_get_max_nodes, a node limit below the job's minimum node
// count. False keeps the job pending with the reason. Call Bind first.
func (p *Policy) PreSelect(j *Job, now int64) (bool, Reason) {
	if p.Enforce == 0 {
		return true, ReasonNone
	}
	if j.assoc == nil {
		if p.Enforce&EnforceAssociations != 0 {
			return false, ReasonFailAccount
		}
		return true, ReasonNone
	}
	if p.Enforce&EnforceLimits == 0 {
		return true, ReasonNone
	}
	if r, ok := p.preSelect(j); !ok {
		return false, r
	}
	if max, r := p.MaxNodes(j); max < p.minNodes(j) {
		return false, r
	}
	return true, ReasonNone
}

func (p *Policy) minNodes(j *Job) uint32 {
	m := j.MinNodes
	if j.part != nil && (j.qos == nil || j.qos.Flags&PartitionMinNodes == 0) && j.part.MinNodes > m {
		m = j.part.MinNodes
	}
	return m
}

func (p *Policy) preSelect(j *Job) (Reason, bool) {
	out := p.scratch.reset()
	q1, q2 := j.qosOrder()
	safe := p.Enforce&EnforceSafe != 0
	partMax := p.partMaxTime(j)
	timeLimit := uint32(NoVal)
	for _, q := range []*QOS{q1, q2} {
		if q == nil {
			continue
		}
		p.failQOS, p.failAssoc = q, nil
		u := &q.usage
		wallMins := uint32(u.usedWall / 60)
		if out.GrpJobs == Infinite && q.GrpJobs != Infinite {
			out.GrpJobs = q.GrpJobs
			if u.grpUsedJobs >= q.GrpJobs {
				return ReasonQOSGrpJob, false
			}
		}
		if j.limitSetTime != setByAdmin && out.GrpWall == Infinite && q.GrpWall != Infinite {
			if timeLimit == NoVal {
				timeLimit = j.TimeLimit
				setTimeLimit(&timeLimit, partMax, min(q.GrpWall, q.MaxWall), &j.limitSetTime)
				timeLimit = usageFactorTime(j, timeLimit)
			}
			out.GrpWall = q.GrpWall
			if wallMins >= q.GrpWall || safe && uint64(wallMins)+uint64(timeLimit) > uint64(q.GrpWall) {
				return ReasonQOSGrpWall, false
			}
		}
		if out.MaxJobsPerAccount == Infinite && q.MaxJobsPerAccount != Infinite {
			out.MaxJobsPerAccount = q.MaxJobsPerAccount
			if ul, ok := u.accounts[j.assoc.Account]; ok && ul.jobs >= q.MaxJobsPerAccount || !ok && q.MaxJobsPerAccount == 0 {
				return ReasonQOSMaxJobPerAcct, false
			}
		}
		if out.MaxJobsPerUser == Infinite && q.MaxJobsPerUser != Infinite {
			out.MaxJobsPerUser = q.MaxJobsPerUser
			if ul, ok := u.users[j.User]; ok && ul.jobs >= q.MaxJobsPerUser || !ok && q.MaxJobsPerUser == 0 {
				return ReasonQOSMaxJobPerUser, false
			}
		}
		if j.limitSetTime != setByAdmin && out.MaxWall == Infinite && q.MaxWall != Infinite {
			if timeLimit == NoVal {
				timeLimit = j.TimeLimit
				setTimeLimit(&timeLimit, partMax, q.MaxWall, &j.limitSetTime)
			}
			timeLimit = usageFactorTime(j, timeLimit)
			out.MaxWall = q.MaxWall
			if timeLimit > q.MaxWall {
				return ReasonQOSMaxWallPerJob, false
			}
		}
	}
	for a, parent := j.assoc, false; a != nil; a, parent = a.Parent, true {
		p.failQOS, p.failAssoc = nil, a
		e := &a.eff
		wallMins := uint32(a.usage.usedWall / 60)
		if out.GrpJobs == Infinite && e.GrpJobs != Infinite && a.usage.usedJobs >= e.GrpJobs {
			return ReasonAssocGrpJob, false
		}
		if j.limitSetTime != setByAdmin && out.GrpWall == Infinite && e.GrpWall != Infinite {
			if timeLimit == NoVal {
				timeLimit = j.TimeLimit
				setTimeLimit(&timeLimit, partMax, min(e.GrpWall, e.MaxWall), &j.limitSetTime)
				timeLimit = usageFactorTime(j, timeLimit)
			}
			if wallMins >= e.GrpWall || safe && uint64(wallMins)+uint64(timeLimit) > uint64(e.GrpWall) {
				return ReasonAssocGrpWall, false
			}
		}
		if parent {
			continue
		}
		if out.MaxJobsPerAccount == Infinite && out.MaxJobsPerUser == Infinite &&
			e.MaxJobs != Infinite && a.usage.usedJobs >= e.MaxJobs {
			return ReasonAssocMaxJobs, false
		}
		if j.limitSetTime != setByAdmin && out.MaxWall == Infinite && e.MaxWall != Infinite {
			if timeLimit == NoVal {
				timeLimit = j.TimeLimit
				setTimeLimit(&timeLimit, partMax, e.MaxWall, &j.limitSetTime)
				timeLimit = usageFactorTime(j, timeLimit)
			}
			if timeLimit > e.MaxWall {
				return ReasonAssocMaxWallPerJob, false
			}
		}
	}
	return ReasonNone, true
}

// MaxNodes is acct_policy_get_max_nodes: the most nodes the job's limits
// allow (MaxTRESPerAccount, MaxTRESPerJob, MaxTRESPerUser and GrpTRES
// node counts of its QOS, then association GrpTRES node up to the first
// level that sets it and the user's MaxTRESPerJob node), with the reason
// of the limit that gave it.
func (p *Policy) MaxNodes(j *Job) (uint32, Reason) {
	max := uint64(Infinite64)
	reason := ReasonNone
	if p.Enforce&EnforceLimits == 0 || j.assoc == nil {
		return Infinite, reason
	}
	q1, q2 := j.qosOrder()
	qosMaxP, grpNodes := uint64(Infinite64), uint64(Infinite64)
	lf := 0.0
	if q1 != nil {
		pj, pu, pa := q1.MaxTRESPerJob[TRESNode], q1.MaxTRESPerUser[TRESNode], q1.MaxTRESPerAccount[TRESNode]
		grpNodes = q1.GrpTRES[TRESNode]
		lf = q1.LimitFactor
		// Slurm's test for the second QOS's LimitFactor looks at the first
		// QOS again, so a second QOS never lends its factor here.
		if q2 != nil {
			if pa == Infinite64 {
				pa = q2.MaxTRESPerAccount[TRESNode]
			}
			if pj == Infinite64 {
				pj = q2.MaxTRESPerJob[TRESNode]
			}
			if pu == Infinite64 {
				pu = q2.MaxTRESPerUser[TRESNode]
			}
			if grpNodes == Infinite64 {
				grpNodes = q2.GrpTRES[TRESNode]
			}
		}
		// from is the QOS a merged limit came from.
		from := func(first uint64) *QOS {
			if first != Infinite64 || q2 == nil {
				return q1
			}
			return q2
		}
		if pa < max {
			max, reason = pa, ReasonQOSMaxNodePerAcct
			p.failQOS, p.failAssoc = from(q1.MaxTRESPerAccount[TRESNode]), nil
		}
		if pj < max {
			max, reason = pj, ReasonQOSMaxNodePerJob
			p.failQOS, p.failAssoc = from(q1.MaxTRESPerJob[TRESNode]), nil
		}
		if pu < max {
			max, reason = pu, ReasonQOSMaxNodePerUser
			p.failQOS, p.failAssoc = from(q1.MaxTRESPerUser[TRESNode]), nil
		}
		qosMaxP = max
		if grpNodes < max {
			max, reason = grpNodes, ReasonQOSGrpNode
			p.failQOS, p.failAssoc = from(q1.GrpTRES[TRESNode]), nil
		}
	}
	for a, parent := j.assoc, false; a != nil; a, parent = a.Parent, true {
		grpSet := false
		lim := applyLimitFactor(a.eff.GrpTRES[TRESNode], lf)
		if (q1 == nil || grpNodes == Infinite64) && lim != Infinite64 && lim < max {
			max, reason = lim, ReasonAssocGrpNode
			p.failQOS, p.failAssoc = nil, a
			grpSet = true
		}
		lim = applyLimitFactor(a.eff.MaxTRESPerJob[TRESNode], lf)
		if !parent && qosMaxP == Infinite64 && lim != Infinite64 && lim < max {
			max, reason = lim, ReasonAssocMaxNodePerJob
			p.failQOS, p.failAssoc = nil, a
		}
		if grpSet {
			break
		}
	}
	if max >= Infinite {
		return Infinite, reason
	}
	return uint32(max), reason
}

// PostSelect is acct_policy_job_runnable_post_select, with the nodes
// chosen: alloc is the TRES of the allocation (cpu the CPUs it holds, node
// its node count, mem, gres, billing) and nodes its node ids, so that node
// limits count each node once per association and QOS. It checks
// GrpTRESMins (with safe enforcement, the whole job must fit),
// GrpTRES, GrpTRESRunMins, MaxTRESMinsPerJob, MaxTRESPerJob,
// MaxTRESPerNode, MinTRES, MaxTRESPerAccount/PerUser and
// MaxTRESRunMinsPerAccount/PerUser. False keeps the job pending.
func (p *Policy) PostSelect(j *Job, alloc Vector, nodes []uint32, now int64) (bool, Reason) {
	if p.Enforce&EnforceLimits == 0 || j.assoc == nil {
		return true, ReasonNone
	}
	r, ok := p.postSelect(j, alloc, nodes, now)
	return ok, r
}

func (p *Policy) postSelect(j *Job, alloc Vector, nodes []uint32, now int64) (Reason, bool) {
	s := &p.scratch
	out := s.reset()
	safe := p.Enforce&EnforceSafe != 0
	t := j.TimeLimit
	if j.part != nil {
		setTimeLimit(&t, j.part.MaxTime, j.part.DefaultTime, nil)
	} else if t == NoVal {
		t = Infinite
	}
	uf := 1.0
	if j.qos != nil {
		uf = j.qos.UsageFactor
		if uf >= 0 && j.qos.Flags&UsageFactorSafe != 0 && (t != Infinite || uf < 1) {
			t = uint32(float64(t) * uf)
		}
	}
	req := s.req
	for i := range req {
		req[i] = alloc[i]
		if req[i] == Infinite64 {
			req[i] = 0
		}
		s.tmins[i] = uint64(t) * req[i]
	}
	q1, q2 := j.qosOrder()
	for _, q := range []*QOS{q1, q2} {
		if q == nil {
			continue
		}
		p.failQOS, p.failAssoc = q, nil
		if r, ok := p.qosPostSelect(j, q, out, req, nodes, uf, safe, now); !ok {
			return r, false
		}
	}
	lf := limitFactor(q1, q2)
	for a, parent := j.assoc, false; a != nil; a, parent = a.Parent, true {
		p.failQOS, p.failAssoc = nil, a
		u := &a.usage
		e := &a.eff
		// Usage is only worked out where a TRES-minutes limit needs it.
		if e.GrpTRESMins.Set() || e.GrpTRESRunMins.Set() {
			for i := range req {
				s.usage[i] = uint64(u.usageRaw[i] / 60)
				s.run[i] = u.run.at(i, now) / 60
				if uf == 0 {
					s.usage[i], s.run[i] = 0, 0
				}
			}
			if i, res := tresUsage(j, e.GrpTRESMins, out.GrpTRESMins, s.tmins, s.run, s.usage, true, safe, false); res != usageOK {
				return p.TRES.tresReason(i, kindAssocGrpMin), false
			}
		}
		grp, maxPJ := e.GrpTRES, e.MaxTRESPerJob
		if lf > 0 {
			for i := range req {
				s.grpTRES[i] = applyLimitFactor(e.GrpTRES[i], lf)
				s.maxTRESPJ[i] = applyLimitFactor(e.MaxTRESPerJob[i], lf)
			}
			grp, maxPJ = s.grpTRES, s.maxTRESPJ
		}
		orig := uniqueNodes(req, nodes, u.nodes)
		i, res := tresUsage(j, grp, out.GrpTRES, req, u.grpUsedTRES, nil, true, true, false)
		req[TRESNode] = orig
		if res != usageOK {
			return p.TRES.tresReason(i, kindAssocGrp), false
		}
		if e.GrpTRESRunMins.Set() {
			if i, res := tresUsage(j, e.GrpTRESRunMins, out.GrpTRESRunMins, s.tmins, s.run, nil, false, true, false); res != usageOK {
				return p.TRES.tresReason(i, kindAssocGrpRunMin), false
			}
		}
		if parent {
			continue
		}
		if i, ok := tresForAssoc(j, s.tmins, 0, e.MaxTRESMinsPerJob, out.MaxTRESMinsPerJob, true, true); !ok {
			return p.TRES.tresReason(i, kindAssocMaxMinsPerJob), false
		}
		if i, ok := tresForAssoc(j, req, 0, maxPJ, out.MaxTRESPerJob, true, true); !ok {
			return p.TRES.tresReason(i, kindAssocMaxPerJob), false
		}
		if i, ok := tresForAssoc(j, req, req[TRESNode], e.MaxTRESPerNode, out.MaxTRESPerNode, true, true); !ok {
			return p.TRES.tresReason(i, kindAssocMaxPerNode), false
		}
	}
	return ReasonNone, true
}

// uniqueNodes is _get_unique_job_node_cnt: when some of the job's nodes
// are already counted in c, req's node count becomes the nodes that are
// not. It returns the count to restore afterwards.
func uniqueNodes(req []uint64, nodes []uint32, c nodeCounts) uint64 {
	orig := req[TRESNode]
	if len(nodes) > 0 && len(c) > 0 {
		if ov := uint64(len(nodes)) - c.unique(nodes); ov > 0 {
			req[TRESNode] = uint64(len(nodes)) - ov
		}
	}
	return orig
}

// qosPostSelect is _qos_job_runnable_post_select.
func (p *Policy) qosPostSelect(j *Job, q, out *QOS, req []uint64, nodes []uint32, uf float64, safe bool, now int64) (Reason, bool) {
	s := &p.scratch
	u := &q.usage
	n := p.TRES.Len()
	ua := u.account(j.assoc.Account, n)
	uu := u.user(j.User, n)
	if q.GrpTRESMins.Set() || q.GrpTRESRunMins.Set() || q.MaxTRESRunMinsPerAccount.Set() || q.MaxTRESRunMinsPerUser.Set() {
		for i := range req {
			s.run[i] = u.run.at(i, now) / 60
			s.runPA[i] = ua.run.at(i, now) / 60
			s.runPU[i] = uu.run.at(i, now) / 60
			s.usage[i] = uint64(u.usageRaw[i] / 60)
			if uf == 0 {
				s.run[i], s.runPA[i], s.usage[i] = 0, 0, 0
			}
		}
	}
	if i, res := tresUsage(j, q.GrpTRESMins, out.GrpTRESMins, s.tmins, s.run, s.usage, true, safe, true); res != usageOK {
		return p.TRES.tresReason(i, kindQOSGrpMin), false
	}
	orig := uniqueNodes(req, nodes, u.nodes)
	i, res := tresUsage(j, q.GrpTRES, out.GrpTRES, req, u.grpUsedTRES, nil, true, true, true)
	req[TRESNode] = orig
	if res != usageOK {
		return p.TRES.tresReason(i, kindQOSGrp), false
	}
	if i, res := tresUsage(j, q.GrpTRESRunMins, out.GrpTRESRunMins, s.tmins, s.run, nil, false, true, true); res != usageOK {
		return p.TRES.tresReason(i, kindQOSGrpRunMin), false
	}
	if i, ok := tresForQOS(j, s.tmins, 0, nil, q.MaxTRESMinsPerJob, nil, out.MaxTRESMinsPerJob, true, true); !ok {
		return p.TRES.tresReason(i, kindQOSMaxMinsPerJob), false
	}
	if i, ok := tresForQOS(j, req, 0, nil, q.MaxTRESPerJob, nil, out.MaxTRESPerJob, true, true); !ok {
		return p.TRES.tresReason(i, kindQOSMaxPerJob), false
	}
	if i, ok := tresForQOS(j, req, req[TRESNode], nil, q.MaxTRESPerNode, nil, out.MaxTRESPerNode, true, true); !ok {
		return p.TRES.tresReason(i, kindQOSMaxPerNode), false
	}
	if i, ok := tresForQOS(j, req, 0, nil, q.MinTRESPerJob, nil, out.MinTRESPerJob, true, false); !ok {
		return p.TRES.tresReason(i, kindQOSMin), false
	}
	orig = uniqueNodes(req, nodes, ua.nodes)
	i, res = tresUsage(j, q.MaxTRESPerAccount, out.MaxTRESPerAccount, req, ua.tres, nil, true, true, true)
	req[TRESNode] = orig
	if res != usageOK {
		return p.TRES.tresReason(i, kindQOSMaxPerAcct), false
	}
	orig = uniqueNodes(req, nodes, uu.nodes)
	i, res = tresUsage(j, q.MaxTRESPerUser, out.MaxTRESPerUser, req, uu.tres, nil, true, true, true)
	req[TRESNode] = orig
	if res != usageOK {
		return p.TRES.tresReason(i, kindQOSMaxPerUser), false
	}
	if i, res := tresUsage(j, q.MaxTRESRunMinsPerAccount, out.MaxTRESRunMinsPerAccount, s.tmins, s.runPA, nil, false, true, true); res != usageOK {
		return p.TRES.tresReason(i, kindQOSMaxRunMinsPerAcct), false
	}
	if i, res := tresUsage(j, q.MaxTRESRunMinsPerUser, out.MaxTRESRunMinsPerUser, s.tmins, s.runPU, nil, false, true, true); res != usageOK {
		return p.TRES.tresReason(i, kindQOSMaxRunMinsPerUser), false
	}
	return ReasonNone, true
}
