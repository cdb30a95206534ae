package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/limits/acctpolicy"
	"github.com/nodesift/sift/limits/yamlconf"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
	"github.com/spf13/cobra"
)

func init() { register(newLimitsCmd) }

// limitsFlags are the flags that load an accounting policy.
type limitsFlags struct {
	path, qosPath, tres, enforce string
	partQOS                      []string
	nodes                        nodesFlags
}

func (f *limitsFlags) register(cmd *cobra.Command, withNodes bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.path, "limits", "", "the associations and QOS: a sacctmgr dump file")
	fl.StringVar(&f.qosPath, "limits-qos", "", "QOS as sacctmgr show qos --parsable2 prints them (added to or replacing the dump's)")
	fl.StringVar(&f.tres, "tres", "", "AccountingStorageTRES beyond the fixed TRES, e.g. gres/gpu,license/matlab (default: those the files name)")
	fl.StringVar(&f.enforce, "enforce", "associations,limits,qos", "AccountingStorageEnforce")
	fl.StringSliceVar(&f.partQOS, "partition-qos", nil, "PARTITION=QOS: a partition's QOS (also read from a slurm.conf --nodes)")
	if withNodes {
		f.nodes.register(cmd)
	}
}

// load reads the policy: the dump, the QOS listing, the enforcement and
// the partitions' QOS; warnings go to stderr.
func (f *limitsFlags) load(cmd *cobra.Command) (*limits.Policy, error) {
	if f.path == "" {
		return nil, invalidInput(errors.New("--limits is required"))
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return nil, err
	}
	var qosData []byte
	if f.qosPath != "" {
		if qosData, err = os.ReadFile(f.qosPath); err != nil {
			return nil, err
		}
	}
	names := limits.TRESNamesIn(append(append([]byte{}, data...), qosData...))
	if f.tres != "" {
		names = strings.Split(f.tres, ",")
	}
	tl, err := limits.NewTRESList(names...)
	if err != nil {
		return nil, invalidInput(fmt.Errorf("--tres: %w", err))
	}
	var p *limits.Policy
	var warns []limits.Warning
	if isYAML(f.path) {
		p, warns, err = yamlconf.Read(f.path, data, tl)
		if err != nil {
			return nil, invalidInput(withSource(string(data), err))
		}
	} else if p, warns, err = limits.ReadDump(f.path, data, tl); err != nil {
		return nil, invalidInput(err)
	}
	if qosData != nil {
		w, err := limits.ReadQOSParsable(f.qosPath, qosData, p)
		if err != nil {
			return nil, invalidInput(err)
		}
		warns = append(warns, w...)
	}
	for _, w := range warns {
		fmt.Fprintf(cmd.ErrOrStderr(), "sift: warning: %s\n", w)
	}
	if p.Enforce, err = limits.ParseEnforce(f.enforce); err != nil {
		return nil, invalidInput(fmt.Errorf("--enforce: %w", err))
	}
	for _, pq := range f.partQOS {
		part, q, ok := strings.Cut(pq, "=")
		if !ok || part == "" || q == "" {
			return nil, invalidInput(fmt.Errorf("--partition-qos %q: expected PARTITION=QOS", pq))
		}
		if p.QOS(q) == nil {
			return nil, invalidInput(fmt.Errorf("--partition-qos %s: no QOS %q in %s", pq, q, f.path))
		}
		lp := p.Partition(part)
		if lp == nil {
			lp = limits.NewPartition(part)
			p.AddPartition(lp)
		}
		lp.QOS = q
	}
	return p, nil
}

// isYAML reports whether a --limits file is in sift's YAML form (by its
// name: .yaml or .yml) rather than a sacctmgr dump.
func isYAML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// partitions adds the partitions of a slurm.conf --nodes (their QOS,
// MaxTime, DefaultTime) to p.
func (f *limitsFlags) partitions(cmd *cobra.Command, p *limits.Policy) error {
	if f.nodes.spec == "" {
		return nil
	}
	inv, err := f.nodes.cluster(cmd)
	if err != nil {
		return err
	}
	_, err = acctpolicy.New(p, schedPartitions(inv.Partitions), partitionConf(inv.Partitions, inv.Nodes))
	return invalidInputIf(err)
}

// invalidInputIf marks a non-nil err as invalid input.
func invalidInputIf(err error) error {
	if err != nil {
		return invalidInput(err)
	}
	return nil
}

func newLimitsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "limits explain|check",
		Short: "Show the association and QOS limits in effect for a job, or check a job against them",
		Long: `limits reads an accounting policy as slurmdbd holds it: a 'sacctmgr dump' file (--limits; its QOS,
Cluster, Parent, Account and User lines), or the same in sift's YAML form (--limits FILE.yaml or
.yml; see README "Accounting limits"), and optionally 'sacctmgr show qos --parsable2' output
(--limits-qos). Partition QOS come from --partition-qos or a slurm.conf --nodes.

  explain  print each limit in effect for a job of --user under --account (in --partition, with
           --qos), one a line with the level it comes from, in Slurm's order: partition QOS, job
           QOS (swapped by OverPartQOS), user association, account associations up the tree,
           root, partition
  check    check a job (--job, in 'sift select --job' syntax) as slurmctld would at submit and
           at start, against the running and pending jobs of --usage (a sift jobs file): exit 0
           if it may be submitted and started now, 3 with the limit's reason name if not

Exit status: 0 ok, 2 invalid input, 1 unreadable files, 3 (check) refused or held.`,
		SilenceUsage: true,
		Args:         cobra.NoArgs,
		RunE:         func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newLimitsExplainCmd(), newLimitsCheckCmd())
	return cmd
}

type jobWho struct{ user, account, partition, qos string }

func (w *jobWho) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&w.user, "user", "", "the job's user")
	fl.StringVar(&w.account, "account", "", "the job's account")
	fl.StringVar(&w.partition, "partition", "", "the job's partition")
	fl.StringVar(&w.qos, "qos", "", "the job's QOS (default: the association's default)")
}

func (w *jobWho) check() error {
	if w.user == "" || w.account == "" {
		return invalidInput(errors.New("--user and --account are required"))
	}
	return nil
}

func newLimitsExplainCmd() *cobra.Command {
	var lf limitsFlags
	var who jobWho
	cmd := &cobra.Command{
		Use:   "explain --limits FILE --user U --account A [--partition P] [--qos Q]",
		Short: "Print each limit in effect for a job, with the level it comes from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := who.check(); err != nil {
				return err
			}
			p, err := lf.load(cmd)
			if err != nil {
				return err
			}
			if err := lf.partitions(cmd, p); err != nil {
				return err
			}
			eff, err := p.Explain(who.user, who.account, who.partition, who.qos)
			if err != nil {
				return invalidInput(fmt.Errorf("user %s account %s: %w", who.user, who.account, err))
			}
			w := cmd.OutOrStdout()
			if len(eff) == 0 {
				_, err := fmt.Fprintln(w, "no limits")
				return err
			}
			for _, e := range eff {
				if _, err := fmt.Fprintln(w, e); err != nil {
					return err
				}
			}
			return nil
		},
	}
	lf.register(cmd, true)
	who.register(cmd)
	return cmd
}

func newLimitsCheckCmd() *cobra.Command {
	var lf limitsFlags
	var who jobWho
	var spec, usagePath, at string
	cmd := &cobra.Command{
		Use:   "check --limits FILE --user U --account A [--partition P] [--qos Q] --job SPEC [--usage FILE] [--at TIME]",
		Short: "Check whether a job may be submitted and started now under the limits",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := who.check(); err != nil {
				return err
			}
			if spec == "" {
				return invalidInput(errors.New("--job is required"))
			}
			req, err := job.ParseSpec(spec)
			if err != nil {
				return constraintError(spec, fmt.Errorf("--job: %w", err))
			}
			now, err := atTime(at)
			if err != nil {
				return err
			}
			p, err := lf.load(cmd)
			if err != nil {
				return err
			}
			if err := lf.partitions(cmd, p); err != nil {
				return err
			}
			h, err := acctpolicy.New(p, nil, nil)
			if err != nil {
				return invalidInput(err)
			}
			if usagePath != "" {
				if err := loadUsage(cmd.ErrOrStderr(), h, usagePath, now); err != nil {
					return err
				}
			}
			part := who.partition
			if part == "" {
				part = req.Partition
			}
			j := &sched.Job{ID: 1 << 31, User: who.user, Account: who.account, QOS: who.qos,
				Partitions: []string{part}, Partition: part, TimeLimit: req.TimeLimit, Request: req}
			return checkJob(cmd.OutOrStdout(), h, j, now)
		},
	}
	lf.register(cmd, true)
	who.register(cmd)
	cmd.Flags().StringVar(&spec, "job", "", "the job's request in 'sift select --job' syntax, e.g. nodes=2,ntasks=16,mem=8G,time=1:00:00")
	cmd.Flags().StringVar(&usagePath, "usage", "", "running and pending jobs that count against the limits: a sift jobs file")
	cmd.Flags().StringVar(&at, "at", "", "the time of the check (default: the clock)")
	return cmd
}

