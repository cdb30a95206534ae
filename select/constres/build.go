package constres

import (
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// build turns a pick into an allocation: the cores on each node (all of
// them for whole-node jobs, else block or cyclic over the sockets, reference
// §2.6), the memory (reference §2.3 step 7) and the GPUs. st nil ignores
// allocations.
func (p *Plugin) build(st *state, r *job.Request, pk *pick, free bitset.Set, start int64) (*job.Allocation, error) {
	whole := p.nodeReqOf(r) == crReserved
	a := &job.Allocation{Start: start, WholeNode: whole}
	cpus := pk.cpus
	if !whole {
		vpus := make([]int, len(pk.nodes))
		for i, id := range pk.nodes {
			vpus[i] = p.cl.Threads[id]
		}
		var ok bool
		if cpus, ok = distTasks(r, pk.cpus, vpus); !ok {
			return nil, errorf(false, "the tasks do not fit the CPUs of the chosen nodes")
		}
	}
	for i, id := range pk.nodes {
		var cs []int
		var held int
		if whole {
			cores := p.cl.Cores(id)
			cs = p.pickCores(id, cores, free, r.Distribution)
			if len(cs) < cores {
				return nil, errorf(false, "node %d has %d free cores, needs %d", id, len(cs), cores)
			}
			held = len(cs) * p.cl.Threads[id]
		} else {
			if cpus[i] == 0 {
				// A node of an explicit node range left without tasks:
				// Slurm lists it with no cores; sift leaves it out.
				continue
			}
			var ok bool
			if cs, held, ok = p.syncCores(r, id, cpus[i], free); !ok {
				return nil, errorf(false, "node %d has too few free cores for %d CPUs", id, cpus[i])
			}
		}
		mem := p.nodeMem(r, id, held)
		if st != nil && p.cfg.TrackMemory && st.mem[id]+mem > p.cl.MemoryMB[id] {
			return nil, errorf(false, "node %d lacks memory", id)
		}
		if !p.cfg.TrackMemory || st == nil {
			if mem > p.cl.MemoryMB[id] {
				return nil, errorf(true, "node %d has too little memory", id)
			}
		}
		a.PerNode = append(a.PerNode, job.NodeAlloc{ID: id, CPUs: held, Cores: cs, MemoryMB: mem, GPUs: pk.gpus[i]})
		if p.cfg.Units == UnitSocket && !whole {
			// job_test.c counts every socket the job touches in full.
			a.TotalCPUs += p.socketsTouched(id, cs) * p.cl.CoresPerSocket[id] * p.cl.Threads[id]
		} else {
			a.TotalCPUs += held
		}
	}
	ids := make([]uint32, len(a.PerNode))
	for i, n := range a.PerNode {
		ids[i] = n.ID
	}
	a.Nodes = nodesOf(ids)
	return a, nil
}

// pickCores chooses k free cores of node id: block fills socket 0 first,
// cyclic takes one core from each socket in turn.
func (p *Plugin) pickCores(id uint32, k int, free bitset.Set, d job.Distribution) []int {
	lo := p.coreOff[id]
	sockets, cps := p.cl.Sockets[id], p.cl.CoresPerSocket[id]
	isFree := func(c int) bool { return free == nil || free.Has(uint32(lo+c)) }
	var out []int
	if d == job.Block || sockets <= 1 {
		for c := 0; c < sockets*cps && len(out) < k; c++ {
			if isFree(c) {
				out = append(out, c)
			}
		}
	} else {
		next := make([]int, sockets)
		for progress := true; progress && len(out) < k; {
			progress = false
			for s := 0; s < sockets && len(out) < k; s++ {
				for next[s] < cps && !isFree(s*cps+next[s]) {
					next[s]++
				}
				if next[s] < cps {
					out = append(out, s*cps+next[s])
					next[s]++
					progress = true
				}
			}
		}
	}
	// Core numbers are reported in increasing order.
	sortInts(out)
	return out
}

// socketsTouched counts the sockets of node id holding one of cores.
func (p *Plugin) socketsTouched(id uint32, cores []int) int {
	n, last := 0, -1
	for _, c := range cores {
		if s := c / p.cl.CoresPerSocket[id]; s != last {
			n, last = n+1, s
		}
	}
	return n
}

func sortInts(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
