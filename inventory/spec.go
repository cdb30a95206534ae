package inventory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/position"
)

// Defaults of the synthetic cluster used when no inventory is given.
const (
	DefaultSyntheticNodes = 1000
	DefaultSeed           = 1
	// MaxSyntheticNodes bounds synthetic:N so a typo cannot exhaust memory.
	MaxSyntheticNodes = 1 << 24
)

// Spec is a parsed --nodes value: a file path or a synthetic cluster.
type Spec struct {
	Path      string // the inventory file, when not synthetic
	Synthetic bool
	N         int    // synthetic node count
	Seed      uint64 // synthetic seed
	// Format names the file's format (see FormatNames); empty detects it
	// by content.
	Format string
	// Limits bound what loading may make; zero fields take the defaults.
	Limits Limits
}

// SpecError is an invalid --nodes value.
type SpecError struct {
	Spec string
	Msg  string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("invalid --nodes %q: %s", position.Clip(e.Spec), e.Msg)
}

// ParseSpec reads a --nodes value: "synthetic:N", "synthetic:N,seed=S", or a
// path (write ./synthetic:... for a file of that name). The empty spec is the
// default synthetic cluster.
func ParseSpec(spec string) (Spec, error) {
	if spec == "" {
		return Spec{Synthetic: true, N: DefaultSyntheticNodes, Seed: DefaultSeed}, nil
	}
	rest, ok := strings.CutPrefix(spec, "synthetic:")
	if !ok {
		return Spec{Path: spec}, nil
	}
	s := Spec{Synthetic: true, Seed: DefaultSeed}
	count, opts, hasOpts := strings.Cut(rest, ",")
	n, err := strconv.ParseUint(count, 10, 64)
	if err != nil || n == 0 || n > MaxSyntheticNodes {
		return Spec{}, &SpecError{Spec: spec, Msg: fmt.Sprintf("expected synthetic:N with N from 1 to %d", MaxSyntheticNodes)}
	}
	s.N = int(n)
	if hasOpts {
		v, ok := strings.CutPrefix(opts, "seed=")
		if !ok {
			return Spec{}, &SpecError{Spec: spec, Msg: "expected seed=S after the comma"}
		}
		if s.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return Spec{}, &SpecError{Spec: spec, Msg: "expected the seed to be an unsigned integer"}
		}
	}
	return s, nil
}

// String returns the spec in the form ParseSpec reads.
func (s Spec) String() string {
	if !s.Synthetic {
		return s.Path
	}
	if s.Seed == DefaultSeed {
		return fmt.Sprintf("synthetic:%d", s.N)
	}
	return fmt.Sprintf("synthetic:%d,seed=%d", s.N, s.Seed)
}

// Load returns the nodes the spec names.
func (s Spec) Load() ([]index.Node, []Warning, error) {
	c, w, err := s.LoadCluster()
	if err != nil {
		return nil, w, err
	}
	return c.Nodes, w, nil
}

// LoadCluster returns the nodes the spec names with their partitions.
func (s Spec) LoadCluster() (*Cluster, []Warning, error) {
	lim := s.Limits.orDefault()
	if s.Synthetic {
		if s.N > lim.MaxNodes {
			return nil, nil, &Error{File: s.String(), Msg: "synthetic cluster", Err: &limitError{fmt.Sprintf("would make %d nodes, more than the limit of %d (--max-nodes)", s.N, lim.MaxNodes)}}
		}
		return &Cluster{Nodes: Synthetic(s.N, s.Seed)}, nil, nil
	}
	return LoadClusterWithin(s.Path, s.Format, lim)
}
