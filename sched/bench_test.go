package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/select/linear"
)

// benchCluster is nodes nodes of 32 CPUs in four partitions of equal size.
func benchCluster(b *testing.B, nodes int) *index.Snapshot {
	b.Helper()
	in := make([]index.Node, nodes)
	for i := range in {
		in[i] = index.Node{Name: fmt.Sprintf("n%05d", i), CPUs: 32, MemoryMB: 128000, Partitions: []string{fmt.Sprintf("p%d", i*4/nodes)}}
	}
	s, err := index.Build(in)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchQueue fills about 90% of the nodes with running 16-node jobs that
// end over the next ten hours and queues jobs pending jobs of 1-32 nodes.
// plain hides the plugin's dense will-run (and so its memo).
func benchQueue(b *testing.B, s *index.Snapshot, jobs int, cfg Config, plain bool) *Queue {
	b.Helper()
	cl := job.NewCluster(s)
	var plugin job.Plugin = constres.New(cl, constres.Config{})
	if plain {
		plugin = plainOf(plugin)
	}
	q := NewQueue(Options{Cluster: cl, Plugin: plugin, Scheduler: Backfill{}, Config: cfg})
	r := rand.New(rand.NewPCG(1, 2))
	now := int64(1_000_000)
	n := cl.N
	id := uint32(0)
	for start := 0; start+16 <= n; start += 16 {
		if r.IntN(10) == 0 {
			continue
		}
		id++
		nodes := roaring.New()
		nodes.AddRange(uint64(start), uint64(start+16))
		part := fmt.Sprintf("p%d", start*4/n)
		if (start+15)*4/n != start*4/n {
			continue
		}
		end := now + int64(60+r.IntN(600*60))
		j := &Job{ID: id, User: "run", Partitions: []string{part}, Partition: part, Start: now - 60, End: end, Nodes: nodes,
			Request: &job.Request{Partition: part, Exclusive: true}}
		if err := q.AddRunning(j); err != nil {
			b.Fatal(err)
		}
	}
	for k := 0; k < jobs; k++ {
		id++
		nodes := 1 + r.IntN(32)
		req := &job.Request{MinNodes: nodes, NTasks: nodes * 32, TimeLimit: time.Duration(10+r.IntN(600)) * time.Minute}
		j := &Job{ID: id, User: fmt.Sprintf("u%d", r.IntN(50)), Partitions: []string{fmt.Sprintf("p%d", r.IntN(4))},
			Priority: uint32(1 + r.IntN(100000)), TimeLimit: req.TimeLimit, Request: req}
		if err := q.Submit(j, false, now-int64(r.IntN(3600))); err != nil {
			b.Fatal(err)
		}
	}
	return q
}

// BenchmarkMainPass is one full main pass over 5,000 pending jobs on
// 10,000 nodes (budget 50 ms). Building the queue is not timed.
func BenchmarkMainPass(b *testing.B) {
	for _, sz := range []struct{ jobs, nodes int }{{5000, 10000}} {
		b.Run(fmt.Sprintf("jobs=%d/nodes=%d", sz.jobs, sz.nodes), func(b *testing.B) {
			s := benchCluster(b, sz.nodes)
			b.ReportAllocs()
			var p *Pass
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				q := benchQueue(b, s, sz.jobs, DefaultConfig(), false)
				p = &Pass{}
				b.StartTimer()
				c0 := cpuTime()
				q.MainPass(1_000_000, true, p)
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(p.MainTested), "records-tested")
			b.ReportMetric(float64(len(p.Started)), "started")
		})
	}
}

