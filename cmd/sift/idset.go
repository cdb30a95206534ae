package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nodesift/sift/idset"
	"github.com/spf13/cobra"
)

func init() { register(newIdsetCmd) }

func newIdsetCmd() *cobra.Command {
	var brackets bool
	cmd := &cobra.Command{
		Use:   "idset encode|decode [--brackets] EXPR",
		Short: "Encode or decode an RFC 22 idset",
		Long: `Work with RFC 22 idsets (Flux rank sets) such as 0-3,5.

  encode  collect the ids of EXPR, which may be unsorted, repeated and
          separated by commas or blanks (7,1,2,3 or "1 2 3"), and print the
          canonical ranged form (1-3,7); with --brackets, in brackets when
          there are two or more ids ([1-3,7])
  decode  check that EXPR is a strict RFC 22 idset, as flux-core's
          idset_decode does, and print one id a line

EXPR - reads EXPR from standard input (encode: its words joined by blanks).`,
		SilenceUsage: true,
		Args:         cobra.NoArgs, // an unknown subcommand is an error, not help
		RunE:         func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().BoolVar(&brackets, "brackets", false, "encode: wrap two or more ids in []")
	cmd.AddCommand(
		&cobra.Command{
			Use:   "encode EXPR",
			Short: "Print the canonical ranged form of the ids in EXPR",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				expr, err := exprArg(cmd, args[0], " ")
				if err != nil {
					return err
				}
				s, err := idset.Parse(expr)
				if err != nil {
					return invalidInput(withSource(expr, err))
				}
				flags := idset.Ranged
				if brackets {
					flags |= idset.Brackets
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), s.Encode(flags))
				return err
			},
		},
		&cobra.Command{
			Use:   "decode EXPR",
			Short: "Validate a strict RFC 22 idset and print one id a line",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				expr := args[0]
				if expr == "-" {
					data, err := io.ReadAll(cmd.InOrStdin())
					if err != nil {
						return fmt.Errorf("reading standard input: %w", err)
					}
					expr = strings.TrimRight(string(data), "\n")
				}
				s, err := idset.Decode(expr)
				if err != nil {
					return invalidInput(withSource(expr, err))
				}
				// Stream: an idset of 2^31 ids is a few ranges, not a slice.
				w := bufio.NewWriter(cmd.OutOrStdout())
				buf := make([]byte, 0, 16)
				for _, r := range s.Ranges() {
					for id := uint64(r.Lo); id <= uint64(r.Hi); id++ {
						buf = strconv.AppendUint(buf[:0], id, 10)
						buf = append(buf, '\n')
						if _, err := w.Write(buf); err != nil {
							return err
						}
					}
				}
				return w.Flush()
			},
		},
	)
	return cmd
}
