package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/inventory"
)

func init() { register(newInventoryCmd) }

func newInventoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inventory show|convert",
		Short: "Summarize or convert a node inventory",
		Long: `inventory reads a node inventory in any format sift knows (sift node file, slurm.conf,
scontrol show node --json, sinfo --json, Flux R) and summarizes it or converts it.`,
	}
	cmd.AddCommand(newInventoryShowCmd(), newInventoryConvertCmd())
	return cmd
}

// inventorySummary is what `inventory show` reports.
type inventorySummary struct {
	Nodes      int            `json:"nodes"`
	CPUs       int            `json:"cpus"`
	MemoryMB   uint64         `json:"memory_mb"`
	GPUs       uint64         `json:"gpus"`
	Features   map[string]int `json:"features"`
	Partitions map[string]int `json:"partitions"`
	States     map[string]int `json:"states"`
}

func summarize(c *inventory.Cluster) inventorySummary {
	s := inventorySummary{Nodes: len(c.Nodes), Features: map[string]int{}, Partitions: map[string]int{}, States: map[string]int{}}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		s.CPUs += n.CPUs
		s.MemoryMB += n.MemoryMB
		for _, g := range n.Gres {
			if g.Name == "gpu" {
				s.GPUs += g.Count
			}
		}
		for _, f := range n.Features {
			s.Features[f]++
		}
		state := n.State
		if state == "" {
			state = "idle"
		}
		s.States[state]++
	}
	for _, p := range c.Partitions {
		s.Partitions[p.Name] = len(p.Nodes)
	}
	return s
}

func newInventoryShowCmd() *cobra.Command {
	var nodes nodesFlags
	var output string
	cmd := &cobra.Command{
		Use:   "show [--nodes FILE] [--output text|json]",
		Short: "Print the inventory's nodes, features, partitions and totals",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return invalidInput(fmt.Errorf("unknown --output %q, expected text|json", output))
			}
			c, err := nodes.cluster(cmd)
			if err != nil {
				return err
			}
			s := summarize(c)
			if output == "json" {
				b, err := json.Marshal(s)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			return printSummary(cmd.OutOrStdout(), c, s)
		},
	}
	nodes.register(cmd)
	cmd.Flags().StringVar(&output, "output", "text", "output format: text|json")
	return cmd
}

func printSummary(w io.Writer, c *inventory.Cluster, s inventorySummary) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	names := make([]string, len(c.Nodes))
	for i := range c.Nodes {
		names[i] = c.Nodes[i].Name
	}
	fmt.Fprintf(tw, "nodes:\t%d\t%s\n", s.Nodes, hostlist.Compress(hostlist.Slurm, names))
	fmt.Fprintf(tw, "cpus:\t%d\t\n", s.CPUs)
	fmt.Fprintf(tw, "memory:\t%d MB\t\n", s.MemoryMB)
	fmt.Fprintf(tw, "gpus:\t%d\t\n", s.GPUs)
	fmt.Fprintf(tw, "states:\t%s\t\n", countList(s.States))
	fmt.Fprintln(tw, "\nfeature\tnodes\t")
	for _, f := range sortedKeys(s.Features) {
		fmt.Fprintf(tw, "%s\t%d\t\n", f, s.Features[f])
	}
	if len(c.Partitions) > 0 {
		fmt.Fprintln(tw, "\npartition\tnodes\thosts")
		for _, p := range c.Partitions {
			name := p.Name
			if p.Default {
				name += "*"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\n", name, len(p.Nodes), hostlist.Compress(hostlist.Slurm, p.Nodes))
		}
	}
	return tw.Flush()
}

func countList(m map[string]int) string {
	out := ""
	for i, k := range sortedKeys(m) {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s=%d", k, m[k])
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func newInventoryConvertCmd() *cobra.Command {
	var nodes nodesFlags
	var to string
	cmd := &cobra.Command{
		Use:   "convert [--nodes FILE] --to sift-json",
		Short: "Convert an inventory to a sift node file",
		Long: `convert reads an inventory in any format sift knows and writes it as a sift node file:
one node a line, fields in a fixed order, so converting the output again gives the same bytes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if to != "sift-json" {
				return invalidInput(fmt.Errorf("unknown --to %q, expected sift-json", to))
			}
			c, err := nodes.cluster(cmd)
			if err != nil {
				return err
			}
			return inventory.WriteNodeFile(cmd.OutOrStdout(), c.Nodes)
		},
	}
	nodes.register(cmd)
	cmd.Flags().StringVar(&to, "to", "sift-json", "output format: sift-json")
	return cmd
}
