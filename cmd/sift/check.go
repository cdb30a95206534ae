package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/compiler/flux"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/spf13/cobra"
)

func init() { register(newCheckCmd) }

// frontEnd is one constraint language as check sees it: how to parse it and
// how to print it, normalized or in another language.
type frontEnd struct {
	parse func(text string) (ast.Node, error)
	// format prints the normalized form; to maps each --to value to a
	// printer. Printers get the source text too: requires prints the JSON
	// flux-core itself builds from it.
	format func(text string, n ast.Node) (string, error)
	to     map[string]func(text string, n ast.Node) (string, error)
}

func printRFC31(_ string, n ast.Node) (string, error) { return flux.FormatRFC31(n), nil }

func requiresJSON(text string, _ ast.Node) (string, error) { return flux.RequiresJSON(text) }

// frontEnds maps each --lang value to its parser and printers. Front ends for
// further languages add an entry here.
var frontEnds = map[string]frontEnd{
	"slurm": {
		parse:  slurm.Parse,
		format: func(_ string, n ast.Node) (string, error) { return slurm.Format(n), nil },
	},
	"flux": {
		parse:  func(text string) (ast.Node, error) { return flux.ParseRFC31([]byte(text)) },
		format: printRFC31,
		to:     map[string]func(string, ast.Node) (string, error){"rfc31": printRFC31},
	},
	"requires": {
		parse:  flux.ParseRequires,
		format: requiresJSON,
		to:     map[string]func(string, ast.Node) (string, error){"rfc31": requiresJSON},
	},
}

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
	var expr exprFlag
	cmd := &cobra.Command{
		Use:   "check [--lang LANG] [--] EXPR | --expr-file FILE",
		Short: "Validate a constraint and print its normalized form",
		Long: `check parses one constraint and prints it normalized (exit 0), or reports where it is
invalid and what was expected there (exit 2). Put -- before a constraint that starts with
"-"; a constraint's spaces are significant, so quote it. --expr-file reads the constraint
from a file (- for standard input), for one too long for a command line.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := expr.text(cmd, args)
			if err != nil {
				return err
			}
			fe, ok := frontEnds[lang]
			if !ok {
				return invalidInput(fmt.Errorf("unknown --lang %q, expected %s", lang, langNames()))
			}
			format := fe.format
			if to != "" {
				if format, ok = fe.to[to]; !ok {
					return invalidInput(fmt.Errorf("unknown --to %q for --lang %s", to, lang))
				}
			}
			n, err := fe.parse(text)
			if err != nil {
				return constraintError(text, err)
			}
			out, err := format(text, n)
			if err != nil {
				return constraintError(text, err)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), out)
			return err
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "slurm", "constraint language: "+langNames())
	expr.register(cmd)
	cmd.Flags().StringVar(&to, "to", "", "print the constraint in this language instead of its own: rfc31 (for flux and requires)")
	return cmd
}
