package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/priority"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
)

func init() { register(newPriorityCmd) }

func newPriorityCmd() *cobra.Command {
	var lf limitsFlags
	var jobsPath, usagePath, at, output string
	var sets []string
	var shares, parsable, normalized bool
	cmd := &cobra.Command{
		Use:   "priority --limits FILE --jobs FILE [--usage FILE] [--nodes slurm.conf] [--at TIME] [--shares] [--output text|json]",
		Short: "Compute job priorities as priority/multifactor does: sprio and sshare rows",
		Long: `priority computes what Slurm's priority/multifactor plugin would at --at: every pending job's
factors (age, association, fair-share, job size, partition, QOS, site, nice, TRES) and total, as
'sprio -l' prints them, or with --shares every association's shares and usage as
'sshare -a -l' prints them (Fair Tree's LevelFS column unless PriorityFlags has NO_FAIR_TREE).

The associations and QOS come from --limits (a 'sacctmgr dump' file, with --limits-qos, --tres,
--enforce, --partition-qos as in 'sift limits'); the jobs from --jobs (a sift jobs file: pending
jobs, and running and finished ones with their start and end times). Usage is read from --usage
('sshare -a -P' output: each association's RawUsage), or else charged from the jobs file's
running and finished jobs as slurmctld's decay thread would, every PriorityCalcPeriod from the
first start up to --at (billing TRES x seconds x UsageFactor, decayed with
PriorityDecayHalfLife). A job's age counts from when it became eligible, or, under accrue limits,
from --at if there is room (sift sees the queue once).

The Priority* keys (and FairShareDampeningFactor, AccountingStorageEnforce) come from a slurm.conf
--nodes, whose nodes and partitions also give the cluster's size, PriorityJobFactor and TRES
totals; --set KEY=VALUE (repeatable) overrides any of them. Without a slurm.conf the defaults are
slurm.conf's and the job size factor is 0. Times are Unix seconds, RFC 3339 or
YYYY-MM-DDTHH:MM:SS (UTC).

Exit status: 0 ok, 2 invalid input, 1 unreadable files.`,
		SilenceUsage: true,
		Args:         cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return invalidInput(fmt.Errorf("unknown --output %q, expected text or json", output))
			}
			if jobsPath == "" {
				return invalidInput(errors.New("--jobs is required"))
			}
			now, err := atTime(at)
			if err != nil {
				return err
			}
			var inv *inventory.Cluster
			if lf.nodes.spec != "" {
				var err error
				if inv, err = lf.nodes.cluster(cmd); err != nil {
					return err
				}
			}
			pol, err := lf.load(cmd)
			if err != nil {
				return err
			}
			if err := lf.partitions(cmd, pol); err != nil {
				return err
			}
			cfg, err := priorityConfig(inv, pol, sets)
			if err != nil {
				return invalidInput(err)
			}
			m, err := priority.New(cfg, pol, priorityCluster(inv, pol))
			if err != nil {
				return invalidInput(err)
			}
			data, err := os.ReadFile(jobsPath)
			if err != nil {
				return err
			}
			files, _, err := sched.ParseJobFile(data)
			if err != nil {
				return invalidInput(fmt.Errorf("%s: %w", jobsPath, withSource(string(data), err)))
			}
			jobs, err := priorityJobs(cmd.ErrOrStderr(), m, files, defaultPartitionOf(inv))
			if err != nil {
				return invalidInput(fmt.Errorf("%s: %w", jobsPath, err))
			}
			if usagePath != "" {
				udata, err := os.ReadFile(usagePath)
				if err != nil {
					return err
				}
				skipped, err := priority.ReadSshareUsage(udata, m.Shares)
				if err != nil {
					return invalidInput(fmt.Errorf("%s: %w", usagePath, withSource(string(udata), err)))
				}
				for _, s := range skipped {
					fmt.Fprintf(cmd.ErrOrStderr(), "sift: warning: %s: association %s is not in --limits; its usage is ignored\n", usagePath, s)
				}
				m.Shares.Compute()
			} else {
				chargeHistory(m, jobs, now)
			}
			var pending []*priority.Job
			for _, pj := range jobs {
				if !pj.finished {
					pending = append(pending, pj.Job)
				}
			}
			m.Accrue.Update(pending, now)
			w := cmd.OutOrStdout()
			if shares {
				rows := m.ShareRows()
				if output == "json" {
					return writeJSON(w, shareJSON(rows, pol.TRES))
				}
				return priority.WriteSshare(w, rows, priority.SshareOptions{Long: true, Parsable: parsable, Flags: cfg.Flags, TRES: pol.TRES})
			}
			rows := m.Sprio(pending, now)
			if output == "json" {
				return writeJSON(w, sprioJSON(rows, m, pol.TRES))
			}
			return priority.WriteSprio(w, rows, priority.SprioOptions{Long: true, Normalized: normalized, Config: cfg, TRES: pol.TRES})
		},
	}
	f := cmd.Flags()
	lf.register(cmd, true)
	f.StringVar(&jobsPath, "jobs", "", "the jobs: a sift jobs file (JSON)")
	f.StringVar(&usagePath, "usage", "", "each association's RawUsage: 'sshare -a -P' output (default: charged from the jobs file's running and finished jobs)")
	f.StringVar(&at, "at", "", "the time of the calculation (default: the clock)")
	f.StringVar(&output, "output", "text", "output format: text or json")
	f.StringArrayVar(&sets, "set", nil, "KEY=VALUE: a slurm.conf priority key (PriorityWeightAge=1000, PriorityFlags=NO_FAIR_TREE, ...)")
	f.BoolVar(&shares, "shares", false, "print the associations as 'sshare -a -l' instead of the jobs as 'sprio -l'")
	f.BoolVar(&parsable, "parsable", false, "with --shares: as 'sshare -P' ('|' between fields)")
	f.BoolVar(&normalized, "normalized", false, "print the factors before their weights, as 'sprio -n -l'")
	return cmd
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func defaultPartitionOf(inv *inventory.Cluster) string {
	if inv == nil {
		return ""
	}
	return defaultPartition(inv.Partitions)
}

