package limits

// usedLimits is Slurm's slurmdb_used_limits_t: a QOS's usage by one user or
// one account.
type usedLimits struct {
	jobs, submitJobs uint32
	accrue           uint32
	tres             []uint64
	run              runSecs
	nodes            nodeCounts
}

// assocUsage is the usage of one association (with its children).
type assocUsage struct {
	usedJobs, usedSubmitJobs uint32
	accrue                   uint32
	grpUsedTRES              []uint64
	run                      runSecs
	nodes                    nodeCounts
	// usageRaw is the TRES-seconds used, decayed (usage_tres_raw);
	// usedWall the wall seconds (grp_used_wall).
	usageRaw []float64
	usedWall float64
}

// qosUsage is a QOS's usage, with its per-user and per-account lists.
type qosUsage struct {
	grpUsedJobs, grpUsedSubmitJobs uint32
	accrue                         uint32
	grpUsedTRES                    []uint64
	run                            runSecs
	nodes                          nodeCounts
	usageRaw                       []float64
	usedWall                       float64
	users, accounts                map[string]*usedLimits
}

func newAssocUsage(n int) assocUsage {
	return assocUsage{grpUsedTRES: make([]uint64, n), run: newRunSecs(n), usageRaw: make([]float64, n)}
}

func newQOSUsage(n int) qosUsage {
	return qosUsage{grpUsedTRES: make([]uint64, n), run: newRunSecs(n), usageRaw: make([]float64, n),
		users: map[string]*usedLimits{}, accounts: map[string]*usedLimits{}}
}

func (u *qosUsage) user(name string, n int) *usedLimits {
	ul, ok := u.users[name]
	if !ok {
		ul = &usedLimits{tres: make([]uint64, n), run: newRunSecs(n)}
		u.users[name] = ul
	}
	return ul
}

func (u *qosUsage) account(name string, n int) *usedLimits {
	ul, ok := u.accounts[name]
	if !ok {
		ul = &usedLimits{tres: make([]uint64, n), run: newRunSecs(n)}
		u.accounts[name] = ul
	}
	return ul
}

// runSecs is grp_used_tres_run_secs: the TRES-seconds running jobs still
// have before their time limits. Slurm adds count × limit at start and the
// priority plugin takes the elapsed time off as it passes; sift keeps, per
// TRES, Σ count×(start+limit) and Σ count so the value at any time is one
// subtraction. The sums wrap as uint64 and come back exactly on removal.
type runSecs struct {
	base, rate []uint64
}

func newRunSecs(n int) runSecs { return runSecs{base: make([]uint64, n), rate: make([]uint64, n)} }

func (r *runSecs) add(j *Job, sign uint64) {
	for i := range r.base {
		r.base[i] += sign * j.runBase[i]
		r.rate[i] += sign * j.runRate[i]
	}
}

// at is the TRES-seconds of TRES i left at now.
func (r *runSecs) at(i int, now int64) uint64 {
	v := r.base[i] - r.rate[i]*uint64(now)
	if int64(v) < 0 {
		return 0
	}
	return v
}

// nodeCounts counts, per node, the running jobs using it, for Grp and
// per-user/account node limits that count each node once
// (_add_usage_node_bitmap).
type nodeCounts map[uint32]uint32

// addJob adds a job's nodes and returns how many were new.
func (c *nodeCounts) addJob(nodes []uint32) uint64 {
	if *c == nil {
		*c = nodeCounts{}
	}
	var n uint64
	for _, id := range nodes {
		if (*c)[id] == 0 {
			n++
		}
		(*c)[id]++
	}
	return n
}

// removeJob removes a job's nodes and returns how many are now free.
func (c nodeCounts) removeJob(nodes []uint32) uint64 {
	var n uint64
	for _, id := range nodes {
		switch c[id] {
		case 0:
		case 1:
			delete(c, id)
			n++
		default:
			c[id]--
		}
	}
	return n
}

// unique is how many of nodes are not already counted
// (_get_unique_job_node_cnt).
func (c nodeCounts) unique(nodes []uint32) uint64 {
	var n uint64
	for _, id := range nodes {
		if c[id] == 0 {
			n++
		}
	}
	return n
}
