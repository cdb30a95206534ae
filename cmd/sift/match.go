package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/idset"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/vm"
	"github.com/spf13/cobra"
)

func init() { register(newMatchCmd) }

// matchOutputs maps each --output value to its printer of the matching node
// ids (ascending, which is node order). Further outputs add an entry here.
var matchOutputs = map[string]func(w io.Writer, s *index.Snapshot, ids *roaring.Bitmap) error{
	"hostlist": func(w io.Writer, s *index.Snapshot, ids *roaring.Bitmap) error {
		_, err := fmt.Fprintln(w, hostlist.Compress(hostlist.Slurm, nodeNames(s, ids)))
		return err
	},
	"names": func(w io.Writer, s *index.Snapshot, ids *roaring.Bitmap) error {
		bw := bufio.NewWriter(w)
		for _, name := range nodeNames(s, ids) {
			bw.WriteString(name)
			bw.WriteByte('\n')
		}
		return bw.Flush()
	},
	"ranks": func(w io.Writer, s *index.Snapshot, ids *roaring.Bitmap) error {
		_, err := fmt.Fprintln(w, rankSet(s, ids).Encode(idset.Ranged))
		return err
	},
	"count": func(w io.Writer, s *index.Snapshot, ids *roaring.Bitmap) error {
		_, err := fmt.Fprintln(w, ids.GetCardinality())
		return err
	},
	"json": func(w io.Writer, s *index.Snapshot, ids *roaring.Bitmap) error {
		out, err := json.Marshal(struct {
			Count int      `json:"count"`
			Nodes []string `json:"nodes"`
		}{int(ids.GetCardinality()), nodeNames(s, ids)})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", out)
		return err
	},
}

func matchOutputNames() string {
	names := make([]string, 0, len(matchOutputs))
	for name := range matchOutputs {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

// rankSet returns the Flux ranks of ids as an idset.
func rankSet(s *index.Snapshot, ids *roaring.Bitmap) *idset.Set {
	ranks := make([]uint32, 0, ids.GetCardinality())
	it := ids.Iterator()
	for it.HasNext() {
		if n, ok := s.Node(it.Next()); ok {
			ranks = append(ranks, n.Rank)
		}
	}
	slices.Sort(ranks)
	var rs []idset.Range
	for _, r := range ranks {
		if k := len(rs) - 1; k >= 0 && (rs[k].Hi == r || rs[k].Hi+1 == r) {
			rs[k].Hi = r
			continue
		}
		rs = append(rs, idset.Range{Lo: r, Hi: r})
	}
	return idset.FromRanges(rs)
}

// nodeNames returns the names of ids in node order, never nil.
func nodeNames(s *index.Snapshot, ids *roaring.Bitmap) []string {
	names := make([]string, 0, ids.GetCardinality())
	it := ids.Iterator()
	for it.HasNext() {
		if n, ok := s.Node(it.Next()); ok {
			names = append(names, n.Name)
		}
	}
	return names
}

func newMatchCmd() *cobra.Command {
	var lang, output string
	var nodes nodesFlags
	var explain bool
	var expr exprFlag
	cmd := &cobra.Command{
		Use:   "match [--lang LANG] [--nodes FILE|synthetic:N[,seed=S]] [--output FORMAT] [--explain] [--] EXPR | --expr-file FILE",
		Short: "Print the nodes that satisfy a constraint",
		Long: `match compiles one constraint, runs it over the node inventory and prints the
matching nodes in node order. Without --nodes it uses the built-in synthetic cluster
(synthetic:` + fmt.Sprint(inventory.DefaultSyntheticNodes) + `). It exits 0 even when no node matches, 2 for an invalid
constraint or flag, 1 for an unreadable or invalid node file. --expr-file reads the
constraint from a file (- for standard input), for one too long for a command line.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := expr.text(cmd, args)
			if err != nil {
				return err
			}
			printIDs, ok := matchOutputs[output]
			if !ok {
				return invalidInput(fmt.Errorf("unknown --output %q, expected %s", output, matchOutputNames()))
			}
			spec, err := nodes.parse()
			if err != nil {
				return err
			}
			// Compile before reading the inventory, so an invalid constraint
			// exits 2 whatever the node file holds.
			if _, err := compiler.Compile(compiler.Lang(lang), text); err != nil {
				return constraintError(text, err)
			}
			_, snap, err := nodes.indexed(cmd, spec)
			if err != nil {
				return err
			}
			// Compile again with the snapshot's statistics so the optimizer
			// orders operands by selectivity; results never depend on it.
			prog, err := compiler.CompileFor(compiler.Lang(lang), text, snap)
			if err != nil {
				return constraintError(text, err)
			}
			out := cmd.OutOrStdout()
			m := vm.NewMachine()
			var ids *roaring.Bitmap
			if explain {
				var steps []vm.Step
				steps, ids = m.Explain(prog, snap)
				if err := printExplain(out, args[0], steps, ids); err != nil {
					return err
				}
			} else {
				ids = m.Run(prog, snap)
			}
			return printIDs(out, snap, ids)
		},
	}
	cmd.Flags().StringVar(&lang, "lang", string(compiler.Slurm), "constraint language: slurm (--extra), flux (RFC 31 JSON) or requires (flux --requires)")
	nodes.register(cmd)
	expr.register(cmd)
	cmd.Flags().StringVar(&output, "output", "hostlist", "output format: "+matchOutputNames())
	cmd.Flags().BoolVar(&explain, "explain", false, "print the program first: each step with its leaf's source text, node count and time")
	return cmd
}

// printExplain prints one executed instruction a line with the source text
// of its leaf (in backquotes), the number of nodes its result holds and the
// time it took, then the totals. text is the constraint as given.
func printExplain(w io.Writer, text string, steps []vm.Step, ids *roaring.Bitmap) error {
	srcs := make([]string, len(steps))
	width, srcWidth := 0, 0
	for i, s := range steps {
		width = max(width, len(s.Instr))
		if src := s.Source; src.Start >= 0 && src.End > src.Start && src.End <= len(text) {
			srcs[i] = "`" + explainEscapes.Replace(text[src.Start:src.End]) + "`"
		}
		srcWidth = max(srcWidth, utf8.RuneCountInString(srcs[i]))
	}
	var total time.Duration
	bw := bufio.NewWriter(w)
	for i, s := range steps {
		total += s.Elapsed
		pad := srcWidth - utf8.RuneCountInString(srcs[i])
		fmt.Fprintf(bw, "%3d  %-*s  %s%*s  %8d nodes  %v\n", i, width, s.Instr, srcs[i], pad, "", s.Count, s.Elapsed)
	}
	fmt.Fprintf(bw, "total: %d steps, %d nodes, %v\n", len(steps), ids.GetCardinality(), total)
	return bw.Flush()
}

// explainEscapes keeps a leaf's source text on one line.
var explainEscapes = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)
