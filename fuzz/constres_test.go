package fuzz

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/constres"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/vm"
)

// bruteForceTasks reports whether some subset of nodes, each with at least
// one free core, has between lo and hi members and free cores for tasks
// one-core tasks: it tries every subset.
func bruteForceTasks(free []int, lo, hi, tasks int) bool {
	n := len(free)
	for s := uint32(0); s < 1<<n; s++ {
		c := bits.OnesCount32(s)
		if c < lo || c > hi {
			continue
		}
		sum, ok := 0, true
		for i := range n {
			if s&(1<<i) != 0 {
				ok = ok && free[i] > 0
				sum += free[i]
			}
		}
		if ok && sum >= tasks {
			return true
		}
	}
	return false
}

// FuzzSelectConsTresVsBruteForce places a job of one-core tasks with
// select/cons_tres on a cluster of at most 12 single-socket nodes (random
// core counts and states, some cores taken by running jobs, candidates from
// a random constraint on the VM) and checks it against a brute-force search
// over node subsets. The check is one-sided: Slurm's consecutive walk is a
// heuristic that can miss a fitting subset (it fills nodes in id order and
// skips a last node too small for what remains), so cons_tres may refuse a
// job the search can place; but it must never place one the search cannot,
// and what it places must fit (node count, free cores, enough of them).
func FuzzSelectConsTresVsBruteForce(f *testing.F) {
	f.Add(uint64(1), uint8(8), uint8(2), uint8(0), uint8(5))
	f.Add(uint64(2), uint8(12), uint8(4), uint8(2), uint8(20))
	f.Add(uint64(3), uint8(3), uint8(3), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, size, minNodes, extra, tasks uint8) {
		r := rand.New(rand.NewPCG(seed, 13))
		n := 1 + int(size)%12
		nodes := GenNodes(r, n)
		for i := range nodes {
			cores := 1 + r.IntN(4)
			nodes[i].Sockets, nodes[i].CoresPerSocket, nodes[i].ThreadsPerCore, nodes[i].CPUs = 1, cores, 1, cores
			nodes[i].MemoryMB = 1000
			nodes[i].State = []string{"", "", "", "idle", "down", "drain"}[r.IntN(6)]
		}
		snap, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		cand := snap.Live()
		if r.IntN(3) > 0 {
			prog, err := compiler.CompileAST(GenSlurmExpr(r, nodes), nil)
			if err != nil {
				t.Fatal(err)
			}
			cand = vm.Run(prog, snap)
		}
		cl := job.NewCluster(snap)
		p := constres.New(cl, constres.Config{})
		used := make([]int, n)
		cl.Usable.Iterate(func(id uint32) bool {
			if r.IntN(3) == 0 {
				req := &job.Request{ID: id + 1, NTasks: 1 + r.IntN(cl.CPUs[id]), MinNodes: 1, MaxNodes: 1}
				a, err := p.Select(req, roaring.BitmapOf(id), job.RunNow, 0)
				if err != nil {
					t.Fatalf("%d-task job on idle usable node %d (%d cores): %v", req.NTasks, id, cl.CPUs[id], err)
				}
				if err := p.Begin(req, a); err != nil {
					t.Fatal(err)
				}
				for _, na := range a.PerNode {
					used[na.ID] += na.CPUs
				}
			}
			return true
		})
		free := make([]int, n)
		for id := range n {
			if cand.Contains(uint32(id)) && cl.Usable.Contains(uint32(id)) {
				free[id] = cl.CPUs[id] - used[id]
			}
		}
		lo := 1 + int(minNodes)%n
		hi := lo + int(extra)%3
		nt := lo + int(tasks)%12
		req := &job.Request{ID: 1 << 20, MinNodes: lo, MaxNodes: hi, ReqNodes: hi, NTasks: nt}
		want := bruteForceTasks(free, lo, hi, nt)
		a, err := p.Select(req, cand.Clone(), job.RunNow, 0)
		var unsat *job.Unsatisfied
		if err != nil && !errors.As(err, &unsat) {
			t.Fatalf("Select: %v", err)
		}
		if err != nil {
			return
		}
		if !want {
			t.Fatalf("free cores %v, job %d-%d nodes, %d tasks: cons_tres placed it, brute force finds no fit", free, lo, hi, nt)
		}
		total := 0
		for _, na := range a.PerNode {
			if int(na.ID) >= n || na.CPUs < 1 || na.CPUs > free[na.ID] {
				t.Fatalf("free cores %v, job %d-%d nodes, %d tasks: %d CPUs on node %d", free, lo, hi, nt, na.CPUs, na.ID)
			}
			total += na.CPUs
		}
		if c := int(a.Nodes.GetCardinality()); c < lo || c > hi || c != len(a.PerNode) || total < nt {
			t.Fatalf("free cores %v, job %d-%d nodes, %d tasks: %d nodes, %d CPUs", free, lo, hi, nt, c, total)
		}
	})
}

func TestBruteForceTasks(t *testing.T) {
	for _, tc := range []struct {
		free          []int
		lo, hi, tasks int
		want          bool
	}{
		{[]int{2, 1, 3, 1, 1, 0, 0, 4, 1}, 3, 3, 8, true},
		{[]int{2, 1, 3}, 3, 3, 7, false},
		{[]int{0, 5}, 2, 2, 2, false},
		{[]int{4}, 1, 1, 4, true},
	} {
		if got := bruteForceTasks(tc.free, tc.lo, tc.hi, tc.tasks); got != tc.want {
			t.Errorf("bruteForceTasks(%v, %d, %d, %d) = %v", tc.free, tc.lo, tc.hi, tc.tasks, got)
		}
	}
}
