package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
	"github.com/nodesift/sift/workload"
)

// HeaderPartition is the partition of the nodes HeaderNodes makes.
const HeaderPartition = "batch"

// ErrNoMachine is a trace whose header gives no machine size.
var ErrNoMachine = errors.New("the trace's header gives neither MaxNodes nor MaxProcs")

// HeaderNodes is the machine a trace's header describes, in partition
// "batch": MaxNodes nodes of MaxProcs/MaxNodes CPUs each (rounded down, at
// least 1), or, when cpus is set or MaxNodes is unknown, MaxProcs nodes of
// one CPU. Nodes are named n1, n2, ... .
func HeaderNodes(m workload.Machine, cpus bool) ([]index.Node, error) {
	n, per := m.MaxNodes, 1
	switch {
	case (cpus || n <= 0) && m.MaxProcs > 0:
		n = m.MaxProcs
	case n > 0 && m.MaxProcs > 0:
		per = max(m.MaxProcs/n, 1)
	case n <= 0:
		return nil, ErrNoMachine
	}
	nodes := make([]index.Node, n)
	parts := []string{HeaderPartition}
	for i := range nodes {
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i+1), CPUs: per, MemoryMB: uint64(per) * 1024, Partitions: parts}
	}
	return nodes, nil
}

// MoreNodes is nodes with extra more nodes shaped like the last one,
// named on from it (n1..nN then nN+1, ...: HeaderNodes' names).
func MoreNodes(nodes []index.Node, extra int) []index.Node {
	if extra <= 0 || len(nodes) == 0 {
		return nodes
	}
	out := slices.Grow(nodes, extra)
	last := nodes[len(nodes)-1]
	for i := range extra {
		n := last
		n.Name = fmt.Sprintf("n%d", len(nodes)+i+1)
		out = append(out, n)
	}
	return out
}

// NewCluster indexes nodes for a simulation and makes the select plugin
// for alloc: select/linear for whole nodes, select/cons_tres per CPU.
// Memory is not tracked (traces rarely record a usable request). Every node
// starts idle unless the inventory says it is down or drained.
func NewCluster(nodes []index.Node, alloc Allocation) (*job.Cluster, job.Plugin, error) {
	in := make([]index.Node, len(nodes))
	copy(in, nodes)
	for i := range in {
		st := strings.ToLower(in[i].State)
		if !strings.HasPrefix(st, "down") && !strings.HasPrefix(st, "drain") {
			in[i].State = ""
		}
	}
	snap, err := index.Build(in)
	if err != nil {
		return nil, nil, err
	}
	cl := job.NewCluster(snap)
	if alloc == PerCPU {
		return cl, constres.New(cl, constres.Config{}), nil
	}
	return cl, linear.New(cl, linear.Config{}), nil
}
