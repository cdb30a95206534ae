package linear

import (
	"slices"

	"github.com/nodesift/sift/select/bitset"
)

// record is one job the plugin holds (Slurm's job_resources for linear).
type record struct {
	id          uint32
	nodes       []uint32 // increasing
	mem         []uint64 // MB per node, parallel to nodes
	exclusive   bool     // holds its nodes alone (exclusive_cnt)
	suspended   bool
	contiguous  bool
	preemptable bool
	priority    uint32
	totalCPUs   int
	start, end  int64
}

func (r *record) clone() *record {
	c := *r
	c.nodes = slices.Clone(r.nodes)
	c.mem = slices.Clone(r.mem)
	return &c
}

// state is Slurm's cr_record table: per node allocated memory, exclusive
// holders, running and running+suspended job counts, and the jobs.
type state struct {
	mem  []uint64
	excl []int32
	run  []int32
	tot  []int32
	jobs map[uint32]*record
	// clean marks the nodes with no job and no memory charged; held the
	// nodes an exclusive job holds; idle the nodes no job runs on (Slurm's
	// idle_node_bitmap: a node whose jobs are all suspended is idle).
	clean, held, idle bitset.Set
	// gen counts changes, so that will-run's release chain knows when it
	// is stale.
	gen uint64
}

func newState(n int) *state {
	s := &state{mem: make([]uint64, n), excl: make([]int32, n), run: make([]int32, n), tot: make([]int32, n), jobs: map[uint32]*record{}, clean: bitset.New(n), held: bitset.New(n), idle: bitset.New(n)}
	for i := 0; i < n; i++ {
		s.clean.Add(uint32(i))
		s.idle.Add(uint32(i))
	}
	return s
}

// touch updates node id's clean, held and idle bits.
func (s *state) touch(id uint32) {
	s.gen++
	if s.mem[id] == 0 && s.excl[id] == 0 && s.run[id] == 0 && s.tot[id] == 0 {
		s.clean.Add(id)
	} else {
		s.clean.Del(id)
	}
	if s.excl[id] != 0 {
		s.held.Add(id)
	} else {
		s.held.Del(id)
	}
	if s.run[id] == 0 {
		s.idle.Add(id)
	} else {
		s.idle.Del(id)
	}
}

// dup deep-copies the state for what-if tests (Slurm's _dup_cr).
func (s *state) dup() *state {
	d := &state{mem: slices.Clone(s.mem), excl: slices.Clone(s.excl), run: slices.Clone(s.run), tot: slices.Clone(s.tot), jobs: make(map[uint32]*record, len(s.jobs)), clean: s.clean.Clone(), held: s.held.Clone(), idle: s.idle.Clone()}
	for id, r := range s.jobs {
		d.jobs[id] = r
	}
	return d
}

// add charges r to its nodes.
func (s *state) add(r *record) {
	s.gen++
	for i, id := range r.nodes {
		s.mem[id] += r.mem[i]
		s.tot[id]++
		if !r.suspended {
			s.run[id]++
			if r.exclusive {
				s.excl[id]++
			}
		}
		s.touch(id)
	}
	s.jobs[r.id] = r
}

// remove releases r from its nodes; with all false (preemption by
// suspension) only the CPUs are released and the memory stays charged.
func (s *state) remove(r *record, all bool) {
	s.gen++
	for i, id := range r.nodes {
		if !r.suspended {
			s.run[id]--
			if r.exclusive {
				s.excl[id]--
			}
		}
		if all {
			s.mem[id] -= r.mem[i]
			s.tot[id]--
		}
		s.touch(id)
	}
	if all {
		delete(s.jobs, r.id)
	}
}

// sortedJobs returns the jobs in increasing id order.
func (s *state) sortedJobs() []*record {
	out := make([]*record, 0, len(s.jobs))
	for _, r := range s.jobs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *record) int { return cmpU32(a.id, b.id) })
	return out
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
