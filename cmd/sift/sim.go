package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/spf13/cobra"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/limits"
	"github.com/nodesift/sift/priority"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/sim"
	"github.com/nodesift/sift/workload"
)

func init() { register(newSimCmd) }

// simDefaultJobs is the size of the built-in synthetic workload.
const simDefaultJobs = 1000

// simFlags are sift sim's settings.
type simFlags struct {
	nodes                               nodesFlags
	trace, policy, overrun, alloc, part string
	jsonOut, jobsOut, params, estimate  string
	plotDir, cpuprofile                 string
	seed                                uint64
	synthJobs                           int
	keepCancelled, compare              bool
	knobs                               []string
	prio                                string
	prioSets                            []string
	resvs                               []string
	// clock times the run and its passes; nil leaves the wall-clock
	// figures out (a sweep's files must not depend on the machine).
	clock func() time.Time
}

func newSimFlags() *simFlags {
	return &simFlags{knobs: make([]string, len(scheduleKnobs)), clock: time.Now}
}

func newSimCmd() *cobra.Command {
	cmd := newSimFlags().command()
	cmd.AddCommand(newSimSweepCmd(), newSimCollectCmd())
	return cmd
}

// command is sift sim with its flags bound to f.
func (f *simFlags) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim [--trace FILE] [--nodes FILE|synthetic:N|header|header:cpus] [--policy fifo|builtin|backfill] [knob flags] [--json out.json] [--jobs-out FILE] [--plot DIR] [--seed S] [--overrun kill|run]",
		Short: "Replay a workload through sift's scheduler and report waits, slowdowns, utilization and speed",
		Long: `sim replays a workload through the scheduler sift schedule runs (slurmctld's main pass, then
sched/builtin or sched/backfill) as a discrete-event simulation: jobs are submitted at their
recorded times and run their recorded run time, and the passes run when slurmctld's timers
would (sched_interval, batch_sched_delay, bf_interval when something changed). --policy fifo is
the main pass alone. --overrun kill ends a job that ran past its time limit at the limit, as
Slurm (and so Slurm's own simulator) and Batsim do; run lets it run its recorded time, as
RLScheduler's simulator does. The same inputs and --seed always give the same schedule.

--trace is a Standard Workload Format log (.swf), sacct --parsable2 or CSV output, or sacct
--json output, each plain or gzip-compressed, told apart by content. A job without a time limit
gets one from --estimate (runtime: its run time; fixed:TIME; none: its run time too, as sim
needs a limit). Without --trace sim replays the Lublin-Feitelson synthetic workload (--seed,
--synthetic-jobs) sized to the up nodes of the partition it runs on.

--nodes is any inventory sift reads, or "header" for the trace's machine (MaxNodes nodes of
MaxProcs/MaxNodes CPUs; the default with a trace that has one) or "header:cpus" (MaxProcs
one-CPU nodes), each with +N for N more nodes of the same shape (header+200: what if the site
bought 200 nodes); otherwise synthetic:` + fmt.Sprint(inventory.DefaultSyntheticNodes) + `. --alloc node gives each job whole nodes
(select/linear), --alloc cpu its CPUs (select/cons_tres). Jobs go to --partition, by default
the inventory's default partition, else its largest. Memory requests are not simulated.

It prints the metrics; --plot DIR draws the queue and the utilization over time and the CDF of
waits as SVG files (gonum/plot), --json writes the metrics as JSON, --jobs-out every job (CSV, or JSON Lines when
the name ends in .jsonl or .json: submit, eligible, start and end in seconds from the trace's
start, nodes, CPUs, state, whether backfill started it, and its pending reasons over time).
--priority multifactor replays with priority/multifactor instead of FIFO priorities: the
Priority* keys of a slurm.conf --nodes (and --priority-set KEY=VALUE), one account holding one
association per user of the trace (Fairshare=1), and the usage the replay charges as jobs run.

Exit status: 0 after a run, 2 for invalid input, 1 for unreadable files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	fl := cmd.Flags()
	f.nodes.register(cmd)
	fl.StringVar(&f.trace, "trace", "", "workload: SWF, sacct --parsable2/CSV or sacct --json, plain or .gz (default: the synthetic workload)")
	fl.StringVar(&f.policy, "policy", "backfill", "scheduler: fifo, builtin or backfill")
	fl.StringVar(&f.overrun, "overrun", "kill", "a job that ran past its time limit: kill (at the limit, as Slurm) or run (its recorded time)")
	fl.StringVar(&f.alloc, "alloc", "node", "allocation: node (whole nodes, select/linear) or cpu (per CPU, select/cons_tres)")
	fl.StringVar(&f.part, "partition", "", "partition the jobs are submitted to (default: the inventory's default partition, else its largest)")
	fl.StringVar(&f.estimate, "estimate", "runtime", "time limit of a job the trace gives none: runtime, fixed:TIME or none")
	fl.BoolVar(&f.keepCancelled, "keep-cancelled", false, "replay cancelled jobs that ran (the readers skip every cancelled job by default)")
	fl.BoolVar(&f.compare, "compare-recorded", false, "set the replay beside the schedule the trace recorded (its jobs' own start times): waits per size class and partition, utilization")
	fl.StringVar(&f.jsonOut, "json", "", "write the metrics as JSON to this file")
	fl.StringVar(&f.plotDir, "plot", "", "write SVG plots into this directory: queue.svg, utilization.svg, wait-cdf.svg")
	fl.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the replay (go tool pprof reads it) to this file")
	fl.StringVar(&f.jobsOut, "jobs-out", "", "write every job's outcome to this file: CSV, or JSON Lines for .jsonl/.json")
	fl.StringVar(&f.params, "scheduler-parameters", "", "SchedulerParameters, e.g. bf_window=2880,bf_resolution=300 (default: the slurm.conf's)")
	fl.StringVar(&f.prio, "priority", "basic", "priority plugin: basic (FIFO) or multifactor (weights from the slurm.conf, associations from the trace's users)")
	fl.StringArrayVar(&f.prioSets, "priority-set", nil, "KEY=VALUE: a slurm.conf priority key for --priority multifactor (PriorityWeightFairshare=1000, ...)")
	fl.StringArrayVar(&f.resvs, "reservation", nil, "NODES:START:END[:FLAGS]: an advance reservation no trace job may use, NODES a hostlist, START and END seconds from the trace's start, FLAGS as scontrol's (MAINT, ...); repeatable")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the synthetic workload")
	fl.IntVar(&f.synthJobs, "synthetic-jobs", simDefaultJobs, "jobs in the synthetic workload")
	for i, k := range scheduleKnobs {
		fl.StringVar(&f.knobs[i], knobFlag(k.name), "", k.help)
	}
	return cmd
}

// simOutcome is one replay: its trace, its result and, with
// --compare-recorded, the comparison with the recorded schedule.
type simOutcome struct {
	tr  *workload.Trace
	res *sim.Result
	cmp *sim.Comparison
}

func (f *simFlags) run(cmd *cobra.Command) error {
	o, err := f.simulate(cmd)
	if err != nil {
		return err
	}
	tr, res, cmp := o.tr, o.res, o.cmp
	if f.jobsOut != "" {
		if err := writeJobs(f.jobsOut, res.Jobs); err != nil {
			return err
		}
	}
	if f.plotDir != "" {
		if err := writeSimPlots(f.plotDir, res); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		b, err := json.MarshalIndent(simJSON{Trace: tr.Source, Summary: res.Summary, Recorded: cmp}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if err := printSimSummary(cmd.OutOrStdout(), tr, &res.Summary); err != nil {
		return err
	}
	if cmp != nil {
		return printComparison(cmd.OutOrStdout(), cmp)
	}
	return nil
}

// simulate reads the inputs the flags name and replays them.
func (f *simFlags) simulate(cmd *cobra.Command) (*simOutcome, error) {
	policy, err := sim.ParsePolicy(f.policy)
	if err != nil {
		return nil, invalidInput(fmt.Errorf("--policy: %w", err))
	}
	overrun, err := sim.ParseOverrun(f.overrun)
	if err != nil {
		return nil, invalidInput(fmt.Errorf("--overrun: %w", err))
	}
	alloc, err := sim.ParseAllocation(f.alloc)
	if err != nil {
		return nil, invalidInput(fmt.Errorf("--alloc: %w", err))
	}
	est, err := workload.ParseEstimate(f.estimate)
	if err != nil {
		return nil, invalidInput(fmt.Errorf("--estimate: %w", err))
	}
	if f.compare && f.trace == "" {
		return nil, invalidInput(fmt.Errorf("--compare-recorded needs a --trace that records its jobs' start times"))
	}
	if f.synthJobs < 1 {
		return nil, invalidInput(fmt.Errorf("--synthetic-jobs must be at least 1"))
	}
	tr := &workload.Trace{}
	if f.trace != "" {
		if tr, err = workload.Open(f.trace, workload.Options{KeepCancelled: f.keepCancelled, Estimate: est}); err != nil {
			var pe *workload.ParseError
			if errors.As(err, &pe) {
				return nil, invalidInput(err)
			}
			return nil, err
		}
	}
	nodes, inv, err := f.machine(cmd, tr)
	if err != nil {
		return nil, err
	}
	cl, plug, err := sim.NewCluster(nodes, alloc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.nodes.spec, err)
	}
	cfg := sched.DefaultConfig()
	text := ""
	if inv != nil {
		text = inv.SchedulerParameters
		if err := configurePartitions(cl, inv.Partitions); err != nil {
			return nil, invalidInput(err)
		}
	}
	if cmd.Flags().Changed("scheduler-parameters") {
		text = f.params
	}
	for i, k := range scheduleKnobs {
		if cmd.Flags().Changed(knobFlag(k.name)) {
			text += "," + k.name + "=" + f.knobs[i]
		}
	}
	if cfg, err = sched.ParseSchedulerParameters(cfg, text); err != nil {
		return nil, invalidInput(withSource(text, err))
	}
	opt := sim.Options{Cluster: cl, Plugin: plug, Partition: f.part, Policy: policy, Config: cfg, Allocation: alloc, Overrun: overrun, WallClock: f.clock}
	if inv != nil {
		opt.Partitions = schedPartitions(inv.Partitions)
		opt.DefMemPerCPU, opt.MaxMemPerCPU = inv.DefMemPerCPU, inv.MaxMemPerCPU
	}
	if opt.Partition == "" {
		opt.Partition = simPartition(cl, inv)
	}
	if opt.Reservations, err = simReservations(f.resvs); err != nil {
		return nil, invalidInput(err)
	}
	part := cl.Partitions[opt.Partition]
	if part == nil {
		return nil, invalidInput(fmt.Errorf("--partition %q: no such partition in %s", opt.Partition, f.nodes.spec))
	}
	if f.trace == "" {
		// Sized to the nodes that are up, so that no job of the model
		// needs a down node and blocks the partition for good.
		up := roaring.And(part.Nodes, cl.Usable)
		m := workload.Machine{MaxNodes: int(up.GetCardinality())}
		it := up.Iterator()
		for it.HasNext() {
			m.MaxProcs += cl.CPUs[it.Next()]
		}
		tr = workload.Synthetic(f.seed, f.synthJobs, m)
	}
	switch f.prio {
	case "basic":
	case "multifactor":
		h, err := simPriority(tr, inv, cl, opt.Partition, f.prioSets)
		if err != nil {
			return nil, invalidInput(err)
		}
		opt.Priority, opt.Observe = h, h.Observe
	default:
		return nil, invalidInput(fmt.Errorf("unknown --priority %q, expected basic or multifactor", f.prio))
	}
	if bar := terminalBar(cmd.ErrOrStderr(), 1000, "replay"); bar != nil {
		opt.Progress = func(done float64) { _ = bar.Set(int(done * 1000)) }
		defer func() { _ = bar.Finish() }()
	}
	stop, err := startCPUProfile(f.cpuprofile)
	if err != nil {
		return nil, err
	}
	res, err := sim.Run(tr, opt)
	if perr := stop(); perr != nil && err == nil {
		return nil, perr
	}
	if err != nil {
		return nil, invalidInput(err)
	}
	var cmp *sim.Comparison
	if f.compare {
		if cmp, err = sim.Compare(tr, res, cpusPerNode(cl, opt.Partition)); err != nil {
			return nil, invalidInput(fmt.Errorf("--compare-recorded: %s: %w", tr.Source, err))
		}
	}
	return &simOutcome{tr: tr, res: res, cmp: cmp}, nil
}

// simJSON is what --json writes: the trace's name, the metrics, and with
// --compare-recorded the comparison with the recorded schedule.
type simJSON struct {
	Trace string `json:"trace"`
	sim.Summary
	Recorded *sim.Comparison `json:"recorded,omitempty"`
}

// cpusPerNode is the CPUs of the partition's first node.
func cpusPerNode(cl *job.Cluster, part string) int {
	if p := cl.Partitions[part]; p != nil && !p.Nodes.IsEmpty() {
		return cl.CPUs[p.Nodes.Minimum()]
	}
	return 1
}

// printComparison prints the replay's waits beside the recorded ones:
// all jobs, then per size class and per partition.
func printComparison(w io.Writer, c *sim.Comparison) error {
	fmt.Fprintf(w, "\ncompared with the recorded schedule: %d jobs started in both; sift started %d earlier, %d at the same second, %d later\n",
		c.Jobs, c.Earlier, c.Same, c.Later)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "wait (s)\tjobs\tmean sift\trecorded\tmedian sift\trecorded\tp95 sift\trecorded\tmax sift\trecorded\t\n")
	row := func(class string, jobs int, s, r sim.WaitStats) {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", class, jobs, s.Mean, r.Mean, s.Median, r.Median, s.P95, r.P95, s.Max, r.Max)
	}
	row("all", c.Jobs, c.Sim, c.Recorded)
	for _, cc := range c.BySize {
		row(cc.Class, cc.Jobs, cc.Sim, cc.Recorded)
	}
	for _, cc := range c.ByPartition {
		row("partition "+cc.Class, cc.Jobs, cc.Sim, cc.Recorded)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "utilization: sift %.1f%% over %.2f days, recorded %.1f%% over %.2f days\n",
		100*c.SimUtilization, float64(c.SimMakespan)/86400, 100*c.RecordedUtilization, float64(c.RecordedMakespan)/86400)
	_, err := fmt.Fprintf(w, "recorded waits of %d s or more while the trace's own jobs left enough CPUs idle: %d jobs, %.1f%% of all recorded wait\n",
		sim.IdleWaitMin, c.IdleWaits, 100*float64(c.IdleWaitSeconds)/max(c.Recorded.Mean*float64(c.Jobs), 1))
	return err
}

// machine is the simulated cluster's nodes: --nodes, else the trace's
// header, else the synthetic default. inv is the inventory when one was
// read (for its partitions and SchedulerParameters).
func (f *simFlags) machine(cmd *cobra.Command, tr *workload.Trace) ([]index.Node, *inventory.Cluster, error) {
	spec := f.nodes.spec
	if spec == "" {
		spec = "header"
		if tr.Machine.MaxNodes <= 0 && tr.Machine.MaxProcs <= 0 {
			spec = fmt.Sprintf("synthetic:%d", inventory.DefaultSyntheticNodes)
		}
		f.nodes.spec = spec
	}
	if base, extra, ok, err := headerSpec(spec); ok {
		if err != nil {
			return nil, nil, invalidInput(fmt.Errorf("--nodes %s: %w", spec, err))
		}
		nodes, err := sim.HeaderNodes(tr.Machine, base == "header:cpus")
		if err != nil {
			return nil, nil, invalidInput(fmt.Errorf("--nodes %s: %s: %w", spec, tr.Source, err))
		}
		nodes = sim.MoreNodes(nodes, extra)
		limitMemory(len(nodes))
		return nodes, nil, nil
	}
	ns, err := f.nodes.parse()
	if err != nil {
		return nil, nil, err
	}
	inv, err := f.nodes.load(cmd, ns)
	if err != nil {
		return nil, nil, err
	}
	return inv.Nodes, inv, nil
}

// headerSpec reads "header" or "header:cpus", optionally followed by +N
// (N more nodes of the same shape: the machine a site would have after
// buying them). ok says spec is one of them.
func headerSpec(spec string) (base string, extra int, ok bool, err error) {
	base, more, plus := strings.Cut(spec, "+")
	if base != "header" && base != "header:cpus" {
		return "", 0, false, nil
	}
	if plus {
		if extra, err = strconv.Atoi(more); err != nil || extra < 0 {
			return base, 0, true, fmt.Errorf("want header+N or header:cpus+N with N a whole number of nodes to add")
		}
	}
	return base, extra, true, nil
}

// simPartition is the inventory's default partition, else the partition
// with the most nodes (the first by name among equals).
func simPartition(cl *job.Cluster, inv *inventory.Cluster) string {
	if inv != nil {
		if p := defaultPartition(inv.Partitions); p != "" {
			return p
		}
	}
	names := make([]string, 0, len(cl.Partitions))
	for name := range cl.Partitions {
		names = append(names, name)
	}
	slices.Sort(names)
	best, size := "", uint64(0)
	for _, name := range names {
		if n := cl.Partitions[name].Nodes.GetCardinality(); n > size {
			best, size = name, n
		}
	}
	return best
}

// writeJobs writes the per-job file, JSON Lines by extension, else CSV.
func writeJobs(path string, jobs []sim.JobRecord) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".json") {
		err = sim.WriteJSONL(out, jobs)
	} else {
		err = sim.WriteCSV(out, jobs)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func printSimSummary(w io.Writer, tr *workload.Trace, s *sim.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "trace\t%s (%d jobs", tr.Source, s.Jobs)
	if n := tr.Skipped.Total(); n > 0 {
		fmt.Fprintf(tw, "; %d records skipped by the reader", n)
	}
	fmt.Fprintf(tw, ")\n")
	fmt.Fprintf(tw, "machine\t%d nodes, %d CPUs; policy %s, overrun %s\n", s.Nodes, s.CPUs, s.Policy, s.Overrun)
	fmt.Fprintf(tw, "jobs\t%d started (%d by backfill), %d never started, %d cancelled, %d killed at their limit\n", s.Started, s.Backfilled, s.Never, s.Canceled, s.Killed)
	fmt.Fprintf(tw, "wait\tmean %.0f s, median %.0f s, p95 %.0f s, max %.0f s\n", s.MeanWait, s.MedianWait, s.P95Wait, s.MaxWait)
	fmt.Fprintf(tw, "bounded slowdown\tmean %.2f, p95 %.2f (tau %d s)\n", s.MeanBSLD, s.P95BSLD, sim.BSLDBound)
	fmt.Fprintf(tw, "response\tmean %.0f s\n", s.MeanResponse)
	fmt.Fprintf(tw, "utilization\t%.1f%% over a makespan of %.2f days\n", 100*s.Utilization, float64(s.Makespan)/86400)
	reasons := make([]string, 0, len(s.HeldPerReason))
	for r, n := range s.HeldPerReason {
		reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
	}
	slices.Sort(reasons)
	if len(reasons) == 0 {
		reasons = append(reasons, "none")
	}
	fmt.Fprintf(tw, "jobs held per reason\t%s\n", strings.Join(reasons, ", "))
	fmt.Fprintf(tw, "passes\t%d (%d main, %d backfill); mean %.3f ms, max %.3f ms\n", s.Passes, s.MainPasses, s.BackfillPasses, s.MeanPassMS, s.MaxPassMS)
	fmt.Fprintf(tw, "speed\t%.2f s wall, %.0f simulated days per hour\n", s.WallSeconds, s.SimDaysPerHour)
	return tw.Flush()
}

// simPriority is priority/multifactor for a replay: the trace's users, each
// with one association (Fairshare=1) under the account "sim", the priority
// keys of the slurm.conf and sets, and the partition's size.
func simPriority(tr *workload.Trace, inv *inventory.Cluster, cl *job.Cluster, part string, sets []string) (*priority.Hook, error) {
	tl, err := limits.NewTRESList()
	if err != nil {
		return nil, err
	}
	pol := limits.NewPolicy(tl, "sim")
	pol.Enforce = limits.EnforceAssociations
	if _, err := pol.AddAccount("sim", "root"); err != nil {
		return nil, err
	}
	for _, j := range tr.Jobs {
		if j.User == "" || pol.User(j.User, "sim", "") != nil {
			continue
		}
		if _, err := pol.AddUser(j.User, "sim", ""); err != nil {
			return nil, err
		}
		pol.SetDefaultAccount(j.User, "sim")
	}
	pol.Finish()
	cfg, err := priorityConfig(inv, pol, sets)
	if err != nil {
		return nil, err
	}
	cfg.EnforceLimits = false
	c := priority.Cluster{Partitions: []priority.Partition{{Name: part, JobFactor: 1, MaxTime: limits.Infinite}}}
	if p := cl.Partitions[part]; p != nil {
		it := p.Nodes.Iterator()
		for it.HasNext() {
			c.CPUs += uint32(cl.CPUs[it.Next()])
			c.Nodes++
		}
	}
	m, err := priority.New(cfg, pol, c)
	if err != nil {
		return nil, err
	}
	return priority.NewHook(m), nil
}

// simReservations reads --reservation values: NODES:START:END[:FLAGS].
func simReservations(vals []string) ([]sim.Reservation, error) {
	var out []sim.Reservation
	for i, v := range vals {
		parts := strings.Split(v, ":")
		if len(parts) < 3 || len(parts) > 4 {
			return nil, fmt.Errorf("--reservation %q: expected NODES:START:END[:FLAGS]", v)
		}
		l, err := hostlist.Parse(hostlist.Slurm, parts[0])
		if err != nil {
			return nil, fmt.Errorf("--reservation %q: %w", v, err)
		}
		nodes, err := l.Expand(1 << 20)
		if err != nil {
			return nil, fmt.Errorf("--reservation %q: %w", v, err)
		}
		start, err1 := strconv.ParseInt(parts[1], 10, 64)
		end, err2 := strconv.ParseInt(parts[2], 10, 64)
		if err1 != nil || err2 != nil || start < 0 || end <= start {
			return nil, fmt.Errorf("--reservation %q: START and END are seconds from the trace's start, END after START", v)
		}
		r := sim.Reservation{Name: fmt.Sprintf("resv%d", i+1), Start: start, End: end, Nodes: nodes}
		if len(parts) == 4 {
			if r.Flags, err = sched.ParseResvFlags(parts[3]); err != nil {
				return nil, fmt.Errorf("--reservation %q: %w", v, err)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// startCPUProfile profiles the process into path until the returned
// function is called; with no path it does nothing.
func startCPUProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(fh); err != nil {
		fh.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return fh.Close()
	}, nil
}
