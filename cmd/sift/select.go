package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/select/candidate"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
	"github.com/nodesift/sift/select/statefile"
	"github.com/nodesift/sift/vm"
	"github.com/spf13/cobra"
)

func init() { register(newSelectCmd) }

// selectPlugins builds each --plugin over a cluster with the parsed
// SelectTypeParameters.
var selectPlugins = map[string]func(cl *job.Cluster, tp selectParams) job.Plugin{
	"linear": func(cl *job.Cluster, tp selectParams) job.Plugin {
		cl.HoldInventoryBusy(true)
		return linear.New(cl, linear.Config{TrackMemory: tp.memory, Preempt: true})
	},
	"cons_tres": func(cl *job.Cluster, tp selectParams) job.Plugin {
		cl.HoldInventoryBusy(false)
		return constres.New(cl, constres.Config{TrackMemory: tp.memory, Preempt: true, Units: tp.units, DefaultDistBlock: tp.distBlock})
	},
}

// selectParams is what sift uses of SelectTypeParameters.
type selectParams struct {
	memory    bool
	units     constres.Units
	distBlock bool
}

// parseSelectParams reads SelectTypeParameters for plugin. Empty means
// Slurm's default (read_config.c): CR_Core_Memory for cons_tres, nothing
// (memory not consumable) for linear. Options sift does not model are
// accepted and ignored.
func parseSelectParams(plugin, v string) (selectParams, error) {
	tp := selectParams{}
	if strings.TrimSpace(v) == "" {
		if plugin == "cons_tres" {
			tp.memory = true
		}
		return tp, nil
	}
	for _, opt := range strings.Split(v, ",") {
		switch strings.ToUpper(strings.TrimSpace(opt)) {
		case "CR_CPU":
			tp.units = constres.UnitCPU
		case "CR_CPU_MEMORY":
			tp.units, tp.memory = constres.UnitCPU, true
		case "CR_CORE":
			tp.units = constres.UnitCore
		case "CR_CORE_MEMORY":
			tp.units, tp.memory = constres.UnitCore, true
		case "CR_SOCKET":
			tp.units = constres.UnitSocket
		case "CR_SOCKET_MEMORY":
			tp.units, tp.memory = constres.UnitSocket, true
		case "CR_MEMORY":
			tp.memory = true
		case "CR_CORE_DEFAULT_DIST_BLOCK":
			tp.distBlock = true
		case "CR_ONE_TASK_PER_CORE", "CR_LLN", "CR_PACK_NODES", "LL_SHARED_GRES", "MULTIPLE_SHARING_GRES_PJ", "ENFORCE_BINDING_GRES", "ONE_TASK_PER_SHARING_GRES", "":
		default:
			return tp, fmt.Errorf("unknown SelectTypeParameters option %q", opt)
		}
	}
	return tp, nil
}

// clusterSelectParams gives cl the inventory's partitions and returns the
// SelectTypeParameters in force: the flag's when it was set, else the
// inventory's (slurm.conf's). Both errors are invalid input.
func clusterSelectParams(cmd *cobra.Command, cl *job.Cluster, inv *inventory.Cluster, plugin, typeParams string) (selectParams, error) {
	if err := configurePartitions(cl, inv.Partitions); err != nil {
		return selectParams{}, invalidInput(err)
	}
	if !cmd.Flags().Changed("select-type-parameters") {
		typeParams = inv.SelectTypeParameters
	}
	tp, err := parseSelectParams(plugin, typeParams)
	if err != nil {
		return selectParams{}, invalidInput(err)
	}
	return tp, nil
}

// configurePartitions copies the slurm.conf partition settings select uses
// into cl.
func configurePartitions(cl *job.Cluster, parts []inventory.Partition) error {
	for _, ip := range parts {
		p := cl.Partitions[ip.Name]
		if p == nil {
			continue
		}
		if err := p.ParseOverSubscribe(ip.OverSubscribe); err != nil {
			return fmt.Errorf("partition %s: %w", ip.Name, err)
		}
		p.DefMemPerCPU, p.MaxMemPerCPU, p.PriorityTier = ip.DefMemPerCPU, ip.MaxMemPerCPU, ip.PriorityTier
	}
	return nil
}

// defaultPartition is the partition slurmctld gives a job that names none:
// the one marked Default=YES (the last such line wins), else none.
func defaultPartition(parts []inventory.Partition) string {
	name := ""
	for _, p := range parts {
		if p.Default {
			name = p.Name
		}
	}
	return name
}

