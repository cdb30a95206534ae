package constres

import (
	"maps"
	"slices"

	"github.com/nodesift/sift/select/bitset"
)

// Node requirements of a job (Slurm's NODE_CR_*): summed per node, so at
// least reserved means an exclusive job holds the node and at least oneRow
// means a non-sharing job is there.
const (
	crAvailable = 0
	crOneRow    = 1
	crReserved  = 64000
)

// record is one job the plugin holds (Slurm's job_resources).
type record struct {
	id          uint32
	partition   string
	row         int
	nodeReq     int32
	nodes       []uint32 // increasing
	cores       [][]int  // per node: core numbers
	cpus        []int
	mem         []uint64
	gpus        [][]int // per node: GPUs taken from each of the node's GPU GRES entries
	suspended   bool
	preemptable bool
	priority    uint32
	start, end  int64
}

// partRows is one partition's rows: each the union of the cores of the jobs
// placed in it.
type partRows struct {
	rows []bitset.Set
	jobs []int // jobs per row
}

// state is cons_tres's node usage and partition rows.
type state struct {
	mem      []uint64
	gpus     [][]int // per node, per GPU GRES entry: allocated
	nodeReq  []int32
	jobCnt   []int32
	shareCnt []int32 // jobs on the node that share (crAvailable)
	// sharePart counts, per node, the sharing jobs of each partition.
	sharePart []map[string]int32
	parts     map[string]*partRows
	jobs      map[uint32]*record
	// gen counts the changes made to the state, so that what is derived
	// from it (the will-run release chain) knows when it is stale.
	gen uint64
}

func newState(n int) *state {
	return &state{mem: make([]uint64, n), gpus: make([][]int, n), nodeReq: make([]int32, n), jobCnt: make([]int32, n),
		shareCnt: make([]int32, n), sharePart: make([]map[string]int32, n), parts: map[string]*partRows{}, jobs: map[uint32]*record{}}
}

// dup deep-copies the state for what-if tests (part_data_dup_res,
// node_data_dup_use).
func (s *state) dup() *state {
	d := &state{mem: slices.Clone(s.mem), gpus: make([][]int, len(s.gpus)), nodeReq: slices.Clone(s.nodeReq),
		jobCnt: slices.Clone(s.jobCnt), shareCnt: slices.Clone(s.shareCnt), parts: map[string]*partRows{}, jobs: maps.Clone(s.jobs)}
	d.sharePart = make([]map[string]int32, len(s.sharePart))
	for i, m := range s.sharePart {
		if m != nil {
			d.sharePart[i] = maps.Clone(m)
		}
	}
	for i, g := range s.gpus {
		if g != nil {
			d.gpus[i] = slices.Clone(g)
		}
	}
	for name, p := range s.parts {
		q := &partRows{jobs: slices.Clone(p.jobs)}
		for _, r := range p.rows {
			q.rows = append(q.rows, r.Clone())
		}
		d.parts[name] = q
	}
	return d
}
