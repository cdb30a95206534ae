package sched

import "github.com/nodesift/sift/limits"

// Reason is why a job is pending: Slurm's enum job_state_reason, with the
// strings of src/common/job_state_reason.c that squeue prints.
type Reason uint8

// Pending reasons sift sets. The string of each is Slurm's.
const (
	ReasonNone            Reason = iota // None
	ReasonPriority                      // Priority
	ReasonDependency                    // Dependency
	ReasonResources                     // Resources
	ReasonPartNodeLimit                 // PartitionNodeLimit
	ReasonPartTimeLimit                 // PartitionTimeLimit
	ReasonPartDown                      // PartitionDown
	ReasonPartInactive                  // PartitionInactive
	ReasonHeld                          // JobHeldAdmin
	ReasonHeldUser                      // JobHeldUser
	ReasonBeginTime                     // BeginTime
	ReasonReservation                   // Reservation
	ReasonReqNodeNotAvail               // ReqNodeNotAvail
	ReasonBadConstraints                // BadConstraints
	ReasonDepInvalid                    // DependencyNeverSatisfied
	ReasonPartConfig                    // PartitionConfig
	ReasonAccountPolicy                 // AccountingPolicy
	ReasonConstraints                   // Constraints
	reasonCount
)

var reasonNames = [reasonCount]string{
	ReasonNone:            "None",
	ReasonPriority:        "Priority",
	ReasonDependency:      "Dependency",
	ReasonResources:       "Resources",
	ReasonPartNodeLimit:   "PartitionNodeLimit",
	ReasonPartTimeLimit:   "PartitionTimeLimit",
	ReasonPartDown:        "PartitionDown",
	ReasonPartInactive:    "PartitionInactive",
	ReasonHeld:            "JobHeldAdmin",
	ReasonHeldUser:        "JobHeldUser",
	ReasonBeginTime:       "BeginTime",
	ReasonReservation:     "Reservation",
	ReasonReqNodeNotAvail: "ReqNodeNotAvail",
	ReasonBadConstraints:  "BadConstraints",
	ReasonDepInvalid:      "DependencyNeverSatisfied",
	ReasonPartConfig:      "PartitionConfig",
	ReasonAccountPolicy:   "AccountingPolicy",
	ReasonConstraints:     "Constraints",
}

// reasonLimitBase is where the association and QOS limit reasons start:
// Reason(reasonLimitBase+r) is limits.Reason r, whose names package
// limits owns.
const reasonLimitBase Reason = 64

// LimitReason is the pending reason of an association or QOS limit
// (AssocGrpCpuLimit, QOSMaxJobsPerUserLimit, ...).
func LimitReason(r limits.Reason) Reason {
	if r == limits.ReasonNone {
		return ReasonNone
	}
	return reasonLimitBase + Reason(r)
}

// Limit is the limit reason r stands for, if it is one.
func (r Reason) Limit() (limits.Reason, bool) {
	if r <= reasonLimitBase {
		return limits.ReasonNone, false
	}
	return limits.Reason(r - reasonLimitBase), true
}

// String is Slurm's name of the reason, as squeue prints it.
func (r Reason) String() string {
	if r < reasonCount {
		return reasonNames[r]
	}
	if l, ok := r.Limit(); ok {
		return l.String()
	}
	return "Unknown"
}

// isPartReason is Slurm's JSR_PART flag: reasons job_limits_check sets
// from the partition, which a later check may clear.
func (r Reason) isPartReason() bool {
	switch r {
	case ReasonPartNodeLimit, ReasonPartTimeLimit, ReasonPartDown, ReasonPartInactive:
		return true
	}
	return false
}
