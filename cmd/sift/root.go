package main

import (
	"io"

	"github.com/spf13/cobra"
)

// commands holds the constructors of every subcommand; each subcommand's file
// registers itself in an init function, so adding one touches no other file.
var commands []func() *cobra.Command

func register(newCmd func() *cobra.Command) { commands = append(commands, newCmd) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "sift",
		Short: "Compiled constraint engine and scheduler core for HPC clusters",
		Long: `sift answers which nodes satisfy a job's constraint (Slurm --extra, Flux RFC 31,
Flux --requires), which of them a job should get, and when it can start.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	for _, newCmd := range commands {
		root.AddCommand(newCmd())
	}
	return root
}

// run executes the CLI with args and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	return report(stderr, err)
}