// priorityConfig is slurm.conf's priority keys, then --set.
func priorityConfig(inv *inventory.Cluster, pol *limits.Policy, sets []string) (priority.Config, error) {
	cfg := priority.DefaultConfig()
	cfg.EnforceLimits = pol.Enforce&limits.EnforceLimits != 0
	if inv != nil {
		keys := make([]string, 0, len(inv.Priority))
		for k := range inv.Priority {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.EqualFold(k, "accountingstorageenforce") {
				continue // --enforce wins; it defaults to what sift limits uses
			}
			if _, err := cfg.Set(k, inv.Priority[k]); err != nil {
				return cfg, err
			}
		}
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return cfg, fmt.Errorf("--set %q: expected KEY=VALUE", s)
		}
		taken, err := cfg.Set(strings.TrimSpace(k), v)
		if err != nil {
			return cfg, fmt.Errorf("--set: %w", err)
		}
		if !taken {
			return cfg, fmt.Errorf("--set %q: not a priority key", k)
		}
	}
	return cfg, nil
}

// priorityCluster is the cluster's size and its partitions' factors and
// TRES totals, from a slurm.conf (none without one).
func priorityCluster(inv *inventory.Cluster, pol *limits.Policy) priority.Cluster {
	var c priority.Cluster
	if inv == nil {
		for _, p := range pol.Partitions() {
			c.Partitions = append(c.Partitions, priority.Partition{Name: p.Name, JobFactor: 1, MaxTime: p.MaxTime})
		}
		return c
	}
	byName := map[string]int{}
	for i, n := range inv.Nodes {
		byName[n.Name] = i
		c.CPUs += uint32(n.CPUs)
	}
	c.Nodes = uint32(len(inv.Nodes))
	gpu, hasGPU := pol.TRES.Index("gres/gpu")
	for _, p := range inv.Partitions {
		pt := priority.Partition{Name: p.Name, JobFactor: 1, MaxTime: limits.Infinite, TRES: make(limits.Vector, pol.TRES.Len())}
		if p.PriorityJobFactor != nil {
			pt.JobFactor = *p.PriorityJobFactor
		}
		if p.MaxTime >= 0 {
			pt.MaxTime = uint32(p.MaxTime)
		}
		for _, name := range p.Nodes {
			n := inv.Nodes[byName[name]]
			pt.TRES[limits.TRESCPU] += uint64(n.CPUs)
			pt.TRES[limits.TRESMem] += n.MemoryMB
			pt.TRES[limits.TRESNode]++
			for _, g := range n.Gres {
				if hasGPU && g.Name == "gpu" {
					pt.TRES[gpu] += g.Count
				}
			}
		}
		if lp := pol.Partition(p.Name); lp != nil {
			pt.TRES[limits.TRESBilling] = uint64(lp.Billing.Billing(pol.TRES, pt.TRES, pol.BillingMode))
		}
		c.Partitions = append(c.Partitions, pt)
	}
	return c
}

