package limits

import "fmt"

// Who set a job's time limit (Slurm's limit_set.time).
const (
	setByUser  uint8 = iota // the user, or nobody
	setByLimit              // a QOS or association limit filled it in
	setByAdmin              // an administrator (ADMIN_SET_LIMIT): limits bypass it
)

// Job is what the limits need of a job.
type Job struct {
	ID                            uint32
	User, Account, Partition, QOS string
	// TimeLimit is the time limit in minutes: NoVal when the user gave
	// none (Validate may fill it in from MaxWall), Infinite for none.
	TimeLimit uint32
	// Req is the requested TRES (tres_req_cnt): cpu is the minimum CPUs,
	// node the minimum node count; 0 for TRES not requested.
	Req Vector
	// MinNodes and MaxNodes are the node-count range (0 MaxNodes: any).
	MinNodes, MaxNodes uint32
	// ArrayTasks is the number of array tasks the submission counts for
	// (0 or 1 for a plain job).
	ArrayTasks uint32
	// AdminTime and AdminTRES mark limits an administrator set on the job
	// (ADMIN_SET_LIMIT): the limits do not apply to them.
	AdminTime bool
	AdminTRES []bool

	limitSetTime uint8
	assoc        *Assoc
	qos, pqos    *QOS
	part         *Partition
	// submitQOS, runQOS, submitAssoc and runAssoc are where the job's usage
	// went at submit and start, so that it comes off the same records even
	// if the job is bound again (to another partition) in between.
	submitQOS, runQOS     [2]*QOS
	submitAssoc, runAssoc *Assoc
	submitted             bool
	running               bool
	alloc                 []uint64
	nodes                 []uint32
	start                 int64
	runBase, runRate      []uint64
	// accrueTime is when the job began to accrue age priority (0: it
	// does not); accrueQOS and accrueAssoc are where it is counted
	// (accrueCounted), so that it comes off the same records.
	accrueTime    int64
	accrueCounted bool
	accrueQOS     *QOS
	accrueAssoc   *Assoc
}

// slurmError is an error whose text is Slurm's own message for it.
type slurmError string

func (e slurmError) Error() string { return string(e) }

// Errors a job gets at submit before its limits are checked, with
// Slurm's messages.
var (
	// ErrInvalidAccount: the job's association is not known and
	// associations are enforced (ESLURM_INVALID_ACCOUNT).
	ErrInvalidAccount error = slurmError("Invalid account or account/partition combination specified")
	// ErrInvalidQOS: the job's QOS does not exist or its association may
	// not use it (ESLURM_INVALID_QOS).
	ErrInvalidQOS error = slurmError("Invalid qos specification")
)

// PolicyError is a job refused at submit by a limit
// (ESLURM_ACCOUNTING_POLICY); Reason names the limit as sbatch prints it.
type PolicyError struct {
	Reason Reason
	// Level names where the limit was found ("job QOS normal", "account
	// association phys").
	Level string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("%s: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)", e.Reason)
}

// Bind looks up the job's association, QOS and partition. A job whose
// association is unknown is refused when associations are enforced, else
// it runs outside every limit. A job without a QOS gets its association's
// default QOS, the only QOS its association may use, root's default, or
// "normal" if that exists (job_mgr.c's _get_qos_ptr order).
func (p *Policy) Bind(j *Job) error {
	j.part = p.partitions[j.Partition]
	j.qos, j.pqos = nil, nil
	account := j.Account
	if account == "" {
		// sbatch without --account: the user's default account.
		account = p.DefaultAccount(j.User)
	}
	j.assoc = p.User(j.User, account, j.Partition)
	if j.assoc == nil {
		if p.Enforce&EnforceAssociations != 0 {
			return ErrInvalidAccount
		}
		return nil
	}
	if j.Req == nil {
		j.Req = make(Vector, p.TRES.Len())
	}
	name := j.QOS
	qosList, def := j.assoc.effQOS, j.assoc.effDefQOS
	if name == "" {
		switch {
		case def != "":
			name = def
		case len(qosList) == 1:
			name = qosList[0]
		case p.Root.effDefQOS != "":
			name = p.Root.effDefQOS
		case p.qos["normal"] != nil:
			name = "normal"
		}
	}
	j.qos = nil
	if name != "" {
		j.qos = p.qos[name]
		if j.qos == nil && p.Enforce&EnforceQOS != 0 {
			return ErrInvalidQOS
		}
		if j.qos != nil && p.Enforce&EnforceQOS != 0 && len(qosList) > 0 && !contains(qosList, name) {
			return ErrInvalidQOS
		}
	}
	j.pqos = nil
	if j.part != nil && j.part.QOS != "" {
		j.pqos = p.qos[j.part.QOS]
	}
	if j.AdminTime {
		j.limitSetTime = setByAdmin
	}
	return nil
}

// QOSFlags are the flags of the job's own QOS (not the partition's), 0
// before Bind or without one.
func (j *Job) QOSFlags() QOSFlags {
	if j.qos == nil {
		return 0
	}
	return j.qos.Flags
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// qosOrder is acct_policy_set_qos_order: the partition QOS first unless
// the job's QOS has OverPartQOS; the same QOS is not looked at twice.
func (j *Job) qosOrder() (*QOS, *QOS) {
	q1, q2 := j.pqos, j.qos
	switch {
	case j.qos == nil:
		return j.pqos, nil
	case j.pqos == nil:
		return j.qos, nil
	case j.qos.Flags&OverPartQOS != 0:
		q1, q2 = j.qos, j.pqos
	}
	if q1 == q2 {
		q2 = nil
	}
	return q1, q2
}

func (j *Job) adminTRES(i int) bool { return i < len(j.AdminTRES) && j.AdminTRES[i] }

func (j *Job) jobCount() uint32 {
	if j.ArrayTasks == 0 {
		return 1
	}
	return j.ArrayTasks
}

// Assoc is the association the job was bound to (nil: none).
func (j *Job) Assoc() *Assoc { return j.assoc }

// JobQOS is the job's own QOS after Bind (nil: none), without the
// partition's; [priority] takes the QOS factor from it.
func (j *Job) JobQOS() *QOS { return j.qos }

// QOSUsed are the QOS the job is checked against, the first winning.
func (j *Job) QOSUsed() (*QOS, *QOS) { return j.qosOrder() }

// Running reports whether Begin was called and End not yet.
func (j *Job) Running() bool { return j.running }
