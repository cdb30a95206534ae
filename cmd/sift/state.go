package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
	"github.com/nodesift/sift/select/statefile"
	"github.com/spf13/cobra"
)

func init() { register(newStateCmd) }

// stateFiles names each plugin's state file in a --state directory, in the
// order state list prints them.
var stateFiles = []struct{ plugin, file string }{
	{"linear", linear.StateFile},
	{"cons_tres", constres.StateFile},
}

func newStateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Inspect the state directory select --state writes",
	}
	cmd.AddCommand(newStateListCmd())
	return cmd
}

func newStateListCmd() *cobra.Command {
	var stateDir, plugin, output string
	var lockTimeout time.Duration
	var nodes nodesFlags
	cmd := &cobra.Command{
		Use:   "list --state DIR [--nodes FILE|synthetic:N] [--plugin linear|cons_tres] [--output text|json]",
		Short: "List the jobs a select state directory records",
		Long: `state list prints the running jobs that select --state DIR recorded: for each,
its id, node count, nodes as a hostlist, start and end time and state. The state records
node ids, so --nodes must name the inventory select ran with. Without --plugin it lists
every plugin's state file present in DIR. It takes DIR's lock as select does (waiting up
to --lock-timeout), so it never reads a half-written state, and deletes the temporary
files of writers that died before finishing.

--output json prints {"jobs": [...]} with squeue --json's field names (job_id, nodes,
node_count, start_time, end_time, job_state) plus select_plugin.

Exit status: 0 when the state was read (an empty or missing state lists no jobs), 2 for
invalid flags, 1 for an unreadable or damaged state or a lock held too long.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if stateDir == "" {
				return invalidInput(errors.New("--state is required"))
			}
			if output != "text" && output != "json" {
				return invalidInput(fmt.Errorf("unknown --output %q, expected text or json", output))
			}
			if _, ok := selectPlugins[plugin]; !ok && plugin != "" {
				return invalidInput(fmt.Errorf("unknown --plugin %q, expected linear or cons_tres", plugin))
			}
			ns, err := nodes.parse()
			if err != nil {
				return err
			}
			cluster, snap, err := nodes.indexed(cmd, ns)
			if err != nil {
				return err
			}
			if _, err := os.Stat(stateDir); err != nil {
				return err
			}
			lock, err := statefile.AcquireLock(stateDir, lockTimeout)
			if err != nil {
				return err
			}
			defer lock.Release()
			warnRemoved(cmd.ErrOrStderr(), lock)
			list := stateList{Jobs: []stateJob{}}
			for _, sf := range stateFiles {
				if plugin != "" && sf.plugin != plugin {
					continue
				}
				held, err := loadHeld(snap, cluster.SelectTypeParameters, cluster.Partitions, sf.plugin, filepath.Join(stateDir, sf.file))
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					return err
				}
				for _, h := range held {
					list.Jobs = append(list.Jobs, newStateJob(snap, sf.plugin, h))
				}
			}
			if output == "json" {
				b, err := json.Marshal(list)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			return list.print(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	nodes.register(cmd)
	f.StringVar(&stateDir, "state", "", "the directory select --state wrote")
	f.StringVar(&plugin, "plugin", "", "list only this plugin's state: linear or cons_tres (default: every state file present)")
	f.StringVar(&output, "output", "text", "output format: text or json")
	f.DurationVar(&lockTimeout, "lock-timeout", 10*time.Second, "how long to wait for another sift holding the --state directory")
	return cmd
}

// warnRemoved tells the user which dead writers' temporary files taking
// the lock deleted.
func warnRemoved(w io.Writer, l *statefile.Lock) {
	for _, p := range l.Removed {
		fmt.Fprintf(w, "sift: warning: removed %s, left by a writer that died before finishing\n", p)
	}
}

// loadHeld reads plugin's state file path over the cluster of snap, as
// select would, and returns its jobs.
func loadHeld(snap *index.Snapshot, typeParams string, parts []inventory.Partition, plugin, path string) ([]job.Held, error) {
	cl := job.NewCluster(snap)
	if err := configurePartitions(cl, parts); err != nil {
		return nil, invalidInput(err)
	}
	tp, err := parseSelectParams(plugin, typeParams)
	if err != nil {
		return nil, invalidInput(err)
	}
	p := selectPlugins[plugin](cl, tp)
	if err := p.LoadState(filepath.Dir(path)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p.Held(), nil
}

// noVal is Slurm's JSON form of a number that may be unset or infinite.
type noVal struct {
	Set      bool  `json:"set"`
	Infinite bool  `json:"infinite"`
	Number   int64 `json:"number"`
}

// stateJob is one recorded job, with squeue --json's field names.
type stateJob struct {
	JobID     uint32   `json:"job_id"`
	Nodes     string   `json:"nodes"`
	NodeCount noVal    `json:"node_count"`
	StartTime noVal    `json:"start_time"`
	EndTime   noVal    `json:"end_time"`
	JobState  []string `json:"job_state"`
	Plugin    string   `json:"select_plugin"`
}

// stateList is state list's answer.
type stateList struct {
	Jobs []stateJob `json:"jobs"`
}

func newStateJob(snap *index.Snapshot, plugin string, h job.Held) stateJob {
	names := make([]string, 0, len(h.Nodes))
	for _, id := range h.Nodes {
		if n, ok := snap.Node(id); ok {
			names = append(names, n.Name)
		}
	}
	st := "RUNNING"
	if h.Suspended {
		st = "SUSPENDED"
	}
	return stateJob{JobID: h.ID, Nodes: hostlist.Compress(hostlist.Slurm, names),
		NodeCount: noVal{Set: true, Number: int64(len(h.Nodes))},
		StartTime: noVal{Set: true, Number: h.Start}, EndTime: noVal{Set: true, Number: h.End},
		JobState: []string{st}, Plugin: plugin}
}

func (l stateList) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOBID\tPLUGIN\tSTATE\tNODES\tSTART_TIME\tEND_TIME\tNODELIST")
	for _, j := range l.Jobs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", j.JobID, j.Plugin, j.JobState[0], strconv.FormatInt(j.NodeCount.Number, 10),
			unixTime(j.StartTime.Number), unixTime(j.EndTime.Number), j.Nodes)
	}
	return tw.Flush()
}

func unixTime(s int64) string { return time.Unix(s, 0).UTC().Format(time.RFC3339) }
