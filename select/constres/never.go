package constres

import (
	"math/bits"

	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// maxNodeClasses bounds the node classes whose members the plugin keeps
// as sets; a cluster of more layouts goes without the ever-fits memo.
const maxNodeClasses = 64

// everLimit bounds the answers the ever-fits memo keeps.
const everLimit = 1 << 14

// nodeClass is what test 0 (selectNodes with no state) reads of a node:
// nodes of one class are interchangeable there.
type nodeClass struct {
	cpus, sockets, coresPerSocket, threads, confThreads int
	memoryMB                                            uint64
	weight                                              uint32
}

// everKey is one remembered test-0 answer: a request's shape, its node
// sharing mode, and its candidates as a class and a count.
type everKey struct {
	shape job.Shape
	req   int32
	class int32
	count int
}

// classify groups the cluster's nodes by nodeClass, keeping each class's
// members when there are at most maxNodeClasses classes.
func (p *Plugin) classify() {
	ids := map[nodeClass]int32{}
	p.classOf = make([]int32, p.cl.N)
	for id := 0; id < p.cl.N; id++ {
		k := nodeClass{p.cl.CPUs[id], p.cl.Sockets[id], p.cl.CoresPerSocket[id], p.cl.Threads[id], p.cl.ConfThreads[id], p.cl.MemoryMB[id], p.cl.Weight[id]}
		c, ok := ids[k]
		if !ok {
			c = int32(len(ids))
			ids[k] = c
		}
		p.classOf[id] = c
	}
	if len(ids) > maxNodeClasses {
		return
	}
	p.classSets = make([]bitset.Set, len(ids))
	for i := range p.classSets {
		p.classSets[i] = bitset.New(p.cl.N)
	}
	for id, c := range p.classOf {
		p.classSets[c].Add(uint32(id))
	}
}

// everFits is test 0: whether some set of the candidates all could hold
// the job on an empty cluster (selectNodes with no state). The answer
// reads only the request and the candidates' static resources, so it is
// remembered, for a request that names no nodes and asks for no GPUs and
// no contiguous nodes, by shape (but for PlanEnd, which only will-run's
// release walk reads) and by the candidates' class and count when they
// are all of one class: on interchangeable nodes the evaluation
// takes the same resources from each node in turn whatever their ids, so
// only their number decides (TestEverFitsMemoAgreesWithPlain). Backfill
// asks it after every failed will-run, on candidates that differ from
// round to round but keep their class.
func (p *Plugin) everFits(r *job.Request, all bitset.Set) bool {
	key, ok := p.everKeyOf(r, all)
	if ok {
		if v, hit := p.ever[key]; hit {
			return v
		}
	}
	_, fits := p.selectNodes(nil, r, all, nil)
	if ok {
		if p.ever == nil || len(p.ever) >= everLimit {
			p.ever = map[everKey]bool{}
		}
		p.ever[key] = fits
	}
	return fits
}

// everKeyOf is r's key in the ever-fits memo on candidates all, and false
// when the answer is not remembered.
func (p *Plugin) everKeyOf(r *job.Request, all bitset.Set) (everKey, bool) {
	if noMemo || p.classSets == nil || r.Contiguous || r.GPUsPerNode > 0 || r.GPUsPerJob > 0 {
		return everKey{}, false
	}
	shape, ok := r.Shape()
	if !ok {
		return everKey{}, false
	}
	// Backfill sets it afresh in every round.
	shape.PlanEnd = 0
	lo, hi := all.Span()
	if lo == hi {
		return everKey{}, false
	}
	c := p.classOf[lo*64+bits.TrailingZeros64(all[lo])]
	if !all[lo:hi].SubsetOf(p.classSets[c][lo:hi]) {
		return everKey{}, false
	}
	return everKey{shape: shape, req: p.nodeReqOf(r), class: c, count: all.Count()}, true
}