func newSelectCmd() *cobra.Command {
	var plugin, stateDir, mode, spec, output, typeParams string
	var lockTimeout time.Duration
	var explain bool
	var nodes nodesFlags
	var now int64
	cmd := &cobra.Command{
		Use:   "select --job SPEC [--nodes FILE|synthetic:N] [--plugin linear|cons_tres] [--mode run-now|test-only|will-run] [--state DIR] [--output text|json]",
		Short: "Choose the nodes for a job as Slurm's select plugins do",
		Long: `select chooses nodes for one job as Slurm's select/linear or select/cons_tres would:
candidates are the nodes its constraint (extra=, requires= or jobspec=) and partition allow,
minus down, drained and busy nodes. It prints the allocated nodes as a hostlist, then for
cons_tres one line per node; will-run adds the start time. --explain first prints the
candidate chain: each stage (partition, constraint, excluded nodes, node configuration,
node state), the nodes it left and why it removed the others. With --state DIR the running
jobs are read from DIR, and a run-now allocation is recorded there.

Job keys: id, nodes=N|MIN-MAX, ntasks, cpus-per-task, ntasks-per-node, ntasks-per-core,
ntasks-per-socket, sockets-per-node, cores-per-socket, threads-per-core (these five not
with GPUs), mem, mem-per-cpu
(sizes in MB, or with K/M/G/T), gpus-per-node and gpus ([type:]N), contiguous, exclusive,
oversubscribe, preemptable, nodelist, exclude, time (min, min:sec, h:m:s, d-h, d-h:m,
d-h:m:s, UNLIMITED), partition, priority, distribution (Slurm -m: block|cyclic|arbitrary|plane=N
[:block|cyclic|fcyclic]), extra, requires, jobspec. Memory defaults, MaxMemPerCPU,
OverSubscribe and SelectTypeParameters come from a slurm.conf --nodes file.

Exit status: 0 when the job gets nodes (or an estimate), 3 when it cannot (the message
says "busy now" or "never runnable"), 2 for invalid input, 1 for unreadable files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			newPlugin, ok := selectPlugins[plugin]
			if !ok {
				return invalidInput(fmt.Errorf("unknown --plugin %q, expected linear or cons_tres", plugin))
			}
			m, ok := job.ParseMode(mode)
			if !ok {
				return invalidInput(fmt.Errorf("unknown --mode %q, expected run-now, test-only or will-run", mode))
			}
			if output != "text" && output != "json" {
				return invalidInput(fmt.Errorf("unknown --output %q, expected text or json", output))
			}
			if spec == "" {
				return invalidInput(errors.New("--job is required"))
			}
			req, err := job.ParseSpec(spec)
			if err != nil {
				return constraintError(spec, err)
			}
			if req.MultiCore() && (req.GPUsPerNode > 0 || req.GPUsPerJob > 0) {
				// gres_select_filter has its own socket and core rules.
				return invalidInput(errors.New("ntasks-per-core, ntasks-per-socket, sockets-per-node, cores-per-socket and threads-per-core are not modelled with GPUs"))
			}
			var progs []*vm.Program
			for _, c := range req.Constraints {
				prog, err := compiler.Compile(compiler.Lang(c.Lang), c.Text)
				if err != nil {
					return constraintError(c.Text, err)
				}
				progs = append(progs, prog)
			}
			ns, err := nodes.parse()
			if err != nil {
				return err
			}
			cluster, snap, err := nodes.indexed(cmd, ns)
			if err != nil {
				return err
			}
			cl := job.NewCluster(snap)
			if req.Partition == "" && len(cluster.Partitions) > 0 {
				// An inventory that configures partitions (slurm.conf)
				// refuses a job that names none when none is the default,
				// as slurmctld does (ESLURM_DEFAULT_PARTITION_NOT_SET).
				if req.Partition = defaultPartition(cluster.Partitions); req.Partition == "" {
					return invalidInput(errors.New("no partition given and the inventory has no Default=YES partition (Slurm: No partition specified or system default partition)"))
				}
			}
			if err := req.Resolve(cl); err != nil {
				return invalidInput(err)
			}
			tp, err := clusterSelectParams(cmd, cl, cluster, plugin, typeParams)
			if err != nil {
				return err
			}
			req.ApplyMemoryPolicy(cl, cluster.DefMemPerCPU, cluster.MaxMemPerCPU)
			p := newPlugin(cl, tp)
			if stateDir != "" {
				lock, err := statefile.AcquireLock(stateDir, lockTimeout)
				if err != nil {
					return err
				}
				defer lock.Release()
				warnRemoved(cmd.ErrOrStderr(), lock)
				if err := p.LoadState(stateDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
			if req.ID == 0 {
				req.ID = 1
				if ids := p.Jobs(); len(ids) > 0 {
					req.ID = ids[len(ids)-1] + 1
				}
			}
			chain, err := candidate.Build(candidate.Input{Cluster: cl, Request: req, Programs: progs})
			if err != nil {
				return invalidInput(err)
			}
			if explain {
				var b strings.Builder
				chain.Explain(&b)
				if _, err := io.WriteString(cmd.OutOrStdout(), b.String()); err != nil {
					return err
				}
			}
			if now == 0 {
				now = time.Now().Unix()
			}
			a, err := p.Select(req, chain.Candidates, m, now)
			if err != nil {
				if errors.Is(err, job.ErrBusy) || errors.Is(err, job.ErrNever) {
					return unsatisfied(err)
				}
				return err
			}
			if m == job.RunNow && stateDir != "" {
				if err := p.Begin(req, a); err != nil {
					return err
				}
				if err := p.SaveState(stateDir, now); err != nil {
					return err
				}
			}
			res := selectResult(snap, plugin, m, req.ID, a)
			if output == "json" {
				b, err := json.Marshal(res)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			return res.print(cmd.OutOrStdout(), plugin == "cons_tres", m == job.WillRun)
		},
	}
	f := cmd.Flags()
	nodes.register(cmd)
	f.StringVar(&plugin, "plugin", "linear", "select plugin: linear or cons_tres")
	f.StringVar(&stateDir, "state", "", "directory of the plugin's state file (running jobs)")
	f.DurationVar(&lockTimeout, "lock-timeout", 10*time.Second, "how long to wait for another sift holding the --state directory")
	f.StringVar(&mode, "mode", "run-now", "run-now, test-only or will-run")
	f.StringVar(&spec, "job", "", "the job request, key=value pairs separated by commas")
	f.StringVar(&output, "output", "text", "output format: text or json")
	f.StringVar(&typeParams, "select-type-parameters", "", "slurm.conf SelectTypeParameters, e.g. CR_Core_Memory or CR_CPU (default: the --nodes file's, else Slurm's default for the plugin)")
	f.Int64Var(&now, "now", 0, "the current time in Unix seconds (default: the clock)")
	f.BoolVar(&explain, "explain", false, "print the candidate chain first: each stage, the nodes it left and why it removed the others")
	return cmd
}

// selectNode is one allocated node in select's output.
type selectNode struct {
	Name  string `json:"name"`
	CPUs  int    `json:"cpus"`
	Cores string `json:"cores,omitempty"`
	MemMB uint64 `json:"mem_mb"`
	GPUs  int    `json:"gpus"`
}

// selectOutput is select's answer, as text or JSON.
type selectOutput struct {
	Plugin    string       `json:"plugin"`
	Mode      string       `json:"mode"`
	Job       uint32       `json:"job"`
	Nodes     string       `json:"nodes"`
	NodeCount int          `json:"node_count"`
	TotalCPUs int          `json:"total_cpus"`
	Start     int64        `json:"start"`
	StartTime string       `json:"start_time"`
	Preempted []uint32     `json:"preempted"`
	PerNode   []selectNode `json:"per_node"`
}

func selectResult(s *index.Snapshot, plugin string, m job.Mode, id uint32, a *job.Allocation) *selectOutput {
	o := &selectOutput{Plugin: plugin, Mode: m.String(), Job: id, NodeCount: int(a.Nodes.GetCardinality()), TotalCPUs: a.TotalCPUs,
		Start: a.Start, StartTime: time.Unix(a.Start, 0).UTC().Format(time.RFC3339), Preempted: a.Preempted, PerNode: []selectNode{}}
	if o.Preempted == nil {
		o.Preempted = []uint32{}
	}
	o.Nodes = hostlist.Compress(hostlist.Slurm, namesOf(s, a.Nodes))
	for _, n := range a.PerNode {
		name := ""
		if nd, ok := s.Node(n.ID); ok {
			name = nd.Name
		}
		o.PerNode = append(o.PerNode, selectNode{Name: name, CPUs: n.CPUs, Cores: ranges(n.Cores), MemMB: n.MemoryMB, GPUs: n.GPUs})
	}
	return o
}

func namesOf(s *index.Snapshot, ids *roaring.Bitmap) []string {
	var names []string
	it := ids.Iterator()
	for it.HasNext() {
		if n, ok := s.Node(it.Next()); ok {
			names = append(names, n.Name)
		}
	}
	return names
}

// ranges prints ascending numbers compactly: 0-3,8.
func ranges(xs []int) string {
	var b strings.Builder
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(xs[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(xs[j]))
		}
		i = j + 1
	}
	return b.String()
}

func (o *selectOutput) print(w io.Writer, perNode, start bool) error {
	var b strings.Builder
	b.WriteString(o.Nodes)
	b.WriteByte('\n')
	if perNode {
		for _, n := range o.PerNode {
			fmt.Fprintf(&b, "%s cpus=%d cores=%s mem=%d gpus=%d\n", n.Name, n.CPUs, n.Cores, n.MemMB, n.GPUs)
		}
	}
	if start {
		fmt.Fprintf(&b, "start=%s\n", o.StartTime)
	}
	if len(o.Preempted) > 0 {
		ids := make([]string, len(o.Preempted))
		for i, id := range o.Preempted {
			ids[i] = strconv.FormatUint(uint64(id), 10)
		}
		fmt.Fprintf(&b, "preempt=%s\n", strings.Join(ids, ","))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