// checkJob runs the three call sites on j and prints the verdict; a
// refused or held job is exit 3 with the reason's name.
func checkJob(w io.Writer, h *acctpolicy.Hook, j *sched.Job, now int64) error {
	held := func(stage string, r fmt.Stringer, lvl string) error {
		if _, err := fmt.Fprintf(w, "%s: %s (%s)\n", stage, r, lvl); err != nil {
			return err
		}
		return unsatisfied(fmt.Errorf("%s (%s): %s", r, lvl, stage))
	}
	if err := h.Validate(j); err != nil {
		var pe *limits.PolicyError
		if errors.As(err, &pe) {
			return held("refused at submit", pe.Reason, pe.Level)
		}
		if _, werr := fmt.Fprintf(w, "refused at submit: %v\n", err); werr != nil {
			return werr
		}
		return unsatisfied(fmt.Errorf("refused at submit: %w", err))
	}
	if ok, r, _ := h.PreSelect(j, now); !ok {
		return held("pending before node selection", r, h.P.FailedLevel(h.Job(j.ID)))
	}
	// After selection the allocation is taken to be the request (the
	// nodes are not chosen here).
	lj := h.Job(j.ID)
	if ok, r := h.P.PostSelect(lj, lj.Req, nil, now); !ok {
		return held("pending after node selection", sched.LimitReason(r), h.P.FailedLevel(lj))
	}
	limit := "none"
	if lj.TimeLimit != limits.NoVal && lj.TimeLimit != limits.Infinite {
		limit = limits.FormatMinutes(lj.TimeLimit)
	}
	_, err := fmt.Fprintf(w, "may start now: %s, time limit %s\n", h.P.TRES.Format(nonZero(lj.Req)), limit)
	return err
}

func nonZero(v limits.Vector) limits.Vector {
	out := make(limits.Vector, len(v))
	for i, x := range v {
		out[i] = x
		if x == 0 {
			out[i] = limits.Infinite64
		}
	}
	return out
}

// maxUsageNodes bounds the nodes one usage job may name.
const maxUsageNodes = 1 << 20

// partitionConf is each slurm.conf partition's QOS= and
// TRESBillingWeights=.
func partitionConf(parts []inventory.Partition, nodes []index.Node) map[string]acctpolicy.PartitionConf {
	mem := map[string]uint64{}
	for _, n := range nodes {
		mem[n.Name] = n.MemoryMB
	}
	out := map[string]acctpolicy.PartitionConf{}
	for _, p := range parts {
		c := acctpolicy.PartitionConf{QOS: p.QOS, BillingWeights: p.TRESBillingWeights}
		if len(p.Nodes) > 0 {
			c.NodeMemoryMB = mem[p.Nodes[0]]
		}
		out[p.Name] = c
	}
	return out
}

// loadUsage counts the jobs of a sift jobs file: running ones as started
// (on their nodes, named by hostlist, each node counted once), pending
// ones as submitted. A pending job the limits refuse is reported and not
// counted.
func loadUsage(stderr io.Writer, h *acctpolicy.Hook, path string, now int64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	files, _, err := sched.ParseJobFile(data)
	if err != nil {
		return invalidInput(fmt.Errorf("%s: %w", path, err))
	}
	nodeIDs := map[string]uint32{}
	for _, fj := range files {
		req := &job.Request{MinNodes: 1}
		if fj.Request != "" {
			if req, err = job.ParseSpec(fj.Request); err != nil {
				return invalidInput(fmt.Errorf("%s: job %d: request: %w", path, fj.ID, err))
			}
		}
		part, _, _ := strings.Cut(fj.Partition, ",")
		if part == "" {
			part = req.Partition
		}
		j := &sched.Job{ID: fj.ID, User: fj.User, Account: fj.Account, QOS: fj.QOS, Partitions: []string{part},
			Partition: part, Request: req, TimeLimit: req.TimeLimit, Start: int64(fj.Start), End: int64(fj.End)}
		if fj.TimeLimit != "" {
			m, err := limits.ParseMinutes(fj.TimeLimit)
			if err != nil {
				return invalidInput(fmt.Errorf("%s: job %d: time_limit: %w", path, fj.ID, err))
			}
			j.TimeLimit = job.Unlimited
			if m != limits.Infinite {
				j.TimeLimit = time.Duration(m) * time.Minute
			}
		}
		switch strings.ToLower(fj.State) {
		case "", "pending", "pd":
			if err := h.Validate(j); err != nil {
				fmt.Fprintf(stderr, "sift: warning: %s: job %d not counted: %v\n", path, fj.ID, err)
			}
		case "running", "r":
			a := &job.Allocation{Nodes: roaring.New()}
			if fj.Nodes != "" {
				hl, err := hostlist.Parse(hostlist.Slurm, fj.Nodes)
				if err != nil {
					return invalidInput(fmt.Errorf("%s: job %d: nodes: %w", path, fj.ID, err))
				}
				names, err := hl.Expand(maxUsageNodes)
				if err != nil {
					return invalidInput(fmt.Errorf("%s: job %d: nodes: %w", path, fj.ID, err))
				}
				for _, n := range names {
					id, ok := nodeIDs[n]
					if !ok {
						id = uint32(len(nodeIDs))
						nodeIDs[n] = id
					}
					a.Nodes.Add(id)
				}
			}
			nn := int(a.Nodes.GetCardinality())
			if nn == 0 {
				nn = max(req.MinNodes, 1)
			}
			a.TotalCPUs = req.MinCPUs(nn)
			j.Alloc = a
			if j.Start == 0 {
				j.Start = now
			}
			h.Begin(j, j.Start)
		}
	}
	return nil
}
