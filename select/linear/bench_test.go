package linear

import (
	"fmt"
	"testing"

	"github.com/nodesift/sift/index"
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
