package limits

// Reason is why a limit holds a job pending or refuses it at submit:
// Slurm's enum job_state_reason, restricted to the association and QOS
// reasons acct_policy.c sets. Its String is the name squeue prints.
type Reason uint16

// String is Slurm's name of the reason ("AssocGrpCpuLimit").
func (r Reason) String() string {
	if r < reasonCount {
		return reasonNames[r]
	}
	return "Unknown"
}

// ReasonByName is the reason with Slurm's name s, if any.
func ReasonByName(s string) (Reason, bool) {
	for r, n := range reasonNames {
		if n == s {
			return Reason(r), true
		}
	}
	return ReasonNone, false
}

// limitKind is the "Unknown" reason family of a TRES limit
// (WAIT_ASSOC_GRP_UNK, WAIT_QOS_MAX_UNK_PER_USER, ...).
type limitKind uint8

const (
	kindAssocGrp limitKind = iota
	kindQOSGrp
	kindAssocGrpMin
	kindQOSGrpMin
	kindAssocGrpRunMin
	kindQOSGrpRunMin
	kindAssocMaxPerJob
	kindQOSMaxPerJob
	kindAssocMaxMinsPerJob
	kindQOSMaxMinsPerJob
	kindAssocMaxPerNode
	kindQOSMaxPerNode
	kindQOSMaxPerAcct
	kindQOSMaxPerUser
	kindQOSMaxRunMinsPerAcct
	kindQOSMaxRunMinsPerUser
	kindQOSMin
	limitKindCount
)

// tresClass groups TRES the way _get_tres_state_reason does.
type tresClass uint8

const (
	classCPU tresClass = iota
	classMem
	classEnergy
	classNode
	classBilling
	classGRES
	classLicense
	classBB
	classOther
	tresClassCount
)

func (l *TRESList) class(i int) tresClass {
	switch i {
	case TRESCPU:
		return classCPU
	case TRESMem:
		return classMem
	case TRESEnergy:
		return classEnergy
	case TRESNode:
		return classNode
	case TRESBilling:
		return classBilling
	}
	switch l.Type(i) {
	case "gres":
		return classGRES
	case "license":
		return classLicense
	case "bb":
		return classBB
	}
	return classOther
}

// tresReason is the reason of a limit of kind k on TRES i.
func (l *TRESList) tresReason(i int, k limitKind) Reason {
	return tresReasons[l.class(i)][k]
}
