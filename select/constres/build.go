package constres

import (
	"github.com/nodesift/sift/select/internal/bits"
	"github.com/nodesift/sift/select/job"
)

// build turns a pick into an allocation: the cores on each node (all of
// them for whole-node jobs, else block or cyclic over the sockets, reference
// §2.6), the memory (reference §2.3 step 7) and the GPUs. st nil ignores
// allocations.
func (p *Plugin) build(st *state, r *job.Request, pk *pick, free bits.Set, start int64) (*job.Allocation, error) {
	a := &job.Allocation{Start: start}
	whole := p.nodeReqOf(r) == crReserved
	for i, id := range pk.nodes {
		cores := p.cl.Cores(id)
		threads := p.cl.Threads[id]
		k := cores
		if !whole {
			k = min((pk.cpus[i]+threads-1)/threads, cores)
		}
		cs := p.pickCores(id, k, free, r.Distribution)
		if len(cs) < k {
			return nil, errorf(false, "node %d has %d free cores, needs %d", id, len(cs), k)
		}
		cpus := len(cs) * threads
		mem := p.nodeMem(r, id, cpus)
		if st != nil && p.cfg.TrackMemory && st.mem[id]+mem > p.cl.MemoryMB[id] {
			return nil, errorf(false, "node %d lacks memory", id)
		}
		if !p.cfg.TrackMemory || st == nil {
			if mem > p.cl.MemoryMB[id] {
				return nil, errorf(true, "node %d has too little memory", id)
			}
		}
		a.PerNode = append(a.PerNode, job.NodeAlloc{ID: id, CPUs: cpus, Cores: cs, MemoryMB: mem, GPUs: pk.gpus[i]})
		a.TotalCPUs += cpus
	}
	a.Nodes = nodesOf(pk.nodes)
	return a, nil
}

// pickCores chooses k free cores of node id: block fills socket 0 first,
// cyclic takes one core from each socket in turn.
func (p *Plugin) pickCores(id uint32, k int, free bits.Set, d job.Distribution) []int {
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

func sortInts(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
