package index

import (
	"sync"
	"sync/atomic"
)

// buildBase indexes nodes (nil entries are holes) with one reused parser.
func buildBase(nodes []*Node) (*base, error) {
	bb := newBaseBuilder(uint32(len(nodes)), nodes)
	if len(nodes) < pipelineMin {
		var r extraReader
		for id, n := range nodes {
			if n == nil {
				continue
			}
			has := false
			if n.Extra != nil {
				has = bb.addExtra(&r, uint32(id), n.Extra)
			}
			bb.addNode(uint32(id), n, has)
		}
		return bb.finish()
	}
	// Large builds parse JSON ahead on two workers, a chunk of nodes at a
	// time, while this goroutine feeds the parsed chunks in id order to the
	// column builders and another records names, ranks and features. The
	// workers block once they are pipelineAhead chunks ahead, so the four
	// goroutines keep both cores busy however the costs shift; each writes
	// its own part of the builder.
	p := newChunkPipe(nodes)
	for range parseWorkers {
		go p.parse()
	}
	nodesDone := make(chan error, 1)
	go func() {
		for id, n := range nodes {
			if n != nil {
				bb.addNodeNamed(uint32(id), n, false)
				bb.addFeatures(uint32(id), n)
			}
		}
		err := bb.finishNodes()
		if err == nil {
			bb.finishProps()
		}
		nodesDone <- err
	}()
	has := bb.b.has
	for i := range p.chunks {
		c := p.next(i)
		for k := range c.hi - c.lo {
			if c.from[k] >= 0 {
				id := uint32(c.lo + k)
				addBit(has, id)
				bb.addMembers(id, c.members[c.from[k]:c.to[k]], nodes[id].Extra, c.dec)
			}
		}
		p.release(i, c)
	}
	p.close()
	bb.finishCols(2)
	if err := <-nodesDone; err != nil {
		return nil, err
	}
	return bb.b, nil
}

// Large builds: from pipelineMin nodes, parseWorkers goroutines read JSON
// pipelineChunk nodes at a time, at most pipelineAhead chunks ahead.
const (
	pipelineMin   = 4096
	pipelineChunk = 1024 // 4 chunks of buffers, 5 MB at a million nodes, garbage as the build ends
	pipelineAhead = 4
	parseWorkers  = 2
)

// parsedChunk is the extra JSON of nodes [lo, hi), read ahead: node lo+k's
// members are members[from[k]:to[k]], or from[k] < 0 when it has no parsed
// extra data. Decoded strings' spans point into dec.
type parsedChunk struct {
	lo, hi   int
	from, to []int32
	members  []member
	dec      []byte
}

// chunkPipe hands chunk indices to parse workers and their results back in
// order. Chunk i uses slot i%pipelineAhead: free[slot] holds the buffer
// until a worker takes it for chunk i, and ready[slot] holds the parsed
// chunk until the feeder takes it.
type chunkPipe struct {
	nodes  []*Node
	chunks int
	taken  atomic.Int64
	free   [pipelineAhead]chan *parsedChunk
	ready  [pipelineAhead]chan *parsedChunk
}

func newChunkPipe(nodes []*Node) *chunkPipe {
	p := &chunkPipe{nodes: nodes, chunks: (len(nodes) + pipelineChunk - 1) / pipelineChunk}
	for i := range pipelineAhead {
		p.free[i] = make(chan *parsedChunk, 1)
		p.ready[i] = make(chan *parsedChunk, 1)
		c, _ := chunkPool.Get().(*parsedChunk)
		if c == nil {
			c = new(parsedChunk)
		}
		p.free[i] <- c
	}
	return p
}

// chunkPool keeps parsed chunks' buffers from one large build to the next.
var chunkPool sync.Pool // of *parsedChunk

// close returns the buffers to chunkPool once every chunk is released.
func (p *chunkPipe) close() {
	for i := range pipelineAhead {
		chunkPool.Put(<-p.free[i])
	}
}

// parse reads chunks, taking the next unread one each time, until none is
// left.
func (p *chunkPipe) parse() {
	var r extraReader
	for {
		i := int(p.taken.Add(1)) - 1
		if i >= p.chunks {
			return
		}
		c := <-p.free[i%pipelineAhead]
		c.lo = i * pipelineChunk
		c.hi = min(c.lo+pipelineChunk, len(p.nodes))
		c.from, c.to = c.from[:0], c.to[:0]
		r.members, r.dec = c.members[:0], c.dec[:0]
		for _, n := range p.nodes[c.lo:c.hi] {
			from := int32(len(r.members))
			if n == nil || n.Extra == nil || !r.readMore(n.Extra) {
				from = -1
			}
			c.from = append(c.from, from)
			c.to = append(c.to, int32(len(r.members)))
		}
		c.members, c.dec = r.members, r.dec
		p.ready[i%pipelineAhead] <- c
	}
}

// next waits for chunk i.
func (p *chunkPipe) next(i int) *parsedChunk { return <-p.ready[i%pipelineAhead] }

// release hands chunk i's buffer back for chunk i+pipelineAhead.
func (p *chunkPipe) release(i int, c *parsedChunk) { p.free[i%pipelineAhead] <- c }
