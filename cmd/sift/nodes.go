package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
)

// nodesFlags are the --nodes and --nodes-format flags every command that
// reads an inventory shares.
type nodesFlags struct {
	spec, format string
	limits       inventory.Limits
}

func (f *nodesFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.spec, "nodes", "", "node inventory: a sift node file, slurm.conf, scontrol/sinfo --json output, a Flux R document, or synthetic:N[,seed=S] (default synthetic:"+
		fmt.Sprint(inventory.DefaultSyntheticNodes)+")")
	cmd.Flags().IntVar(&f.limits.MaxNodes, "max-nodes", inventory.DefaultMaxNodes, "refuse an inventory of more nodes than this, counted before any is made")
	cmd.Flags().IntVar(&f.limits.MaxFeatures, "max-features", inventory.DefaultMaxFeatures, "refuse a node with more features (or extra data keys) than this")
	cmd.Flags().StringVar(&f.format, "nodes-format", "", "format of the --nodes file, instead of detecting it: "+strings.Join(inventory.FormatNames(), "|"))
}

// parse checks the flags without reading anything (invalid flags exit 2).
func (f *nodesFlags) parse() (inventory.Spec, error) {
	spec, err := inventory.ParseSpec(f.spec)
	if err != nil {
		return spec, invalidInput(err)
	}
	if f.format != "" {
		known := false
		for _, name := range inventory.FormatNames() {
			known = known || name == f.format
		}
		if !known {
			return spec, invalidInput(fmt.Errorf("unknown --nodes-format %q, expected %s", f.format, strings.Join(inventory.FormatNames(), "|")))
		}
	}
	if f.limits.MaxNodes < 1 || f.limits.MaxFeatures < 1 {
		return spec, invalidInput(fmt.Errorf("--max-nodes and --max-features must be at least 1"))
	}
	spec.Format = f.format
	spec.Limits = f.limits
	return spec, nil
}

// load reads the inventory, printing its warnings to stderr.
func (f *nodesFlags) load(cmd *cobra.Command, spec inventory.Spec) (*inventory.Cluster, error) {
	c, resume, err := f.loadPaused(cmd, spec)
	resume()
	return c, err
}

// loadPaused is load with the collector left as pauseGC set it for the
// caller to resume, once it has built what it needs of the inventory.
func (f *nodesFlags) loadPaused(cmd *cobra.Command, spec inventory.Spec) (*inventory.Cluster, func(), error) {
	resume := pauseGC(spec)
	c, err := f.read(cmd, spec)
	return c, resume, err
}

func (f *nodesFlags) read(cmd *cobra.Command, spec inventory.Spec) (*inventory.Cluster, error) {
	c, warnings, err := spec.LoadCluster()
	if c != nil {
		limitMemory(len(c.Nodes))
	}
	for _, w := range warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "sift: warning: %s\n", w)
	}
	if errors.Is(err, inventory.ErrLimit) {
		// Over a limit is invalid input, not an unreadable file.
		return c, invalidInput(err)
	}
	return c, err
}

// indexed reads the inventory of spec and builds its index.
func (f *nodesFlags) indexed(cmd *cobra.Command, spec inventory.Spec) (*inventory.Cluster, *index.Snapshot, error) {
	// The index is built with the collector still paused: the memory limit
	// then starts the collections it needs.
	c, resume, err := f.loadPaused(cmd, spec)
	defer resume()
	if err != nil {
		return nil, nil, err
	}
	snap, err := index.Build(c.Nodes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", spec, err)
	}
	return c, snap, nil
}

// cluster parses the flags and reads the inventory.
func (f *nodesFlags) cluster(cmd *cobra.Command) (*inventory.Cluster, error) {
	spec, err := f.parse()
	if err != nil {
		return nil, err
	}
	return f.load(cmd, spec)
}
