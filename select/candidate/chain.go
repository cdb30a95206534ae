package candidate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/vm"
)

// Stage names, as --explain prints them.
const (
	StageInventory  = "inventory"
	StagePartition  = "partition"
	StageConstraint = "constraint"
	StageExcluded   = "excluded"
	StageConfig     = "node configuration"
	StageState      = "node state"
)

// Stage is one step of the chain: the nodes that entered it, how many it
// removed and why.
type Stage struct {
	// Name is the stage's kind (StagePartition, ...); Detail what it
	// tested (the partition name, the constraint text).
	Name, Detail string
	// In is the nodes entering the stage; Removed how many it removed.
	In, Removed int
	// Reason says why the removed nodes were removed.
	Reason string
	// Usable marks the stages after the candidates: they narrow only the
	// nodes a job could use now, not what the select plugin is given.
	Usable bool
}

// Left is the nodes the stage let through.
func (s Stage) Left() int { return s.In - s.Removed }

// Mask is a stage a scheduler adds after node state: Nodes are the nodes
// it allows.
type Mask struct {
	Name, Detail, Reason string
	Nodes                *roaring.Bitmap
}

// Input is what a job's chain is built from.
type Input struct {
	// Cluster is the nodes; Request the job, already resolved.
	Cluster *job.Cluster
	Request *job.Request
	// Programs are the compiled Request.Constraints, in the same order.
	Programs []*vm.Program
	// Masks narrow the usable nodes after node state.
	Masks []Mask
}

// Result is a built chain.
type Result struct {
	// Stages are the steps in order, the inventory first.
	Stages []Stage
	// Candidates are the nodes the job's partition, constraints, exclusions
	// and node configuration allow, in any state: what a select plugin is
	// given (it tells busy from never runnable against them).
	Candidates *roaring.Bitmap
	// Usable are the candidates that are up and pass every mask.
	Usable *roaring.Bitmap
}

// ErrUnknownPartition is a job naming a partition the cluster lacks.
var ErrUnknownPartition = errors.New("unknown partition")

// ErrPrograms is an Input whose Programs do not match its constraints.
var ErrPrograms = errors.New("one compiled program is needed per constraint")

// Build runs the chain for in.
func Build(in Input) (*Result, error) {
	res := &Result{}
	cand, err := candidates(in, res)
	if err != nil {
		return nil, err
	}
	c := in.Cluster
	res.Candidates = cand.Clone()
	res.step(cand, StageState, "", stateReason(c, cand), true, func(b *roaring.Bitmap) { b.And(c.Usable) })
	for _, m := range in.Masks {
		res.step(cand, m.Name, m.Detail, m.Reason, true, func(b *roaring.Bitmap) { b.And(m.Nodes) })
	}
	res.Usable = cand
	return res, nil
}

// Candidates are Build's Candidates alone, without the stages' record or
// the nodes' state: what a queue keeps of a job it holds.
func Candidates(in Input) (*roaring.Bitmap, error) {
	return candidates(in, nil)
}

// candidates runs the stages up to the candidates, recording them in res
// unless it is nil.
func candidates(in Input, res *Result) (*roaring.Bitmap, error) {
	c, r := in.Cluster, in.Request
	if len(in.Programs) != len(r.Constraints) {
		return nil, fmt.Errorf("%w: %d programs for %d constraints", ErrPrograms, len(in.Programs), len(r.Constraints))
	}
	cand := c.Snap.Live().Clone()
	if res != nil {
		res.Stages = []Stage{{Name: StageInventory, In: int(cand.GetCardinality())}}
	}
	if r.Partition != "" {
		part := c.Partitions[r.Partition]
		if part == nil {
			return nil, fmt.Errorf("%w %q", ErrUnknownPartition, r.Partition)
		}
		reason := ""
		if res != nil {
			reason = "not in partition " + r.Partition
		}
		res.step(cand, StagePartition, r.Partition, reason, false, func(b *roaring.Bitmap) { b.And(part.Nodes) })
	}
	for i, prog := range in.Programs {
		con := r.Constraints[i]
		res.step(cand, StageConstraint, constraintKey(con.Lang)+"="+con.Text, "constraint is false", false, func(b *roaring.Bitmap) { b.And(vm.Run(prog, c.Snap)) })
	}
	if r.ExcludedSet != nil && !r.ExcludedSet.IsEmpty() {
		res.step(cand, StageExcluded, r.Excluded, "excluded by the job", false, func(b *roaring.Bitmap) { b.AndNot(r.ExcludedSet) })
	}
	res.step(cand, StageConfig, "", "too few CPUs, memory, GPUs, sockets, cores or threads for the job", false, func(b *roaring.Bitmap) { r.FilterNodes(c, b) })
	return cand, nil
}

// step applies one stage to cand and records it in r (nothing to record
// when r is nil).
func (r *Result) step(cand *roaring.Bitmap, name, detail, reason string, usable bool, apply func(*roaring.Bitmap)) {
	if r == nil {
		apply(cand)
		return
	}
	in := int(cand.GetCardinality())
	apply(cand)
	r.Stages = append(r.Stages, Stage{Name: name, Detail: detail, In: in, Removed: in - int(cand.GetCardinality()), Reason: reason, Usable: usable})
}

// noStateReason is the state stage's reason when nothing breaks it down.
const noStateReason = "down, drained or in use outside the plugin"

// stateReason breaks down the candidates that are not usable.
func stateReason(c *job.Cluster, cand *roaring.Bitmap) string {
	if cand.AndCardinality(c.Usable) == cand.GetCardinality() {
		// Every candidate is usable: nothing to break down (a submission
		// asks this of every job).
		return noStateReason
	}
	return stateBreakdown(c, cand)
}

// stateBreakdown is stateReason counted node set by node set.
func stateBreakdown(c *job.Cluster, cand *roaring.Bitmap) string {
	down := roaring.And(cand, c.Down).GetCardinality()
	drain := roaring.And(cand, c.Drain).GetCardinality()
	out := roaring.AndNot(cand, c.Usable).GetCardinality() - down - drain
	var parts []string
	if down > 0 {
		parts = append(parts, fmt.Sprintf("%d down", down))
	}
	if drain > 0 {
		parts = append(parts, fmt.Sprintf("%d drained", drain))
	}
	if out > 0 {
		parts = append(parts, fmt.Sprintf("%d in use by jobs the plugin does not track", out))
	}
	if len(parts) == 0 {
		return noStateReason
	}
	return strings.Join(parts, ", ")
}

// constraintKey is the job key a constraint language is written under.
func constraintKey(lang string) string {
	switch lang {
	case "slurm":
		return "extra"
	case "flux":
		return "jobspec"
	}
	return lang
}

// Explain writes the chain as --explain prints it, one stage a line.
func (r *Result) Explain(b *strings.Builder) {
	for _, s := range r.Stages {
		name := s.Name
		if s.Detail != "" {
			name += " " + s.Detail
		}
		if s.Name == StageInventory {
			fmt.Fprintf(b, "%-40s %6d nodes\n", name, s.In)
			continue
		}
		fmt.Fprintf(b, "%-40s %6d left, -%d", name, s.Left(), s.Removed)
		if s.Removed > 0 {
			fmt.Fprintf(b, " (%s)", s.Reason)
		}
		b.WriteByte('\n')
	}
}