// priorityJob is a jobs-file job as priority sees it, with its history.
type priorityJob struct {
	*priority.Job
	start, end int64
	finished   bool
	billing    float64
}

// priorityJobs binds the jobs file's jobs. A job whose association is not
// known is reported and left out.
func priorityJobs(stderr io.Writer, m *priority.Multifactor, files []sched.FileJob, defPart string) ([]*priorityJob, error) {
	finished := map[uint32]bool{}
	for _, fj := range files {
		switch strings.ToLower(fj.State) {
		case "completed", "failed", "cancelled", "timeout":
			finished[fj.ID] = true
		}
	}
	var out []*priorityJob
	for _, fj := range files {
		req := &job.Request{MinNodes: 1}
		if strings.TrimSpace(fj.Request) != "" {
			var err error
			if req, err = job.ParseSpec(fj.Request); err != nil {
				return nil, fmt.Errorf("job %d: request: %w", fj.ID, err)
			}
		}
		part := fj.Partition
		if part == "" {
			part = req.Partition
		}
		if part == "" {
			part = defPart
		}
		nodes := max(req.MinNodes, 1)
		pj := &priority.Job{ID: fj.ID, User: fj.User, Account: fj.Account, QOS: fj.QOS, Submit: int64(fj.Submit),
			Held: fj.Hold, Nice: fj.Nice, MinNodes: uint32(nodes), CPUs: uint32(req.MinCPUs(nodes)), TimeLimit: limits.NoVal}
		if part != "" {
			pj.Partitions = strings.Split(part, ",")
		}
		if fj.Priority != nil {
			pj.Direct = *fj.Priority
		}
		limit := req.TimeLimit
		if fj.TimeLimit != "" {
			d, err := job.ParseTime(fj.TimeLimit)
			if err != nil {
				return nil, fmt.Errorf("job %d: time_limit: %w", fj.ID, err)
			}
			limit = d
		}
		if limit > 0 {
			pj.TimeLimit = limits.Infinite
			if limit != job.Unlimited {
				pj.TimeLimit = uint32((limit + time.Minute - 1) / time.Minute)
			}
		}
		pj.Eligible = max(int64(fj.Submit), int64(fj.Begin))
		deps, _, err := sched.ParseDependency(fj.Dependency)
		if err != nil {
			return nil, fmt.Errorf("job %d: dependency: %w", fj.ID, err)
		}
		for _, d := range deps {
			if d.Kind != sched.Singleton && !finished[d.Job] {
				pj.Dependent, pj.Eligible = true, 0
			}
		}
		state := strings.ToLower(fj.State)
		pj.Running = state == "running" || state == "r"
		pj.TRES = make(limits.Vector, m.Policy.TRES.Len())
		pj.TRES[limits.TRESNode], pj.TRES[limits.TRESCPU] = uint64(nodes), uint64(pj.CPUs)
		switch {
		case req.MemPerCPU > 0:
			pj.TRES[limits.TRESMem] = req.MemPerCPU * uint64(pj.CPUs)
		case req.MemPerNode > 0:
			pj.TRES[limits.TRESMem] = req.MemPerNode * uint64(nodes)
		}
		if g := req.GPUsPerNode*nodes + req.GPUsPerJob; g > 0 {
			if i, ok := m.Policy.TRES.Index("gres/gpu"); ok {
				pj.TRES[i] = uint64(g)
			}
		}
		var bw *limits.BillingWeights
		if len(pj.Partitions) > 0 {
			if lp := m.Policy.Partition(pj.Partitions[0]); lp != nil {
				bw = lp.Billing
			}
		}
		billing := bw.Billing(m.Policy.TRES, pj.TRES, m.Policy.BillingMode)
		pj.TRES[limits.TRESBilling] = uint64(billing)
		if err := m.Bind(pj); err != nil {
			fmt.Fprintf(stderr, "sift: warning: %v; left out\n", err)
			continue
		}
		out = append(out, &priorityJob{Job: pj, start: int64(fj.Start), end: int64(fj.End),
			finished: finished[fj.ID], billing: billing})
	}
	return out, nil
}

