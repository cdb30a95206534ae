package priority

import (
	"fmt"
	"math"

	"github.com/nodesift/sift/limits"
)

// Partition is what priority needs of a slurm.conf partition.
type Partition struct {
	Name string
	// JobFactor is PriorityJobFactor (slurm.conf's default is 1).
	JobFactor uint32
	// MaxTime is MaxTime in minutes (limits.Infinite: UNLIMITED), the
	// time limit SMALL_RELATIVE_TO_TIME divides by for a job without one.
	MaxTime uint32
	// TRES are the partition's TRES totals (cpu, mem, node, gres ...),
	// the denominators of the TRES factors.
	TRES limits.Vector
}

// Cluster is the size of the cluster the job size factor is relative to.
type Cluster struct {
	// CPUs and Nodes are the cluster's CPUs and active nodes.
	CPUs, Nodes uint32
	Partitions  []Partition
}

// Factors are one sprio row: the weighted factors of a job in one
// partition (and QOS), as slurmctld keeps them in prio_factors.
type Factors struct {
	JobID                             uint32
	User, Account, Partition, QOSName string
	Age, Assoc, FairShare, JobSize    float64
	PartitionF, QOS                   float64
	Site, Nice                        int64
	// TRES are the weighted TRES factors, in TRES order.
	TRES []float64
	// Direct is an administrator's priority (the factors are then zero).
	Direct uint32
}

// Sum is the priority sprio prints for the row
// (get_priority_from_factors): the factors added, at least 1.
func (f *Factors) Sum() float64 {
	if f.Direct > 0 {
		return float64(f.Direct)
	}
	p := f.Age + f.Assoc + f.FairShare + f.JobSize + f.PartitionF + f.QOS + float64(f.Site) - float64(f.Nice)
	for _, t := range f.TRES {
		p += t
	}
	return math.Max(p, 1)
}

// Priority is the job priority slurmctld stores for the row
// (_get_priority_internal): the factors added in its order (the TRES
// summed first), at least 1, at most 2^32-1, truncated.
func (f *Factors) Priority() uint32 {
	if f.Direct > 0 {
		return f.Direct
	}
	var tres float64
	for _, t := range f.TRES {
		tres += t
	}
	return clampPriority(f.Age + f.Assoc + f.FairShare + f.JobSize + f.PartitionF + f.QOS + tres +
		float64(f.Site) - float64(f.Nice))
}

func clampPriority(p float64) uint32 {
	if p < 1 {
		return 1
	}
	if p > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(p)
}

// Multifactor is priority/multifactor over an accounting policy: it binds
// jobs to their associations and QOS, keeps fair-share (Shares), usage
// (Usage) and accrue state (Accrue), and computes each job's factors and
// priority.
type Multifactor struct {
	Config  Config
	Policy  *limits.Policy
	Cluster Cluster
	Shares  *Shares
	Usage   *Usage
	Accrue  *Accrue

	weightTRES []float64
	// tresIdx are the TRES with a weight.
	tresIdx                   []int
	maxAssoc, maxQOS, maxPart uint32
	parts                     map[string]*Partition
}

// New returns priority/multifactor over p (its association tree and QOS)
// for a cluster. The TRES weights are resolved against p's TRES list.
func New(cfg Config, p *limits.Policy, c Cluster) (*Multifactor, error) {
	m := &Multifactor{Config: cfg, Policy: p, Cluster: c, parts: map[string]*Partition{}, maxPart: 1}
	if cfg.WeightTRES != "" {
		bw, err := p.TRES.ParseBillingWeights(cfg.WeightTRES)
		if err != nil {
			return nil, &ConfigError{Key: "PriorityWeightTRES", Value: cfg.WeightTRES, Err: err}
		}
		m.weightTRES = bw.Weights()
		for i, w := range m.weightTRES {
			if w != 0 {
				m.tresIdx = append(m.tresIdx, i)
			}
		}
	}
	for i := range c.Partitions {
		pt := &c.Partitions[i]
		m.parts[pt.Name] = pt
		m.maxPart = max(m.maxPart, pt.JobFactor)
	}
	p.Walk(func(a *limits.Assoc) {
		if pr := a.Effective().Priority; pr != limits.Infinite {
			m.maxAssoc = max(m.maxAssoc, pr)
		}
	})
	for _, q := range p.QOSList() {
		m.maxQOS = max(m.maxQOS, q.Priority)
	}
	switch {
	case cfg.Flags&MaxTRESGRES != 0:
		p.BillingMode = limits.BillMaxTRESGRES
	case cfg.Flags&MaxTRES != 0:
		p.BillingMode = limits.BillMaxTRES
	}
	m.Shares = NewShares(p, cfg.Flags, cfg.Dampening)
	m.Usage = NewUsage(m.Shares, cfg)
	m.Accrue = NewAccrue(cfg)
	return m, nil
}

// BindError is a job whose association or QOS is not known.
type BindError struct {
	JobID uint32
	Err   error
}

func (e *BindError) Error() string { return fmt.Sprintf("job %d: %v", e.JobID, e.Err) }

