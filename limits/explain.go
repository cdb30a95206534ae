package limits

import (
	"fmt"
	"strconv"
)

// Effective is one limit in effect for a job: its name, value and the
// level it comes from ("partition QOS pq", "user association bob/phys").
type Effective struct {
	Name, Value, Level string
}

func (e Effective) String() string { return fmt.Sprintf("%s=%s (%s)", e.Name, e.Value, e.Level) }

type level struct {
	name string
	q    *QOS
}

// Explain lists the limits in effect for a job of user under account in
// partition with QOS (empty: the default), in the hierarchy's order:
// partition QOS, job QOS (swapped by OverPartQOS), user association,
// account associations up the tree, root, partition. A Max limit comes
// from the first level that defines it (a QOS's MaxJobsPerUser and
// MaxSubmitJobsPerUser are its MaxJobs and MaxSubmitJobs); a Grp limit
// from every association level that defines it unless a QOS defines it
// first; partition MaxTime, MaxNodes and MinNodes bound the job unless the
// job QOS has PartitionTimeLimit, PartitionMaxNodes, PartitionMinNodes.
func (p *Policy) Explain(user, account, partition, qos string) ([]Effective, error) {
	j := &Job{User: user, Account: account, Partition: partition, QOS: qos}
	if err := p.Bind(j); err != nil {
		return nil, err
	}
	if j.assoc == nil {
		return nil, ErrInvalidAccount
	}
	var levels []level
	q1, q2 := j.qosOrder()
	for _, q := range []*QOS{q1, q2} {
		if q == nil {
			continue
		}
		name := "job QOS " + q.Name
		if q == j.pqos {
			name = "partition QOS " + q.Name
		}
		levels = append(levels, level{name: name, q: q})
	}
	var out []Effective
	add := func(name, value, lvl string) { out = append(out, Effective{name, value, lvl}) }
	count := func(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
	tresOne := func(v Vector, i int) string { return p.TRES.Name(i) + "=" + strconv.FormatUint(v[i], 10) }

	// First level wins, QOS then the user association (with inheritance).
	firstCount := func(name string, fromQOS func(q *QOS) uint32, fromAssoc func(l *AssocLimits) uint32) {
		for _, l := range levels {
			if v := fromQOS(l.q); v != Infinite {
				add(name, count(v), l.name)
				return
			}
		}
		if fromAssoc == nil {
			return
		}
		if v := fromAssoc(&j.assoc.eff); v != Infinite {
			add(name, count(v), origin(j.assoc, func(a *Assoc) bool { return fromAssoc(&a.Limits) != Infinite }))
		}
	}
	firstTRES := func(name string, fromQOS func(q *QOS) Vector, fromAssoc func(l *AssocLimits) Vector) {
		for i := 0; i < p.TRES.Len(); i++ {
			done := false
			for _, l := range levels {
				if v := fromQOS(l.q); v[i] != Infinite64 {
					add(name, tresOne(v, i), l.name)
					done = true
					break
				}
			}
			if done || fromAssoc == nil {
				continue
			}
			if v := fromAssoc(&j.assoc.eff); v[i] != Infinite64 {
				add(name, tresOne(v, i), origin(j.assoc, func(a *Assoc) bool { return fromAssoc(&a.Limits)[i] != Infinite64 }))
			}
		}
	}
	// Grp limits: the first QOS that sets one, else every association
	// level that sets it.
	grpCount := func(name string, fromQOS func(q *QOS) uint32, fromAssoc func(l *AssocLimits) uint32) {
		for _, l := range levels {
			if v := fromQOS(l.q); v != Infinite {
				add(name, count(v), l.name)
				return
			}
		}
		for a := j.assoc; a != nil; a = a.Parent {
			if v := fromAssoc(&a.Limits); v != Infinite {
				add(name, count(v), a.Level())
			}
		}
	}
	grpTRES := func(name string, fromQOS func(q *QOS) Vector, fromAssoc func(l *AssocLimits) Vector) {
		for i := 0; i < p.TRES.Len(); i++ {
			done := false
			for _, l := range levels {
				if v := fromQOS(l.q); v[i] != Infinite64 {
					add(name, tresOne(v, i), l.name)
					done = true
					break
				}
			}
			if done {
				continue
			}
			for a := j.assoc; a != nil; a = a.Parent {
				if v := fromAssoc(&a.Limits); v[i] != Infinite64 {
					add(name, tresOne(v, i), a.Level())
				}
			}
		}
	}

	grpTRES("GrpTRES", func(q *QOS) Vector { return q.GrpTRES }, func(l *AssocLimits) Vector { return l.GrpTRES })
	grpTRES("GrpTRESMins", func(q *QOS) Vector { return q.GrpTRESMins }, func(l *AssocLimits) Vector { return l.GrpTRESMins })
	grpTRES("GrpTRESRunMins", func(q *QOS) Vector { return q.GrpTRESRunMins }, func(l *AssocLimits) Vector { return l.GrpTRESRunMins })
	grpCount("GrpJobs", func(q *QOS) uint32 { return q.GrpJobs }, func(l *AssocLimits) uint32 { return l.GrpJobs })
	grpCount("GrpJobsAccrue", func(q *QOS) uint32 { return q.GrpJobsAccrue }, func(l *AssocLimits) uint32 { return l.GrpJobsAccrue })
	grpCount("GrpSubmitJobs", func(q *QOS) uint32 { return q.GrpSubmitJobs }, func(l *AssocLimits) uint32 { return l.GrpSubmitJobs })
	grpCount("GrpWall", func(q *QOS) uint32 { return q.GrpWall }, func(l *AssocLimits) uint32 { return l.GrpWall })

	// acct_policy skips the association's MaxJobs and MaxSubmitJobs when a
	// QOS sets either the per-user or the per-account count.
	qosSets := func(f func(q *QOS) uint32) bool {
		for _, l := range levels {
			if f(l.q) != Infinite {
				return true
			}
		}
		return false
	}
	var assocMaxJobs, assocMaxSubmit func(l *AssocLimits) uint32
	if !qosSets(func(q *QOS) uint32 { return q.MaxJobsPerAccount }) {
		assocMaxJobs = func(l *AssocLimits) uint32 { return l.MaxJobs }
	}
	if !qosSets(func(q *QOS) uint32 { return q.MaxSubmitJobsPerAccount }) {
		assocMaxSubmit = func(l *AssocLimits) uint32 { return l.MaxSubmitJobs }
	}
	firstCount("MaxJobs", func(q *QOS) uint32 { return q.MaxJobsPerUser }, assocMaxJobs)
	firstCount("MaxJobsPerAccount", func(q *QOS) uint32 { return q.MaxJobsPerAccount }, nil)
	firstCount("MaxJobsAccrue", func(q *QOS) uint32 { return q.MaxJobsAccruePerUser }, func(l *AssocLimits) uint32 { return l.MaxJobsAccrue })
	firstCount("MaxJobsAccruePerAccount", func(q *QOS) uint32 { return q.MaxJobsAccruePerAccount }, nil)
	firstCount("MaxSubmitJobs", func(q *QOS) uint32 { return q.MaxSubmitJobsPerUser }, assocMaxSubmit)
	firstCount("MaxSubmitJobsPerAccount", func(q *QOS) uint32 { return q.MaxSubmitJobsPerAccount }, nil)
	firstTRES("MaxTRESPerJob", func(q *QOS) Vector { return q.MaxTRESPerJob }, func(l *AssocLimits) Vector { return l.MaxTRESPerJob })
	firstTRES("MaxTRESPerNode", func(q *QOS) Vector { return q.MaxTRESPerNode }, func(l *AssocLimits) Vector { return l.MaxTRESPerNode })
	firstTRES("MaxTRESMinsPerJob", func(q *QOS) Vector { return q.MaxTRESMinsPerJob }, func(l *AssocLimits) Vector { return l.MaxTRESMinsPerJob })
	firstTRES("MaxTRESPerUser", func(q *QOS) Vector { return q.MaxTRESPerUser }, nil)
	firstTRES("MaxTRESPerAccount", func(q *QOS) Vector { return q.MaxTRESPerAccount }, nil)
	firstTRES("MaxTRESRunMinsPerUser", func(q *QOS) Vector { return q.MaxTRESRunMinsPerUser }, nil)
	firstTRES("MaxTRESRunMinsPerAccount", func(q *QOS) Vector { return q.MaxTRESRunMinsPerAccount }, nil)
	firstTRES("MinTRESPerJob", func(q *QOS) Vector { return q.MinTRESPerJob }, nil)
	firstCount("MaxWall", func(q *QOS) uint32 { return q.MaxWall }, func(l *AssocLimits) uint32 { return l.MaxWall })
	firstCount("MinPrioThreshold", func(q *QOS) uint32 { return q.MinPrioThreshold }, func(l *AssocLimits) uint32 { return l.MinPrioThreshold })

	if part := j.part; part != nil {
		var flags QOSFlags
		if j.qos != nil {
			flags = j.qos.Flags
		}
		lvl := "partition " + part.Name
		if part.MaxTime != Infinite {
			v := count(part.MaxTime)
			if flags&PartitionTimeLimit != 0 {
				v += " (ignored: QOS PartitionTimeLimit)"
			}
			add("MaxTime", v, lvl)
		}
		if part.MaxNodes != Infinite {
			v := count(part.MaxNodes)
			if flags&PartitionMaxNodes != 0 {
				v += " (ignored: QOS PartitionMaxNodes)"
			}
			add("MaxNodes", v, lvl)
		}
		if part.MinNodes > 1 {
			v := count(part.MinNodes)
			if flags&PartitionMinNodes != 0 {
				v += " (ignored: QOS PartitionMinNodes)"
			}
			add("MinNodes", v, lvl)
		}
	}
	return out, nil
}

// origin names the level an inherited limit comes from: the nearest
// association from a up that sets it.
func origin(a *Assoc, sets func(a *Assoc) bool) string {
	for x := a; x != nil; x = x.Parent {
		if sets(x) {
			if x == a {
				return x.Level()
			}
			return x.Level() + ", inherited by " + a.Level()
		}
	}
	return a.Level()
}