// chargeHistory runs the decay thread every PriorityCalcPeriod from the
// first start to now, starting and ending the jobs' runs as they did.
func chargeHistory(m *priority.Multifactor, jobs []*priorityJob, now int64) {
	type run struct {
		j          *priorityJob
		begun, end bool
	}
	var runs []*run
	first := now
	for _, j := range jobs {
		if j.start == 0 || j.start > now || (!j.Running && !j.finished) {
			continue
		}
		runs = append(runs, &run{j: j})
		first = min(first, j.start)
	}
	sort.Slice(runs, func(a, b int) bool { return runs[a].j.start < runs[b].j.start })
	period := max(m.Config.CalcPeriod, 1)
	tick := func(t int64) {
		for _, r := range runs {
			if !r.begun && r.j.start <= t {
				uf := 1.0
				if q := r.j.QOSBound(); q != nil {
					uf = q.UsageFactor
				}
				m.Usage.Begin(&priority.RunningJob{ID: r.j.ID, Assoc: r.j.Assoc(), UsageFactor: uf, Start: r.j.start,
					TimeLimit: r.j.TimeLimit, Billing: r.j.billing, Alloc: r.j.TRES})
				r.begun = true
			}
			if r.begun && !r.end && r.j.finished && r.j.end != 0 && r.j.end <= t {
				m.Usage.End(r.j.ID, r.j.end)
				r.end = true
			}
		}
		m.Usage.Tick(t)
	}
	for t := first; t < now; t += period {
		tick(t)
	}
	tick(now)
}

// sprioRow is one sprio row in JSON.
type sprioRow struct {
	JobID     uint32             `json:"job_id"`
	Partition string             `json:"partition"`
	User      string             `json:"user"`
	Account   string             `json:"account"`
	QOS       string             `json:"qos"`
	Priority  int64              `json:"priority"`
	Site      int64              `json:"site"`
	Age       float64            `json:"age"`
	Assoc     float64            `json:"assoc"`
	FairShare float64            `json:"fairshare"`
	JobSize   float64            `json:"jobsize"`
	PartF     float64            `json:"partition_factor"`
	QOSF      float64            `json:"qos_factor"`
	Nice      int64              `json:"nice"`
	TRES      map[string]float64 `json:"tres,omitempty"`
}

func sprioJSON(rows []priority.Factors, m *priority.Multifactor, tl *limits.TRESList) []sprioRow {
	out := make([]sprioRow, 0, len(rows))
	for _, f := range rows {
		r := sprioRow{JobID: f.JobID, Partition: f.Partition, User: f.User, Account: f.Account, QOS: f.QOSName,
			Priority: int64(f.Sum()), Site: f.Site, Age: f.Age, Assoc: f.Assoc, FairShare: f.FairShare, JobSize: f.JobSize,
			PartF: f.PartitionF, QOSF: f.QOS, Nice: f.Nice}
		for i, v := range f.TRES {
			if v != 0 {
				if r.TRES == nil {
					r.TRES = map[string]float64{}
				}
				r.TRES[tl.Name(i)] = v
			}
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].JobID < out[j].JobID })
	return out
}

// shareRow is one sshare row in JSON; null where sshare prints nothing.
type shareRow struct {
	Account    string            `json:"account"`
	User       string            `json:"user,omitempty"`
	Partition  string            `json:"partition,omitempty"`
	Depth      int               `json:"depth"`
	RawShares  *string           `json:"raw_shares"`
	NormShares float64           `json:"norm_shares"`
	RawUsage   uint64            `json:"raw_usage"`
	NormUsage  *float64          `json:"norm_usage"`
	Effective  float64           `json:"effective_usage"`
	FairShare  *float64          `json:"fairshare"`
	LevelFS    any               `json:"level_fs"` // a number, "inf", or null
	RunMins    map[string]uint64 `json:"tres_run_mins,omitempty"`
}

func shareJSON(rows []priority.ShareRow, tl *limits.TRESList) []shareRow {
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	out := make([]shareRow, 0, len(rows))
	for _, r := range rows {
		s := shareRow{Account: r.Account, User: r.User, Partition: r.Partition, Depth: r.Depth, NormShares: r.NormShares,
			RawUsage: r.RawUsage, NormUsage: num(r.NormUsage), Effective: r.Effective, FairShare: num(r.FairShare)}
		switch {
		case math.IsInf(r.LevelFS, 1):
			s.LevelFS = "inf"
		case !math.IsNaN(r.LevelFS):
			s.LevelFS = r.LevelFS
		}
		switch r.RawShares {
		case limits.FairshareParent:
			v := "parent"
			s.RawShares = &v
		case limits.NoVal, limits.Infinite:
		default:
			v := fmt.Sprint(r.RawShares)
			s.RawShares = &v
		}
		for i, v := range r.RunMins {
			if v != 0 {
				if s.RunMins == nil {
					s.RunMins = map[string]uint64{}
				}
				s.RunMins[tl.Name(i)] = v
			}
		}
		out = append(out, s)
	}
	return out
}