func (e *BindError) Unwrap() error { return e.Err }

// Bind looks up the job's association (for its first partition) and QOS
// as limits.Policy.Bind does.
func (m *Multifactor) Bind(j *Job) error {
	part := ""
	if len(j.Partitions) > 0 {
		part = j.Partitions[0]
	}
	j.part = m.parts[part]
	j.assoc, j.qos, j.node = nil, nil, nil
	lj := &limits.Job{ID: j.ID, User: j.User, Account: j.Account, Partition: part, QOS: j.QOS}
	if err := m.Policy.Bind(lj); err != nil {
		return &BindError{JobID: j.ID, Err: err}
	}
	j.assoc, j.qos = lj.Assoc(), lj.JobQOS()
	j.node = m.Shares.Node(j.assoc)
	if j.Account == "" && j.assoc != nil {
		j.Account = j.assoc.Account // the user's DefaultAccount
	}
	if j.assoc == nil {
		return &BindError{JobID: j.ID, Err: limits.ErrInvalidAccount}
	}
	return nil
}

// Assoc and QOS are what the job was bound to.
func (j *Job) Assoc() *limits.Assoc { return j.assoc }

// QOSBound is the job's QOS after Bind (nil: none).
func (j *Job) QOSBound() *limits.QOS { return j.qos }

// Factors computes the job's factors at now for each of its partitions
// (set_priority_factors, then the per-partition part and TRES factors of
// a multi-partition job). The job must be bound.
func (m *Multifactor) Factors(j *Job, now int64) []Factors {
	parts := j.Partitions
	if len(parts) == 0 {
		parts = []string{""}
	}
	out := make([]Factors, 0, len(parts))
	base := m.base(j, now)
	for i, name := range parts {
		f := base
		f.Partition = name
		pt := m.parts[name]
		f.PartitionF = m.partFactor(pt, i == 0 && len(parts) == 1) * float64(m.Config.WeightPartition)
		f.TRES = m.tresFactors(j, pt)
		out = append(out, f)
	}
	return out
}

// Priority is the job's priority (for its first partition), as
// Factors(j, now)[0].Priority() without building the row.
func (m *Multifactor) Priority(j *Job, now int64) uint32 {
	if j.Direct > 0 {
		return j.Direct
	}
	w := m.weighted(j, now)
	pt := j.part
	part := m.partFactor(pt, len(j.Partitions) <= 1) * float64(m.Config.WeightPartition)
	var tres float64
	for _, i := range m.tresIdx {
		tres += m.tresFactor(j, pt, i)
	}
	return clampPriority(w.age + w.assoc + w.fs + w.js + part + w.qos + tres + float64(j.Site) - float64(j.Nice))
}

// Recompute is one recalculation of the decay thread at now
// (decay_apply_weighted_factors): every job that is pending (or running,
// with CALCULATE_RUNNING), not held and without an administrator's
// priority gets its new priority in prio[i]; INCR_ONLY keeps a higher old
// one. prio holds the old priorities on entry.
func (m *Multifactor) Recompute(jobs []*Job, prio []uint32, now int64) {
	for i, j := range jobs {
		if prio[i] == 0 || j.Held || (j.Running && m.Config.Flags&CalculateRunning == 0) {
			continue
		}
		p := m.Priority(j, now)
		if m.Config.Flags&IncrOnly == 0 || p > prio[i] {
			prio[i] = p
		}
	}
}

// Sprio are the rows sprio prints at now (priority_p_get_priority_factors_list):
// pending jobs (and running ones with CALCULATE_RUNNING) that are not held
// and whose eligible time (submit time with ACCRUE_ALWAYS) has come, one
// row per partition. Slurm prints the factors of the last calculation, so
// now is that calculation's time.
func (m *Multifactor) Sprio(jobs []*Job, now int64) []Factors {
	var out []Factors
	for _, j := range jobs {
		if j.Running && m.Config.Flags&CalculateRunning == 0 {
			continue
		}
		use := j.Eligible
		if m.Config.Flags&AccrueAlways != 0 {
			use = j.Submit
		}
		if use == 0 || use > now || j.Held {
			continue
		}
		out = append(out, m.Factors(j, now)...)
	}
	return out
}

// partFactor is the partition factor before its weight: PriorityJobFactor
// normalised by the largest (at least 1), or raw with NO_NORMAL_PART. A
// single-partition job with a zero factor gets 0 either way.
func (m *Multifactor) partFactor(pt *Partition, single bool) float64 {
	if pt == nil {
		return 0
	}
	if single && pt.JobFactor == 0 {
		return 0
	}
	if m.Config.Flags&NoNormalPart != 0 {
		return float64(pt.JobFactor)
	}
	return float64(pt.JobFactor) / float64(m.maxPart)
}

