package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nodesift/sift/compiler/flux"
	"github.com/nodesift/sift/compiler/slurm"
	"github.com/spf13/cobra"
)

// maxExprRead bounds what --expr-file reads: one byte more than the longest
// constraint any front end accepts, so an over-long file is refused by the
// front end's own length check without being read whole.
const maxExprRead = max(flux.MaxLen, slurm.MaxLen) + 1

// exprFlag is the --expr-file flag of the commands that take one
// constraint.
type exprFlag struct{ file string }

func (f *exprFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.file, "expr-file", "", "read the constraint from this file (- for standard input) instead of the EXPR argument; one trailing newline is dropped")
}

// text returns the constraint: the EXPR argument, or the --expr-file's
// contents. Exactly one of the two must be given.
func (f *exprFlag) text(cmd *cobra.Command, args []string) (string, error) {
	switch {
	case f.file == "" && len(args) == 1:
		return args[0], nil
	case f.file == "" && len(args) == 0:
		return "", invalidInput(errors.New("expected a constraint: an EXPR argument or --expr-file FILE"))
	case len(args) > 0:
		return "", invalidInput(errors.New("give the constraint either as EXPR or with --expr-file, not both"))
	}
	var r io.Reader = cmd.InOrStdin()
	name := "standard input"
	if f.file != "-" {
		fh, err := os.Open(f.file)
		if err != nil {
			return "", err
		}
		defer fh.Close()
		r, name = fh, f.file
	}
	b, err := io.ReadAll(io.LimitReader(r, maxExprRead))
	if err != nil {
		return "", fmt.Errorf("--expr-file %s: %w", name, err)
	}
	s := string(b)
	if len(s) < maxExprRead {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	}
	return s, nil
}
