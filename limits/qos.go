package limits

import (
	"fmt"
	"strings"
)

// QOSFlags are a QOS's Flags.
type QOSFlags uint32

// QOS flags, as sacctmgr spells them.
const (
	// DenyOnLimit refuses at submit a job that breaks a size or time limit
	// on its own, instead of leaving it pending.
	DenyOnLimit QOSFlags = 1 << iota
	// EnforceUsageThreshold holds jobs of a QOS whose usage passed
	// UsageThreshold.
	EnforceUsageThreshold
	// NoDecay keeps GrpTRESMins, GrpWall and usage from decaying.
	NoDecay
	// NoReserve keeps backfill from reserving resources for the QOS's jobs.
	NoReserve
	// OverPartQOS makes the job's QOS come before the partition's QOS.
	OverPartQOS
	// PartitionMaxNodes lets the QOS's node limit override the partition's
	// MaxNodes.
	PartitionMaxNodes
	// PartitionMinNodes lets the QOS's node limit override the partition's
	// MinNodes.
	PartitionMinNodes
	// PartitionTimeLimit lets the QOS's MaxWall override the partition's
	// MaxTime.
	PartitionTimeLimit
	// RequiresReservation: jobs must run in a reservation.
	RequiresReservation
	// UsageFactorSafe applies UsageFactor when checking safe limits.
	UsageFactorSafe
	// Relative makes the QOS's limits fractions of the cluster.
	Relative
)

var qosFlagNames = []struct {
	f    QOSFlags
	name string
}{
	{DenyOnLimit, "DenyOnLimit"},
	{EnforceUsageThreshold, "EnforceUsageThreshold"},
	{NoDecay, "NoDecay"},
	{NoReserve, "NoReserve"},
	{OverPartQOS, "OverPartQOS"},
	{PartitionMaxNodes, "PartitionMaxNodes"},
	{PartitionMinNodes, "PartitionMinNodes"},
	{PartitionTimeLimit, "PartitionTimeLimit"},
	{RequiresReservation, "RequiresReservation"},
	{UsageFactorSafe, "UsageFactorSafe"},
	{Relative, "Relative"},
}

// ParseQOSFlags reads a comma-separated flag list, as sacctmgr prints it.
func ParseQOSFlags(s string) (QOSFlags, error) {
	var f QOSFlags
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		found := false
		for _, n := range qosFlagNames {
			if strings.EqualFold(n.name, item) {
				f |= n.f
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown QOS flag %q", item)
		}
	}
	return f, nil
}

// String is the flag list as sacctmgr prints it.
func (f QOSFlags) String() string {
	var parts []string
	for _, n := range qosFlagNames {
		if f&n.f != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ",")
}

// QOS is a quality of service with its limits. Unset 32-bit limits are
// Infinite, unset TRES entries Infinite64; times are minutes.
type QOS struct {
	Name, Description string
	Flags             QOSFlags
	// Priority is the QOS's priority (for [priority]).
	Priority uint32
	// GraceTime is the preemption grace time in seconds.
	GraceTime uint32
	// Preempt lists the QOS this one may preempt; PreemptMode is kept as
	// written.
	Preempt     []string
	PreemptMode string
	// UsageFactor scales the usage of the QOS's jobs (1 when unset);
	// UsageThreshold is for EnforceUsageThreshold (0 when unset);
	// LimitFactor scales association TRES limits for the QOS's jobs (0 when
	// unset).
	UsageFactor, UsageThreshold, LimitFactor float64

	GrpTRES, GrpTRESMins, GrpTRESRunMins           Vector
	GrpJobs, GrpJobsAccrue, GrpSubmitJobs, GrpWall uint32

	MaxTRESPerJob, MaxTRESPerNode, MaxTRESMinsPerJob Vector
	MaxTRESPerUser, MaxTRESPerAccount                Vector
	MaxTRESRunMinsPerUser, MaxTRESRunMinsPerAccount  Vector
	MinTRESPerJob                                    Vector

	MaxJobsPerUser, MaxJobsPerAccount             uint32
	MaxSubmitJobsPerUser, MaxSubmitJobsPerAccount uint32
	MaxJobsAccruePerUser, MaxJobsAccruePerAccount uint32
	MaxWall                                       uint32
	MinPrioThreshold                              uint32

	usage qosUsage
}

// NewQOS returns a QOS with every limit unset, for a TRES list of n.
func NewQOS(name string, n int) *QOS {
	q := &QOS{Name: name, UsageFactor: 1}
	for _, v := range q.tresFields() {
		*v.p = NewVector(n)
	}
	for _, f := range q.countFields() {
		*f.p = Infinite
	}
	return q
}

type tresField struct {
	name string
	p    *Vector
}

type countField struct {
	name string
	p    *uint32
}

// tresFields lists the QOS's TRES limits with sacctmgr's names, in the
// order sacctmgr dump writes them.
func (q *QOS) tresFields() []tresField {
	return []tresField{
		{"GrpTRES", &q.GrpTRES}, {"GrpTRESMins", &q.GrpTRESMins}, {"GrpTRESRunMins", &q.GrpTRESRunMins},
		{"MaxTRESMinsPerJob", &q.MaxTRESMinsPerJob}, {"MaxTRESPerAccount", &q.MaxTRESPerAccount},
		{"MaxTRESPerJob", &q.MaxTRESPerJob}, {"MaxTRESPerNode", &q.MaxTRESPerNode},
		{"MaxTRESPerUser", &q.MaxTRESPerUser}, {"MaxTRESRunMinsPerAccount", &q.MaxTRESRunMinsPerAccount},
		{"MaxTRESRunMinsPerUser", &q.MaxTRESRunMinsPerUser}, {"MinTRESPerJob", &q.MinTRESPerJob},
	}
}

func (q *QOS) countFields() []countField {
	return []countField{
		{"GrpJobs", &q.GrpJobs}, {"GrpJobsAccrue", &q.GrpJobsAccrue}, {"GrpSubmitJobs", &q.GrpSubmitJobs},
		{"GrpWall", &q.GrpWall},
		{"MaxJobsPerAccount", &q.MaxJobsPerAccount}, {"MaxJobsPerUser", &q.MaxJobsPerUser},
		{"MaxJobsAccruePerAccount", &q.MaxJobsAccruePerAccount}, {"MaxJobsAccruePerUser", &q.MaxJobsAccruePerUser},
		{"MaxSubmitJobsPerAccount", &q.MaxSubmitJobsPerAccount}, {"MaxSubmitJobsPerUser", &q.MaxSubmitJobsPerUser},
		{"MaxWallDurationPerJob", &q.MaxWall}, {"MinPrioThreshold", &q.MinPrioThreshold},
	}
}