// base is every factor that does not depend on the partition.
func (m *Multifactor) base(j *Job, now int64) Factors {
	f := Factors{JobID: j.ID, User: j.User, Account: j.Account, Site: j.Site, Nice: int64(j.Nice), Direct: j.Direct}
	if j.qos != nil {
		f.QOSName = j.qos.Name
	}
	if j.Direct > 0 {
		f.Site, f.Nice = 0, 0
		return f
	}
	w := m.weighted(j, now)
	f.Age, f.Assoc, f.FairShare, f.JobSize, f.QOS = w.age, w.assoc, w.fs, w.js, w.qos
	return f
}

// weightedFactors are the partition-independent factors times their
// weights.
type weightedFactors struct{ age, assoc, fs, js, qos float64 }

// weighted is set_priority_factors without the partition and TRES.
func (m *Multifactor) weighted(j *Job, now int64) weightedFactors {
	cfg := &m.Config
	var w weightedFactors
	if cfg.WeightAge != 0 && j.Accrue != 0 {
		var diff uint32
		if now > j.Accrue {
			diff = uint32(now - j.Accrue)
		}
		age := 1.0
		if int64(diff) < cfg.MaxAge {
			age = float64(diff) / float64(cfg.MaxAge)
		}
		w.age = age * float64(cfg.WeightAge)
	}
	if n := j.node; n != nil && cfg.WeightFairshare != 0 {
		if cfg.Flags&FairTree == 0 && !n.efctvSet {
			m.Shares.setAssocUsage(n)
		}
		w.fs = n.FSFactor * float64(cfg.WeightFairshare)
	}
	if cfg.WeightJobSize != 0 && m.Cluster.Nodes != 0 && m.Cluster.CPUs != 0 {
		w.js = m.jobSize(j) * float64(cfg.WeightJobSize)
	}
	if j.assoc != nil && cfg.WeightAssoc != 0 {
		pr := j.assoc.Effective().Priority
		if pr == limits.Infinite {
			pr = 0
		}
		v := 0.0
		switch {
		case cfg.Flags&NoNormalAssoc != 0:
			v = float64(pr)
		case m.maxAssoc != 0:
			v = float64(pr) / float64(m.maxAssoc)
		}
		w.assoc = v * float64(cfg.WeightAssoc)
	}
	if q := j.qos; q != nil && q.Priority != 0 && cfg.WeightQOS != 0 {
		v := 0.0
		switch {
		case cfg.Flags&NoNormalQOS != 0:
			v = float64(q.Priority)
		case m.maxQOS != 0:
			v = float64(q.Priority) / float64(m.maxQOS)
		}
		w.qos = v * float64(cfg.WeightQOS)
	}
	return w
}

// jobSize is the job size factor before its weight: favouring large jobs
// (the mean of the node and CPU fractions of the cluster), small ones
// (one minus each), or with SMALL_RELATIVE_TO_TIME the job's CPUs per
// minute of its time limit over the cluster's CPUs.
func (m *Multifactor) jobSize(j *Job) float64 {
	cpus, nodes := float64(m.Cluster.CPUs), float64(m.Cluster.Nodes)
	minNodes := float64(max(j.MinNodes, 1))
	cnt := float64(j.CPUs)
	var js float64
	switch {
	case m.Config.Flags&SmallRelativeToTime != 0:
		js = minNodes * cpus / nodes
		if cnt > js {
			js = cnt
		}
		limit := 1.0
		if j.TimeLimit != limits.NoVal {
			limit = float64(j.TimeLimit)
		} else if len(j.Partitions) > 0 {
			if pt := m.parts[j.Partitions[0]]; pt != nil {
				limit = float64(pt.MaxTime)
			}
		}
		js /= limit
		js /= cpus
		if m.Config.FavorSmall {
			js = 1 - js
		}
	case m.Config.FavorSmall:
		if nodes > minNodes {
			js = (nodes - minNodes) / nodes
		}
		if cnt != 0 {
			js += (cpus - cnt) / cpus
			js /= 2
		}
	default:
		js = minNodes / nodes
		if cnt != 0 {
			js += cnt / cpus
			js /= 2
		}
	}
	return math.Min(math.Max(js, 0), 1)
}

// tresFactors are the weighted TRES factors: each TRES of the job over the
// partition's total (or raw with NO_NORMAL_TRES), times its weight.
func (m *Multifactor) tresFactors(j *Job, pt *Partition) []float64 {
	if m.weightTRES == nil {
		return nil
	}
	out := make([]float64, len(m.weightTRES))
	for _, i := range m.tresIdx {
		out[i] = m.tresFactor(j, pt, i)
	}
	return out
}

// tresFactor is the weighted factor of TRES i.
func (m *Multifactor) tresFactor(j *Job, pt *Partition, i int) float64 {
	w := m.weightTRES[i]
	if i >= len(j.TRES) {
		return 0
	}
	v := j.TRES[i]
	if v == limits.Infinite64 {
		v = 0
	}
	switch {
	case m.Config.Flags&NoNormalTRES != 0:
		return float64(v) * w
	case v != 0 && pt != nil && i < len(pt.TRES) && pt.TRES[i] != 0 && pt.TRES[i] != limits.Infinite64:
		return float64(v) / float64(pt.TRES[i]) * w
	}
	return 0
}