// BenchmarkBackfill is one backfill pass testing 5,000 pending jobs on
// 10,000 nodes (bf_max_job_test=5000; budget 1 s), after the main pass:
// willrun=dense as the scheduler runs it, willrun=select with the
// plugin's will-run answered through Select (no dense sets, no memo), the
// path before issue 18's speed-ups, for a ratio taken in one run.
func BenchmarkBackfill(b *testing.B) {
	for _, sz := range []struct{ jobs, nodes int }{{5000, 10000}} {
		for _, plain := range []bool{false, true} {
			path := "dense"
			if plain {
				path = "select"
			}
			b.Run(fmt.Sprintf("jobs=%d/nodes=%d/willrun=%s", sz.jobs, sz.nodes, path), func(b *testing.B) {
				s := benchCluster(b, sz.nodes)
				cfg := DefaultConfig()
				cfg.BFMaxJobTest = sz.jobs
				b.ReportAllocs()
				tested, started := 0, 0
				var cpu time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					q := benchQueue(b, s, sz.jobs, cfg, plain)
					q.MainPass(1_000_000, true, &Pass{})
					p := &Pass{}
					b.StartTimer()
					c0 := cpuTime()
					q.BackfillPass(1_000_000, p)
					cpu += cpuTime() - c0
					tested, started = p.BackfillTested, len(p.Started)
				}
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(tested), "jobs-tested")
				b.ReportMetric(float64(started), "started")
			})
		}
	}
}

// simQueue is the shape a trace simulator hands the scheduler: nodes nodes
// of 8 CPUs in one partition under select/linear, about 90% of them held by
// running whole-node jobs of 1-32 nodes ending over the next ten hours, and
// pending jobs of 1-32 whole nodes (most of them small) with random
// priorities and 10-600 minute limits.
func simQueue(b *testing.B, s *index.Snapshot, pending int) *Queue {
	b.Helper()
	cl := job.NewCluster(s)
	q := NewQueue(Options{Cluster: cl, Plugin: linear.New(cl, linear.Config{}), Scheduler: Backfill{}, Config: DefaultConfig()})
	r := rand.New(rand.NewPCG(3, 4))
	now := int64(1_000_000)
	size := func() int {
		if r.IntN(4) == 0 {
			return 1 + r.IntN(32)
		}
		return 1 << r.IntN(3)
	}
	id := uint32(0)
	for next := 0; next < cl.N*9/10; {
		n := min(size(), cl.N*9/10-next)
		id++
		nodes := roaring.New()
		nodes.AddRange(uint64(next), uint64(next+n))
		next += n
		j := &Job{ID: id, User: "run", Partitions: []string{"p"}, Partition: "p", Start: now - 60, End: now + int64(60+r.IntN(600*60)), Nodes: nodes,
			Request: &job.Request{Partition: "p", MinNodes: n, Exclusive: true}}
		if err := q.AddRunning(j); err != nil {
			b.Fatal(err)
		}
	}
	for k := 0; k < pending; k++ {
		id++
		n := size()
		req := &job.Request{MinNodes: n, Exclusive: true, TimeLimit: time.Duration(10+r.IntN(590)) * time.Minute}
		j := &Job{ID: id, User: fmt.Sprintf("u%d", r.IntN(50)), Partitions: []string{"p"},
			Priority: uint32(1 + r.IntN(100000)), TimeLimit: req.TimeLimit, Request: req}
		if err := q.Submit(j, false, now-int64(r.IntN(3600))); err != nil {
			b.Fatal(err)
		}
	}
	return q
}

// BenchmarkSimPass is what a trace simulator pays per scheduling event on a
// small cluster with a deep queue: one full main pass and one backfill pass
// (default knobs: bf_max_job_test=500) with select/linear and whole-node
// jobs. Building the queue is not timed.
func BenchmarkSimPass(b *testing.B) {
	for _, sz := range []struct{ nodes, pending int }{{100, 100}, {430, 1000}, {1000, 2000}} {
		b.Run(fmt.Sprintf("nodes=%d/pending=%d", sz.nodes, sz.pending), func(b *testing.B) {
			in := make([]index.Node, sz.nodes)
			for i := range in {
				in[i] = index.Node{Name: fmt.Sprintf("n%04d", i), CPUs: 8, MemoryMB: 16000, Partitions: []string{"p"}}
			}
			s, err := index.Build(in)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var p *Pass
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				q := simQueue(b, s, sz.pending)
				p = &Pass{}
				b.StartTimer()
				c0 := cpuTime()
				q.MainPass(1_000_000, true, p)
				q.BackfillPass(1_000_000, p)
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(p.BackfillTested), "bf-tested")
			b.ReportMetric(float64(p.Reserved), "reserved")
			b.ReportMetric(float64(len(p.Started)), "started")
		})
	}
}

