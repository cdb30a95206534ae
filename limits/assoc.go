package limits

import "math"

// FairshareParent is the Fairshare of an association set to "parent".
const FairshareParent = math.MaxUint32 - 2

// AssocLimits are the limits of one association. Unset 32-bit limits are
// Infinite, unset TRES entries Infinite64; times are minutes.
type AssocLimits struct {
	GrpTRES, GrpTRESMins, GrpTRESRunMins           Vector
	GrpJobs, GrpJobsAccrue, GrpSubmitJobs, GrpWall uint32

	MaxTRESPerJob, MaxTRESPerNode, MaxTRESMinsPerJob, MaxTRESRunMins Vector
	MaxJobs, MaxJobsAccrue, MaxSubmitJobs, MaxWall                   uint32
	MinPrioThreshold, Priority                                       uint32
}

func newAssocLimits(n int) AssocLimits {
	var l AssocLimits
	for _, v := range l.tresFields() {
		*v.p = NewVector(n)
	}
	for _, f := range l.countFields() {
		*f.p = Infinite
	}
	return l
}

func (l *AssocLimits) tresFields() []tresField {
	return []tresField{
		{"GrpTRES", &l.GrpTRES}, {"GrpTRESMins", &l.GrpTRESMins}, {"GrpTRESRunMins", &l.GrpTRESRunMins},
		{"MaxTRESMinsPerJob", &l.MaxTRESMinsPerJob}, {"MaxTRESRunMins", &l.MaxTRESRunMins},
		{"MaxTRESPerJob", &l.MaxTRESPerJob}, {"MaxTRESPerNode", &l.MaxTRESPerNode},
	}
}

func (l *AssocLimits) countFields() []countField {
	return []countField{
		{"GrpJobs", &l.GrpJobs}, {"GrpJobsAccrue", &l.GrpJobsAccrue}, {"GrpSubmitJobs", &l.GrpSubmitJobs},
		{"GrpWall", &l.GrpWall},
		{"MaxJobs", &l.MaxJobs}, {"MaxJobsAccrue", &l.MaxJobsAccrue}, {"MaxSubmitJobs", &l.MaxSubmitJobs},
		{"MaxWallDurationPerJob", &l.MaxWall}, {"MinPrioThresh", &l.MinPrioThreshold}, {"Priority", &l.Priority},
	}
}

func (l *AssocLimits) clone() AssocLimits {
	c := *l
	for i, v := range l.tresFields() {
		*c.tresFields()[i].p = append(Vector(nil), (*v.p)...)
	}
	return c
}

// Assoc is one association: the cluster's root, an account (User empty)
// or a user under an account, optionally for one partition.
type Assoc struct {
	Account, User, Partition string
	Parent                   *Assoc
	Children                 []*Assoc
	// Fairshare is the raw share (Infinite unset, FairshareParent for
	// "parent"), kept for [priority].
	Fairshare uint32
	// QOS are the QOS the association may use and DefaultQOS the one its
	// jobs get; both empty when not set here.
	QOS        []string
	DefaultQOS string
	// Limits are as configured on this association.
	Limits AssocLimits

	// eff are Limits after slurmdbd's inheritance (unset Max limits filled
	// from the nearest ancestor); effQOS and effDefQOS likewise.
	eff       AssocLimits
	effQOS    []string
	effDefQOS string
	usage     assocUsage
}

// IsUser reports whether the association is a user's.
func (a *Assoc) IsUser() bool { return a.User != "" }

// Level names the association as explain prints it: "user alice account
// physics", "account physics", "root".
func (a *Assoc) Level() string {
	switch {
	case a.Parent == nil:
		return "root association"
	case a.User != "":
		s := "user association " + a.User + "/" + a.Account
		if a.Partition != "" {
			s += "/" + a.Partition
		}
		return s
	}
	return "account association " + a.Account
}

// Effective are the limits after inheritance.
func (a *Assoc) Effective() *AssocLimits { return &a.eff }

// inherit is slurmdbd's _set_assoc_limits_for_add (get_parent_limits):
// Max limits, MinPrioThresh, Priority, the QOS list and default QOS left
// unset on an association come from its nearest ancestor that sets them,
// entry by entry for TRES. Grp limits are not inherited.
func (a *Assoc) inherit() {
	a.eff = a.Limits.clone()
	a.effQOS, a.effDefQOS = a.QOS, a.DefaultQOS
	if p := a.Parent; p != nil {
		e, pe := &a.eff, &p.eff
		for _, pair := range [][2]*Vector{
			{&e.MaxTRESPerJob, &pe.MaxTRESPerJob}, {&e.MaxTRESPerNode, &pe.MaxTRESPerNode},
			{&e.MaxTRESMinsPerJob, &pe.MaxTRESMinsPerJob}, {&e.MaxTRESRunMins, &pe.MaxTRESRunMins},
		} {
			for i, x := range *pair[0] {
				if x == Infinite64 {
					(*pair[0])[i] = (*pair[1])[i]
				}
			}
		}
		for _, pair := range [][2]*uint32{
			{&e.MaxJobs, &pe.MaxJobs}, {&e.MaxJobsAccrue, &pe.MaxJobsAccrue},
			{&e.MaxSubmitJobs, &pe.MaxSubmitJobs}, {&e.MaxWall, &pe.MaxWall},
			{&e.MinPrioThreshold, &pe.MinPrioThreshold}, {&e.Priority, &pe.Priority},
		} {
			if *pair[0] == Infinite {
				*pair[0] = *pair[1]
			}
		}
		if len(a.effQOS) == 0 {
			a.effQOS = p.effQOS
		}
		if a.effDefQOS == "" {
			a.effDefQOS = p.effDefQOS
		}
	}
	for _, c := range a.Children {
		c.inherit()
	}
}

// EffectiveQOS are the QOS the association may use after inheritance, and
// its default QOS.
func (a *Assoc) EffectiveQOS() ([]string, string) { return a.effQOS, a.effDefQOS }
