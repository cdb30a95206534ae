package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/spf13/cobra"
)

func init() { register(newCheckCmd) }

// frontEnd is one constraint language as check sees it: how to parse it and
// how to print its normalized form.
type frontEnd struct {
	parse  func(text string) (ast.Node, error)
	format func(n ast.Node) string
}

// frontEnds maps each --lang value to its parser and printer. Front ends for
// further languages add an entry here.
var frontEnds = map[string]frontEnd{
	"slurm": {parse: slurm.Parse, format: slurm.Format},
}

// outputFormats maps each --to value to its printer; "" prints the input
// language's own normalized form.
var outputFormats = map[string]func(n ast.Node) string{}

func langNames() string {
	names := make([]string, 0, len(frontEnds))
	for name := range frontEnds {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

func newCheckCmd() *cobra.Command {
	var lang, to string
	cmd := &cobra.Command{
		Use:   "check [--lang LANG] [--] EXPR",
		Short: "Validate a constraint and print its normalized form",
		Long: `check parses one constraint and prints it normalized (exit 0), or reports where it is
invalid and what was expected there (exit 2). Put -- before a constraint that starts with
"-"; a constraint's spaces are significant, so quote it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fe, ok := frontEnds[lang]
			if !ok {
				return invalidInput(fmt.Errorf("unknown --lang %q, expected %s", lang, langNames()))
			}
			format := fe.format
			if to != "" {
				if format, ok = outputFormats[to]; !ok {
					return invalidInput(fmt.Errorf("unknown --to %q for --lang %s", to, lang))
				}
			}
			n, err := fe.parse(args[0])
			if err != nil {
				return constraintError(args[0], err)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), format(n))
			return err
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "slurm", "constraint language: "+langNames())
	cmd.Flags().StringVar(&to, "to", "", "print the constraint in this language instead of its own")
	return cmd
}
