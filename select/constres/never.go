package constres

import (
	"math/bits"

	"github.com/nodesift/sift/bitops"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// maxNodeClasses bounds the node classes whose members the plugin keeps
// as sets; a cluster of more layouts goes without the ever-fits memo.
const maxNodeClasses = 64

// everLimit bounds the keys the ever-fits memo keeps.
const everLimit = 1 << 14

// nodeClass is what test 0 (selectNodes with no state) reads of a node:
// nodes of one class are interchangeable there.
type nodeClass struct {
	cpus, sockets, coresPerSocket, threads, confThreads int
	memoryMB                                            uint64
	weight                                              uint32
}

// everKey is what test 0 is remembered by: a request's shape, its node
// sharing mode, and its candidates' class.
type everKey struct {
	shape job.Shape
	req   int32
	class int32
}

// everBound is what is known of test 0 for one everKey: the fewest
// candidates seen to fit (0: none yet) and the most seen not to.
type everBound struct {
	fits, fails int
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
// remembered for a request that names no nodes and asks for no GPUs and
// no contiguous nodes, by shape (but for PlanEnd, which only will-run's
// release walk reads), when the candidates are all of one class: on
// interchangeable nodes the evaluation takes the same resources from
// each node in turn whatever their ids, and more nodes only let it take
// more, so the answer is a count's, and a count at least one that fit
// fits, one at most one that did not fit does not
// (TestEverFitsMemoAgreesWithPlain, TestTestZeroGrowsWithTheCandidates).
// Backfill asks it after every failed will-run, on candidates that
// differ from round to round but keep their class.
func (p *Plugin) everFits(r *job.Request, all bitset.Set) bool {
	key, count, ok := p.everKeyOf(r, all)
	if ok {
		switch b := p.ever[key]; {
		case b.fits > 0 && count >= b.fits:
			return true
		case count <= b.fails:
			return false
		}
	}
	_, fits := p.selectNodes(nil, r, all, nil)
	if ok {
		if p.ever == nil || len(p.ever) >= everLimit {
			p.ever = map[everKey]everBound{}
		}
		b := p.ever[key]
		if fits && (b.fits == 0 || count < b.fits) {
			b.fits = count
		}
		if !fits {
			b.fails = max(b.fails, count)
		}
		p.ever[key] = b
	}
	return fits
}

// everKeyOf is r's key in the ever-fits memo on candidates all with
// their count, and false when the answer is not remembered.
func (p *Plugin) everKeyOf(r *job.Request, all bitset.Set) (everKey, int, bool) {
	if noMemo || p.classSets == nil || r.Contiguous || r.GPUsPerNode > 0 || r.GPUsPerJob > 0 {
		return everKey{}, 0, false
	}
	shape, ok := r.Shape()
	if !ok {
		return everKey{}, 0, false
	}
	// Backfill sets it afresh in every round.
	shape.PlanEnd = 0
	lo, hi := all.Span()
	if lo == hi {
		return everKey{}, 0, false
	}
	c := p.classOf[lo*64+bits.TrailingZeros64(all[lo])]
	if !all[lo:hi].SubsetOf(p.classSets[c][lo:hi]) {
		return everKey{}, 0, false
	}
	return everKey{shape: shape, req: p.nodeReqOf(r), class: c}, bitops.Count(all[lo:hi]), true
}
