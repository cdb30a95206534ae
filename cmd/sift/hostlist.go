package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/nodesift/sift/hostlist"
	"github.com/spf13/cobra"
)

func init() { register(newHostlistCmd) }

// maxExpand bounds `sift hostlist expand`: larger lists fail instead of
// printing for hours.
const maxExpand = 1 << 24

func newHostlistCmd() *cobra.Command {
	var dialect string
	cmd := &cobra.Command{
		Use:   "hostlist expand|compress|sort|uniq|count EXPR",
		Short: "Expand, compress, sort, deduplicate or count a hostlist",
		Long: `Work with a hostlist such as node[01-04],login1 without a cluster.

  expand    print one host a line, in list order (at most 16777216 hosts)
  compress  print the compressed form, as scontrol show hostlist (slurm) or
            flux hostlist (flux) print it: order and duplicates kept
  sort      sort, then print the compressed form (duplicates kept)
  uniq      sort and remove duplicates, then print the compressed form
  count     print the number of hosts, duplicates included

EXPR - reads the hostlist from standard input instead: every word of it (hosts
or hostlists separated by blanks or newlines, as flux hostlist reads stdin) in
order, as if joined by commas.

--dialect selects whose rules apply: slurm (the default; Slurm's hostlist.c)
or flux (flux-core's libhostlist, RFC 29).`,
		SilenceUsage: true,
		Args:         cobra.NoArgs, // an unknown subcommand is an error, not help
		RunE:         func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&dialect, "dialect", "slurm", "hostlist rules: slurm or flux")
	sub := func(name, short string, do func(cmd *cobra.Command, l *hostlist.List) error) *cobra.Command {
		return &cobra.Command{
			Use:   name + " EXPR",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				d, err := hostlist.ParseDialect(dialect)
				if err != nil {
					return invalidInput(err)
				}
				expr, err := exprArg(cmd, args[0], ",")
				if err != nil {
					return err
				}
				l, err := hostlist.Parse(d, expr)
				if err != nil {
					return invalidInput(withSource(expr, err))
				}
				return do(cmd, l)
			},
		}
	}
	printString := func(cmd *cobra.Command, l *hostlist.List) error {
		_, err := fmt.Fprintln(cmd.OutOrStdout(), l.String())
		return err
	}
	cmd.AddCommand(
		sub("expand", "Print one host a line", func(cmd *cobra.Command, l *hostlist.List) error {
			if n := l.Count(); n > maxExpand {
				return invalidInput(fmt.Errorf("hostlist has %d hosts, more than the %d sift expands", n, maxExpand))
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			l.Each(func(h string) bool {
				w.WriteString(h)
				w.WriteByte('\n')
				return true
			})
			return w.Flush()
		}),
		sub("compress", "Print the compressed form", printString),
		sub("sort", "Sort, then print the compressed form", func(cmd *cobra.Command, l *hostlist.List) error {
			if err := l.Sort(); err != nil {
				return invalidInput(err)
			}
			return printString(cmd, l)
		}),
		sub("uniq", "Sort and remove duplicates, then print the compressed form", func(cmd *cobra.Command, l *hostlist.List) error {
			l.Uniq()
			return printString(cmd, l)
		}),
		sub("count", "Print the number of hosts", func(cmd *cobra.Command, l *hostlist.List) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), l.Count())
			return err
		}),
	)
	return cmd
}

// exprArg returns arg, or for "-" the words of standard input joined by sep.
func exprArg(cmd *cobra.Command, arg, sep string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(cmd.InOrStdin())
	if err != nil {
		return "", fmt.Errorf("reading standard input: %w", err)
	}
	// A NUL would end the text early for a C reader; refuse it rather than
	// silently drop what follows.
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return "", invalidInput(fmt.Errorf("standard input: NUL byte at byte offset %d", i))
	}
	return strings.Join(strings.Fields(string(data)), sep), nil
}
