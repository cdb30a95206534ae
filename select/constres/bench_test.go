package constres

import (
	"fmt"
	"testing"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/job"
)

func benchCluster(b testing.TB, n int) *job.Cluster {
	nodes := make([]index.Node, n)
	for i := range nodes {
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), Sockets: 2, CoresPerSocket: 32, ThreadsPerCore: 1, MemoryMB: 256000, Partitions: []string{"p"}}
	}
	s, err := index.Build(nodes)
	if err != nil {
		b.Fatal(err)
	}
	return job.NewCluster(s)
}

// startSingles starts, on node i for every i below upto in steps of step, a
// one-node job of ntasks tasks; staggered selects each at time i, so their
// ends differ, as will-run needs.
func startSingles(b *testing.B, p *Plugin, upto, step, ntasks int, staggered bool) {
	for i := 0; i < upto; i += step {
		r := &job.Request{ID: uint32(i + 1), NTasks: ntasks, MinNodes: 1, MaxNodes: 1}
		var at int64
		if staggered {
			at = int64(i)
		}
		a, err := p.Select(r, bmOf(uint32(i)), job.RunNow, at)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Begin(r, a); err != nil {
			b.Fatal(err)
		}
	}
}

// benchRunNow times the RunNow selection of r over every live node.
func benchRunNow(b *testing.B, p *Plugin, cl *job.Cluster, r *job.Request) {
	cand := cl.Snap.Live()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Select(r, cand, job.RunNow, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunNow is a 64-node job on a cluster where every 10th node runs
// a small job (budget: 2 ms at 10k nodes).
func BenchmarkRunNow(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			cl := benchCluster(b, n)
			p := New(cl, Config{TrackMemory: true, DefMemPerCPU: 1000})
			startSingles(b, p, n, 10, 8, false)
			benchRunNow(b, p, cl, &job.Request{ID: 1 << 30, MinNodes: 64, MaxNodes: 64, ReqNodes: 64, NTasks: 64 * 32})
		})
	}
}

// BenchmarkWillRun estimates a 64-node job's start with 10k running jobs on
// 10k nodes (budget: 50 ms).
func BenchmarkWillRun(b *testing.B) {
	const n = 10000
	cl := benchCluster(b, n)
	p := New(cl, Config{TrackMemory: true, DefMemPerCPU: 1000})
	startSingles(b, p, n, 1, 64, true)
	r := &job.Request{ID: 1 << 30, MinNodes: 64, MaxNodes: 64, ReqNodes: 64, NTasks: 64}
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

// BenchmarkRunNowFragmented is the worst case of the retry without the
// smallest nodes: every node but 63 runs a 60-CPU job (4 CPUs left), and a
// 64-node job of 1,920 CPUs fits only once nearly all the partly used nodes
// are taken out, one evaluation per node (common_topo_choose_nodes does the
// same in Slurm).
func BenchmarkRunNowFragmented(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			cl := benchCluster(b, n)
			p := New(cl, Config{})
			startSingles(b, p, n-63, 1, 60, false)
			benchRunNow(b, p, cl, &job.Request{ID: 1 << 30, MinNodes: 64, MaxNodes: 64, ReqNodes: 64, NTasks: 64 * 30})
		})
	}
}