// BenchmarkPreemptPasses is a main pass then a backfill pass over 5,000
// pending jobs on 10,000 nodes in two partitions of all nodes, lo (tier 1,
// REQUEUE) and hi (tier 2): 90% of the nodes run lo jobs and a tenth of
// the pending jobs are hi jobs that may preempt them.
func BenchmarkPreemptPasses(b *testing.B) {
	const nodes, jobs = 10000, 5000
	in := make([]index.Node, nodes)
	for i := range in {
		in[i] = index.Node{Name: fmt.Sprintf("n%05d", i), CPUs: 32, MemoryMB: 128000, Partitions: []string{"lo", "hi"}}
	}
	s, err := index.Build(in)
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.BFMaxJobTest = jobs
	b.Run(fmt.Sprintf("jobs=%d/nodes=%d", jobs, nodes), func(b *testing.B) {
		b.ReportAllocs()
		var mainCPU, bfCPU time.Duration
		preempted := 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			q := preemptBenchQueue(b, s, jobs, cfg)
			p := &Pass{}
			b.StartTimer()
			c0 := cpuTime()
			q.MainPass(1_000_000, true, p)
			c1 := cpuTime()
			q.BackfillPass(1_000_000, p)
			bfCPU += cpuTime() - c1
			mainCPU += c1 - c0
			preempted = len(p.Preempted)
		}
		b.ReportMetric(float64(mainCPU.Microseconds())/1000/float64(b.N), "main-cpu-ms/op")
		b.ReportMetric(float64(bfCPU.Microseconds())/1000/float64(b.N), "bf-cpu-ms/op")
		b.ReportMetric(float64(preempted), "preempted")
	})
}

// preemptBenchQueue is BenchmarkPreemptPasses' queue.
func preemptBenchQueue(b *testing.B, s *index.Snapshot, jobs int, cfg Config) *Queue {
	b.Helper()
	cl := job.NewCluster(s)
	cl.Partitions["lo"].PriorityTier, cl.Partitions["hi"].PriorityTier = 1, 2
	q := NewQueue(Options{Cluster: cl, Plugin: constres.New(cl, constres.Config{}), Scheduler: Backfill{}, Config: cfg,
		Preempt: Preemption{Type: PreemptPartitionPrio, Mode: PreemptRequeue, KillWait: DefaultKillWait}})
	r := rand.New(rand.NewPCG(1, 2))
	now := int64(1_000_000)
	id := uint32(0)
	for start := 0; start+16 <= cl.N; start += 16 {
		if r.IntN(10) == 0 {
			continue
		}
		id++
		nodes := roaring.New()
		nodes.AddRange(uint64(start), uint64(start+16))
		j := &Job{ID: id, User: "run", Partitions: []string{"lo"}, Partition: "lo", Start: now - 600, End: now + int64(60+r.IntN(600*60)), Nodes: nodes,
			Request: &job.Request{Partition: "lo", Exclusive: true}}
		if err := q.AddRunning(j); err != nil {
			b.Fatal(err)
		}
	}
	for k := 0; k < jobs; k++ {
		id++
		n := 1 + r.IntN(32)
		part := "lo"
		if r.IntN(10) == 0 {
			part = "hi"
		}
		req := &job.Request{MinNodes: n, NTasks: n * 32, TimeLimit: time.Duration(10+r.IntN(600)) * time.Minute}
		j := &Job{ID: id, User: fmt.Sprintf("u%d", r.IntN(50)), Partitions: []string{part}, Priority: uint32(1 + r.IntN(100000)), TimeLimit: req.TimeLimit, Request: req}
		if err := q.Submit(j, false, now-int64(r.IntN(3600))); err != nil {
			b.Fatal(err)
		}
	}
	return q
}
