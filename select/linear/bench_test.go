package linear

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

func benchCluster(b *testing.B, n int) *job.Cluster {
	nodes := make([]index.Node, n)
	for i := range nodes {
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), CPUs: 64, MemoryMB: 256000}
	}
	s, err := index.Build(nodes)
	if err != nil {
		b.Fatal(err)
	}
	return job.NewCluster(s)
}

// BenchmarkRunNow is a 1,000-node job on a cluster whose every 10th node is
// busy (budget: 500 µs at 100k nodes).
func BenchmarkRunNow(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			cl := benchCluster(b, n)
			p := New(cl, Config{TrackMemory: true})
			for i := 0; i < n; i += 10 {
				r := &job.Request{ID: uint32(i + 1), MinNodes: 1, MaxNodes: 1}
				if err := p.Begin(r, &job.Allocation{Nodes: bmOf(uint32(i))}); err != nil {
					b.Fatal(err)
				}
			}
			r := &job.Request{ID: 1 << 30, MinNodes: 1000, MaxNodes: 1000, ReqNodes: 1000}
			cand := cl.Snap.Live()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := p.Select(r, cand, job.RunNow, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWillRun estimates a start with 10k running jobs on 10k nodes
// (budget: 50 ms).
func BenchmarkWillRun(b *testing.B) {
	const n = 10000
	cl := benchCluster(b, n)
	p := New(cl, Config{TrackMemory: true})
	for i := 0; i < n; i++ {
		r := &job.Request{ID: uint32(i + 1), MinNodes: 1, MaxNodes: 1, TimeLimit: 0}
		a := &job.Allocation{Nodes: bmOf(uint32(i)), Start: int64(i)}
		if err := p.Begin(r, a); err != nil {
			b.Fatal(err)
		}
	}
	r := &job.Request{ID: 1 << 30, MinNodes: 64, MaxNodes: 64, ReqNodes: 64}
	cand := cl.Snap.Live()
	b.Run("jobs=10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.Select(r, cand, job.WillRun, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWillRunDenseRepeat asks WillRunDense questions a backfill pass
// has asked before (64 shapes on their own candidates, with 200 jobs
// running on a CTC-SP2-sized cluster): the memo's lookup is all of it.
func BenchmarkWillRunDenseRepeat(b *testing.B) {
	const n = 338
	b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
		cl := benchCluster(b, n)
		cl.Partitions["p"] = &job.Partition{Nodes: cl.Snap.Live()}
		p := New(cl, Config{})
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 200; i++ {
			q := &job.Request{ID: uint32(i + 1), MinNodes: 1 + r.IntN(4), Partition: "p", TimeLimit: time.Duration(100+r.IntN(1000)) * time.Second}
			if a, err := p.Select(q, cl.Snap.Live(), job.RunNow, 0); err == nil {
				if err := p.Begin(q, a); err != nil {
					b.Fatal(err)
				}
			}
		}
		var reqs []*job.Request
		var cands []bitset.Set
		for i := 0; i < 64; i++ {
			reqs = append(reqs, &job.Request{ID: uint32(1000 + i), MinNodes: 1 + r.IntN(64), Partition: "p"})
			c := bitset.New(n)
			for k := 0; k < n; k++ {
				if r.IntN(4) != 0 {
					c.Add(uint32(k))
				}
			}
			cands = append(cands, c)
		}
		for i := range reqs {
			p.WillRunDense(reqs[i], cands[i], 10)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := i % len(reqs)
			if _, _, err := p.WillRunDense(reqs[k], cands[k], 10); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
