package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/limits/acctpolicy"
	"github.com/nodesift/sift/priority"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
	"github.com/spf13/cobra"
)

func init() { register(newScheduleCmd) }

// scheduleKnobs are the SchedulerParameters options offered as flags
// (--bf-window sets bf_window, ...).
var scheduleKnobs = []struct{ name, help string }{
	{"bf_window", "minutes backfill plans ahead (1440)"},
	{"bf_resolution", "seconds of backfill's time slots (60)"},
	{"bf_max_job_test", "jobs one backfill pass tests (500)"},
	{"bf_max_job_start", "jobs one backfill pass starts (0: no limit)"},
	{"bf_max_job_user", "jobs backfill tests per user (0: no limit)"},
	{"bf_max_job_part", "jobs backfill tests per partition (0: no limit)"},
	{"bf_min_prio_reserve", "lowest priority that gets a reservation (0: all)"},
	{"bf_min_age_reserve", "seconds a job must have waited to get a reservation (0)"},
	{"default_queue_depth", "jobs an event-triggered main pass tests (100)"},
	{"partition_job_depth", "jobs the main pass tests per partition (0: no limit)"},
	{"sched_max_job_start", "jobs the main pass starts (0: no limit)"},
}

func newScheduleCmd() *cobra.Command {
	var nodes nodesFlags
	var jobsPath, policy, at, output, plugin, params, typeParams, prioType string
	var slurmPlan bool
	var explainIDs []uint
	var lf limitsFlags
	var pf preemptFlags
	knobs := make([]string, len(scheduleKnobs))
	cmd := &cobra.Command{
		Use:   "schedule --jobs FILE [--nodes SPEC] [--policy builtin|backfill] [--at TIME] [--plugin linear|cons_tres] [--limits FILE] [knob flags] [--output text|json]",
		Short: "Run one pass of Slurm's scheduler over a queue: which jobs start now, where, and when the others start",
		Long: `schedule runs one scheduling pass as slurmctld would at --at: the main pass (_schedule(), strict
priority order per partition), then sched/builtin's start-time estimates or sched/backfill's
pass, over the cluster of --nodes and the queue of --jobs (a sift jobs file, described in the
README: running jobs with their nodes and end times, finished jobs for dependencies, pending
jobs with their requests, and advance reservations, which jobs may name). It prints a table like squeue --start: each job's state, nodes,
start or expected start, and the reason it pends, with Slurm's reason strings.

SchedulerParameters come from a slurm.conf --nodes file, then --scheduler-parameters, then the
knob flags. --explain ID (repeatable) prints, after the table, each test the passes made of
that job: its candidate chain (partition, constraint, node configuration, node state), the nodes
advance reservations keep from it, the pass's own stage (nodes withheld for higher-priority jobs,
or reserved in backfill's time slots) and the outcome. --bf-plan-ignores-constraints plans backfill as Slurm does, without the jobs' extra
constraints. Times are Unix seconds, RFC 3339 or YYYY-MM-DDTHH:MM:SS (UTC).

--limits FILE (a 'sacctmgr dump' file or its YAML form, FILE.yaml, with --limits-qos, --tres, --enforce, --partition-qos as
in 'sift limits') enforces association and QOS limits as slurmctld's acct_policy does: a job a
limit holds pends with the limit's reason (QOSMaxJobsPerUserLimit, AssocGrpCpuLimit, ...); running jobs count as usage.
A job a limit refuses at submit is left out of the queue, as sbatch would fail, and listed.

--priority multifactor (with --limits) gives each job without a "priority" in the jobs file the
priority priority/multifactor computes at submit, with the Priority* weights and flags of the
slurm.conf --nodes; the default, basic, is FIFO (one below the previous job, adjusted by nice).

Preemption follows the slurm.conf's PreemptType (preempt/partition_prio: a higher PriorityTier
partition's job preempts lower tiers' jobs on shared nodes; preempt/qos: a job whose QOS lists
another QOS in Preempt= preempts its jobs, QOS from --limits), PreemptMode (cluster, partition and
QOS: CANCEL, REQUEUE, SUSPEND,GANG), GraceTime and PreemptExemptTime, or the --preempt-* flags.
A preemptor waits (Resources) while its cancelled or requeued victims go, as slurmctld's does,
and starts in the next pass; the pass lists the jobs it preempted.

Exit status: 0 after a pass, 2 for invalid input, 1 for unreadable files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var s sched.Scheduler
			switch policy {
			case "builtin":
				s = sched.Builtin{}
			case "backfill":
				s = sched.Backfill{}
			default:
				return invalidInput(fmt.Errorf("unknown --policy %q, expected builtin or backfill", policy))
			}
			if output != "text" && output != "json" {
				return invalidInput(fmt.Errorf("unknown --output %q, expected text or json", output))
			}
			if prioType != "basic" && prioType != "multifactor" {
				return invalidInput(fmt.Errorf("unknown --priority %q, expected basic or multifactor", prioType))
			}
			if prioType == "multifactor" && lf.path == "" {
				return invalidInput(errors.New("--priority multifactor needs the associations: --limits FILE"))
			}
			if jobsPath == "" {
				return invalidInput(errors.New("--jobs is required"))
			}
			now, err := atTime(at)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(jobsPath)
			if err != nil {
				return err
			}
			files, offs, err := sched.ParseJobFile(data)
			if err != nil {
				return invalidInput(fmt.Errorf("%s: %w", jobsPath, withSource(string(data), err)))
			}
			resvs, resvOffs, err := sched.ParseReservations(data)
			if err != nil {
				return invalidInput(fmt.Errorf("%s: %w", jobsPath, withSource(string(data), err)))
			}
			ns, err := nodes.parse()
			if err != nil {
				return err
			}
			inv, err := nodes.load(cmd, ns)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("plugin") {
				plugin = "cons_tres"
				if strings.EqualFold(strings.TrimPrefix(strings.ToLower(inv.SelectType), "select/"), "linear") {
					plugin = "linear"
				}
			}
			if plugin != "linear" && plugin != "cons_tres" {
				return invalidInput(fmt.Errorf("unknown --plugin %q, expected linear or cons_tres", plugin))
			}
			cfg := sched.DefaultConfig()
			text := inv.SchedulerParameters
			if cmd.Flags().Changed("scheduler-parameters") {
				text = params
			}
			for i, k := range scheduleKnobs {
				if cmd.Flags().Changed(knobFlag(k.name)) {
					text += "," + k.name + "=" + knobs[i]
				}
			}
			if cfg, err = sched.ParseSchedulerParameters(cfg, text); err != nil {
				return invalidInput(withSource(text, err))
			}
			cfg.BFPlanIgnoresConstraints = slurmPlan
			snap, err := index.Build(inv.Nodes)
			if err != nil {
				return fmt.Errorf("%s: %w", ns, err)
			}
			cl := job.NewCluster(snap)
			tp, err := clusterSelectParams(cmd, cl, inv, plugin, typeParams)
			if err != nil {
				return err
			}
			// Running jobs come from the jobs file, so the inventory's
			// allocated states are not held busy here; the queue names
			// the preemption candidates to the plugin itself.
			var p job.Plugin = linear.New(cl, linear.Config{TrackMemory: tp.memory})
			if plugin == "cons_tres" {
				p = constres.New(cl, constres.Config{TrackMemory: tp.memory, Units: tp.units, DefaultDistBlock: tp.distBlock})
			}
			opts := sched.Options{Cluster: cl, Plugin: p, Scheduler: s, Config: cfg,
				Partitions: schedPartitions(inv.Partitions), DefMemPerCPU: inv.DefMemPerCPU, MaxMemPerCPU: inv.MaxMemPerCPU}
			var pol *limits.Policy
			if lf.path != "" {
				if pol, err = lf.load(cmd); err != nil {
					return err
				}
				h, err := acctpolicy.New(pol, opts.Partitions, partitionConf(inv.Partitions, inv.Nodes))
				if err != nil {
					return invalidInput(err)
				}
				opts.Limits = h
				if prioType == "multifactor" {
					cfg, err := priorityConfig(inv, pol, nil)
					if err != nil {
						return invalidInput(err)
					}
					m, err := priority.New(cfg, pol, priorityCluster(inv, pol))
					if err != nil {
						return invalidInput(err)
					}
					// Fair-share starts from the usage of the jobs file's
					// running and finished jobs up to the pass.
					pjobs, err := priorityJobs(io.Discard, m, files, defaultPartition(inv.Partitions))
					if err != nil {
						return invalidInput(fmt.Errorf("%s: %w", jobsPath, err))
					}
					chargeHistory(m, pjobs, now)
					ph := priority.NewHook(m)
					ph.AccrueTime = h.AccrueTime
					opts.Priority = ph
				}
			}
			if prioType == "basic" {
				opts.Priority = priority.Basic{}
			}
			if opts.Preempt, err = preemptConfig(cmd, &pf, inv, pol, opts.Partitions, &opts.Config, text); err != nil {
				return err
			}
			opts.PartitionOrder = partitionOrder(inv.Partitions)
			q := sched.NewQueue(opts)
			for _, id := range explainIDs {
				q.Trace(uint32(id))
			}
			if err := sched.AddFileReservations(q, resvs, resvOffs, defaultPartition(inv.Partitions), now); err != nil {
				return invalidInput(fmt.Errorf("%s: %w", jobsPath, withSource(string(data), err)))
			}
			refused, err := sched.Load(q, files, offs, defaultPartition(inv.Partitions), now)
			if err != nil {
				return invalidInput(fmt.Errorf("%s: %w", jobsPath, withSource(string(data), err)))
			}
			for _, id := range explainIDs {
				if _, ok := q.Job(uint32(id)); !ok {
					return invalidInput(fmt.Errorf("--explain %d: no such job in %s", id, jobsPath))
				}
			}
			pass, err := s.Schedule(q, now)
			if err != nil {
				return err
			}
			res := scheduleResult(snap, s.Name(), now, q, pass)
			for _, r := range refused {
				res.Refused = append(res.Refused, r.Error())
			}
			if opts.Limits != nil {
				res.countHeldByLimit(q)
			}
			if output == "json" {
				b, err := json.Marshal(res)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			if err := res.print(cmd.OutOrStdout()); err != nil {
				return err
			}
			return printExplanations(cmd.OutOrStdout(), q, explainIDs)
		},
	}
	f := cmd.Flags()
	nodes.register(cmd)
	f.StringVar(&jobsPath, "jobs", "", "the queue: a sift jobs file (JSON)")
	f.StringVar(&policy, "policy", "backfill", "scheduler: builtin or backfill")
	f.StringVar(&prioType, "priority", "basic", "priority plugin for jobs without a priority: basic (FIFO) or multifactor (needs --limits; weights from the slurm.conf)")
	f.StringVar(&at, "at", "", "the time of the pass (default: the clock)")
	f.StringVar(&output, "output", "text", "output format: text or json")
	f.StringVar(&plugin, "plugin", "cons_tres", "select plugin: linear or cons_tres (default: the slurm.conf's SelectType, else cons_tres)")
	f.StringVar(&params, "scheduler-parameters", "", "SchedulerParameters, e.g. bf_window=2880,bf_resolution=300 (default: the slurm.conf's)")
	f.StringVar(&typeParams, "select-type-parameters", "", "SelectTypeParameters (default: the slurm.conf's, else Slurm's default)")
	f.BoolVar(&slurmPlan, "bf-plan-ignores-constraints", false, "plan backfill reservations without the jobs' extra constraints, as Slurm does")
	lf.register(cmd, false)
	pf.register(cmd)
	f.UintSliceVar(&explainIDs, "explain", nil, "job ids whose candidate chain to print for each test the passes made (text output)")
	for i, k := range scheduleKnobs {
		f.StringVar(&knobs[i], knobFlag(k.name), "", k.help)
	}
	return cmd
}

func knobFlag(name string) string { return strings.ReplaceAll(name, "_", "-") }

// schedPartitions converts slurm.conf partitions to the scheduler's view.
func schedPartitions(parts []inventory.Partition) map[string]sched.Partition {
	out := map[string]sched.Partition{}
	for _, p := range parts {
		sp := sched.Partition{}
		if p.MaxTime > 0 {
			sp.MaxTime = time.Duration(p.MaxTime) * time.Minute
		}
		if p.DefaultTime > 0 {
			sp.DefaultTime = time.Duration(p.DefaultTime) * time.Minute
		}
		sp.MinNodes, sp.MaxNodes = int(p.MinNodes), int(p.MaxNodes)
		switch strings.ToUpper(p.State) {
		case "DOWN":
			sp.State = sched.PartDown
		case "DRAIN":
			sp.State = sched.PartDrain
		case "INACTIVE":
			sp.State = sched.PartInactive
		}
		out[p.Name] = sp
	}
	return out
}

// scheduleJob is one row of schedule's answer.
type scheduleJob struct {
	ID           uint32 `json:"job_id"`
	Partition    string `json:"partition"`
	Name         string `json:"name"`
	User         string `json:"user"`
	State        string `json:"state"`
	Priority     uint32 `json:"priority"`
	Start        int64  `json:"start"`
	StartTime    string `json:"start_time"`
	End          int64  `json:"end,omitempty"`
	NodeCount    int    `json:"node_count"`
	Nodes        string `json:"nodes"`
	PlannedNodes string `json:"planned_nodes"`
	Reason       string `json:"reason"`
}

type scheduleOutput struct {
	Policy         string        `json:"policy"`
	At             int64         `json:"at"`
	Started        []uint32      `json:"started"`
	MainTested     int           `json:"main_tested"`
	BackfillTested int           `json:"backfill_tested"`
	Reserved       int           `json:"reserved"`
	Jobs           []scheduleJob `json:"jobs"`
	// Preempted are the jobs the pass preempted (cancelled, requeued,
	// suspended, or signalled with a grace time).
	Preempted []schedulePreempted `json:"preempted,omitempty"`
	// HeldByLimit counts the pending jobs an association or QOS limit
	// holds, by reason (with --limits).
	HeldByLimit map[string]int `json:"held_by_limit,omitempty"`
	// Refused are the jobs the limits refused at submit (not queued).
	Refused []string `json:"refused,omitempty"`
}

// slurmTime is squeue's time format.
func slurmTime(t int64) string {
	if t <= 0 {
		return "N/A"
	}
	return time.Unix(t, 0).UTC().Format("2006-01-02T15:04:05")
}

func scheduleResult(s *index.Snapshot, policy string, now int64, q *sched.Queue, p *sched.Pass) *scheduleOutput {
	o := &scheduleOutput{Policy: policy, At: now, Started: p.Started, MainTested: p.MainTested, BackfillTested: p.BackfillTested, Reserved: p.Reserved, Jobs: []scheduleJob{},
		Preempted: preemptedRows(p)}
	if o.Started == nil {
		o.Started = []uint32{}
	}
	jobs := q.Jobs()
	// Running jobs first, then pending ones by expected start (unknown
	// last), then id; finished jobs are not shown.
	slices.SortStableFunc(jobs, func(a, b *sched.Job) int {
		ra, rb := a.State != sched.Running, b.State != sched.Running
		if ra != rb {
			if !ra {
				return -1
			}
			return 1
		}
		sa, sb := a.Start, b.Start
		if sa <= 0 {
			sa = 1 << 62
		}
		if sb <= 0 {
			sb = 1 << 62
		}
		if sa != sb {
			if sa < sb {
				return -1
			}
			return 1
		}
		return int(a.ID) - int(b.ID)
	})
	for _, j := range jobs {
		if j.State.Finished() && j.State != sched.Preempted {
			continue
		}
		row := scheduleJob{ID: j.ID, Partition: j.Partition, Name: j.Name, User: j.User, State: j.State.String(), Priority: j.Priority,
			Start: j.Start, StartTime: slurmTime(j.Start)}
		if j.State == sched.Running || j.State == sched.Suspended || j.State == sched.Preempted {
			row.End = j.End
			row.Nodes = hostlist.Compress(hostlist.Slurm, namesOf(s, j.Nodes))
			row.NodeCount = int(j.Nodes.GetCardinality())
			row.Reason = "None"
		} else {
			min, _, _ := j.Request.NodeCounts(0)
			row.NodeCount = min
			row.Reason = j.ReasonText()
			if j.PlannedNodes != nil {
				row.PlannedNodes = hostlist.Compress(hostlist.Slurm, namesOf(s, j.PlannedNodes))
			}
		}
		o.Jobs = append(o.Jobs, row)
	}
	return o
}

func (o *scheduleOutput) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOBID\tPARTITION\tNAME\tUSER\tST\tSTART_TIME\tNODES\tSCHEDNODES\tNODELIST(REASON)")
	for _, j := range o.Jobs {
		st, last := "PD", "("+j.Reason+")"
		switch j.State {
		case "RUNNING":
			st, last = "R", j.Nodes
		case "SUSPENDED":
			st, last = "S", j.Nodes
		case "PREEMPTED":
			st, last = "PR", j.Nodes
		}
		sched := j.PlannedNodes
		if sched == "" {
			sched = "(null)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Partition, dash(j.Name), dash(j.User), st, j.StartTime, strconv.Itoa(j.NodeCount), sched, last)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "# %s pass at %s: %d started, %d tested by the main pass, %d by backfill, %d reserved\n",
		o.Policy, slurmTime(o.At), len(o.Started), o.MainTested, o.BackfillTested, o.Reserved)
	if err != nil {
		return err
	}
	for _, e := range o.Preempted {
		if _, err := fmt.Fprintf(w, "# preempted: job %d for job %d (%s, ends %s)\n", e.Victim, e.Preemptor, e.Mode, slurmTime(e.End)); err != nil {
			return err
		}
	}
	for _, r := range o.Refused {
		if _, err := fmt.Fprintf(w, "# refused at submit: %s\n", r); err != nil {
			return err
		}
	}
	if o.HeldByLimit == nil {
		return nil
	}
	reasons := make([]string, 0, len(o.HeldByLimit))
	for r := range o.HeldByLimit {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	var b strings.Builder
	for _, r := range reasons {
		fmt.Fprintf(&b, ", %s %d", r, o.HeldByLimit[r])
	}
	if b.Len() == 0 {
		b.WriteString(", none")
	}
	_, err = fmt.Fprintf(w, "# held by limits: %s\n", b.String()[2:])
	return err
}

// countHeldByLimit fills o.HeldByLimit from the pending jobs' reasons.
func (o *scheduleOutput) countHeldByLimit(q *sched.Queue) {
	o.HeldByLimit = map[string]int{}
	for _, j := range q.Jobs() {
		if _, ok := j.Reason.Limit(); ok && j.State == sched.Pending {
			o.HeldByLimit[j.Reason.String()]++
		}
	}
}

// printExplanations prints, for each job of ids, every test the passes
// made of it: the candidate chain with the pass's stages, and the outcome.
func printExplanations(w io.Writer, q *sched.Queue, ids []uint) error {
	var b strings.Builder
	for _, id := range ids {
		list := q.Explanations(uint32(id))
		if len(list) == 0 {
			fmt.Fprintf(&b, "\n# job %d: not tested by this pass\n", id)
		}
		for _, ex := range list {
			fmt.Fprintf(&b, "\n# job %d, %s pass, partition %s:\n", id, ex.Pass, ex.Partition)
			ex.Chain.Explain(&b)
			fmt.Fprintf(&b, "=> %s\n", ex.Outcome)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// atTime is the --at flag of schedule, priority and limits: the time it
// names, or the present when it is empty. A bad value is invalid input.
func atTime(at string) (int64, error) {
	if at == "" {
		return time.Now().Unix(), nil
	}
	v, err := sched.ParseTimeValue(at)
	if err != nil {
		return 0, invalidInput(fmt.Errorf("--at: %w", err))
	}
	return v, nil
}
