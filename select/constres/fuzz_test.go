package constres

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// checkInvariants fails if any node, core, GPU or megabyte is allocated
// beyond what the node has or the partition's rows allow.
func checkInvariants(t *testing.T, p *Plugin) {
	t.Helper()
	mem := make([]uint64, p.cl.N)
	holders := map[int][]*record{}
	for _, j := range p.st.jobs {
		for i, id := range j.nodes {
			mem[id] += j.mem[i]
			if !j.suspended {
				for _, c := range j.cores[i] {
					holders[p.coreOff[id]+c] = append(holders[p.coreOff[id]+c], j)
				}
			}
		}
	}
	for id := 0; id < p.cl.N; id++ {
		if mem[id] != p.st.mem[id] {
			t.Fatalf("node %d: memory book %d, jobs hold %d", id, p.st.mem[id], mem[id])
		}
		if p.cfg.TrackMemory && mem[id] > p.cl.MemoryMB[id] {
			t.Fatalf("node %d: %d MB allocated of %d", id, mem[id], p.cl.MemoryMB[id])
		}
		for k, g := range p.st.gpus[id] {
			if g < 0 || g > int(p.cl.GPUs[id][k].Count) {
				t.Fatalf("node %d: %d GPUs allocated of %d", id, g, p.cl.GPUs[id][k].Count)
			}
		}
	}
	nreq, cnt, share := make([]int32, p.cl.N), make([]int32, p.cl.N), make([]int32, p.cl.N)
	for _, j := range p.st.jobs {
		if j.suspended {
			continue
		}
		for _, id := range j.nodes {
			nreq[id] += j.nodeReq
			cnt[id]++
			if j.nodeReq == crAvailable {
				share[id]++
			}
		}
	}
	for id := 0; id < p.cl.N; id++ {
		if nreq[id] != p.st.nodeReq[id] || cnt[id] != p.st.jobCnt[id] || share[id] != p.st.shareCnt[id] {
			t.Fatalf("node %d: state books disagree with the jobs", id)
		}
		if nreq[id] >= crReserved && cnt[id] > 1 {
			t.Fatalf("node %d: an exclusive job shares the node", id)
		}
		if nreq[id] >= crOneRow && nreq[id] < crReserved && p.sharesElsewhere(p.st, uint32(id), "p") {
			t.Fatalf("node %d: a non-sharing job runs beside sharing jobs of another partition", id)
		}
	}
	for core, js := range holders {
		if len(js) == 1 {
			continue
		}
		for _, j := range js {
			if j.nodeReq != crAvailable {
				t.Fatalf("core %d: job %d does not share but %d jobs hold it", core, j.id, len(js))
			}
		}
		perPart := map[string]int{}
		for _, j := range js {
			perPart[j.partition]++
			if perPart[j.partition] > p.numRows(j.partition) {
				t.Fatalf("core %d held by %d jobs of partition %q", core, perPart[j.partition], j.partition)
			}
		}
	}
}

func randomCluster(t testing.TB, r *rand.Rand) *job.Cluster {
	n := 1 + r.IntN(24)
	nodes := make([]index.Node, n)
	for i := range nodes {
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), Sockets: 1 + r.IntN(2), CoresPerSocket: 1 + r.IntN(4), ThreadsPerCore: 1 + r.IntN(2),
			MemoryMB: uint64(500 * (1 + r.IntN(4))), Weight: uint32(r.IntN(3)), Partitions: []string{"p"}}
		if r.IntN(3) == 0 {
			nodes[i].Gres = []index.Gres{{Name: "gpu", Type: "a100", Count: uint64(1 + r.IntN(4))}}
		}
		if r.IntN(15) == 0 {
			nodes[i].State = "drain"
		}
	}
	cl := clusterOf(t, nodes)
	cl.Partitions["p"].OverSubscribe = 1 + r.IntN(3)
	return cl
}

// clusterOf is the cluster of nodes.
func clusterOf(t testing.TB, nodes []index.Node) *job.Cluster {
	t.Helper()
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	return job.NewCluster(s)
}

func randomRequest(r *rand.Rand, id uint32, n int) *job.Request {
	q := &job.Request{ID: id, Partition: "p", Priority: uint32(r.IntN(10)), Preemptable: r.IntN(2) == 0,
		OverSubscribe: r.IntN(2) == 0, Exclusive: r.IntN(6) == 0, Contiguous: r.IntN(8) == 0,
		TimeLimit: 0, Distribution: job.Distribution(r.IntN(2))}
	if r.IntN(2) == 0 {
		k := 1 + r.IntN(min(n, 4))
		q.MinNodes, q.MaxNodes, q.ReqNodes = k, k+r.IntN(2), k+r.IntN(2)
		q.ReqNodes = min(q.ReqNodes, q.MaxNodes)
	}
	if r.IntN(2) == 0 {
		q.NTasks = 1 + r.IntN(12)
	}
	switch r.IntN(4) {
	case 0:
		q.MemPerCPU = uint64(50 * r.IntN(6))
	case 1:
		q.MemPerNode, q.MemPerNodeSet = uint64(100*r.IntN(8)), true
	}
	switch r.IntN(4) {
	case 0:
		q.GPUsPerNode = 1 + r.IntN(2)
	case 1:
		q.GPUsPerJob = 1 + r.IntN(3)
	}
	if r.IntN(4) == 0 {
		q.CPUsPerTask = 1 + r.IntN(2)
	}
	// Multi-core options, one draw so that other requests keep their
	// shapes.
	switch r.IntN(12) {
	case 0:
		q.NTasksPerCore = 1 + r.IntN(2)
	case 1:
		q.NTasksPerSocket = 1 + r.IntN(3)
	case 2:
		q.CoresPerSocket = 1 + r.IntN(3)
	case 3:
		q.SocketsPerNode = 1 + r.IntN(2)
	case 4:
		q.ThreadsPerCore = 1 + r.IntN(2)
	}
	return q
}

func lifecycle(t *testing.T, seed1, seed2 uint64) {
	r := rand.New(rand.NewPCG(seed1, seed2))
	cl := randomCluster(t, r)
	p := New(cl, Config{TrackMemory: r.IntN(4) != 0, DefMemPerCPU: uint64(100 * r.IntN(2)), Preempt: r.IntN(2) == 0,
		PreemptMode: job.PreemptMode(r.IntN(3))})
	var live []uint32
	now := int64(1000)
	for step := uint32(1); step < 40; step++ {
		now += int64(r.IntN(100))
		switch op := r.IntN(10); {
		case op < 5:
			q := randomRequest(r, step, cl.N)
			a, err := p.Select(q, cl.Snap.Live(), job.RunNow, now)
			w, werr := p.Select(q, cl.Snap.Live(), job.WillRun, now)
			// Without preemption the first will-run test is run-now's, so a
			// job that fits now starts now; one that does not never gets a
			// start of now.
			c := bitset.FromRoaring(cl.Snap.Live(), cl.N)
			c.And(p.usable)
			_, _, plain := p.fit(p.st, q, c)
			// As in Slurm, a multi-core job can pass _can_job_run_on_node's
			// memory test for the CPUs ntasks-per-socket or
			// threads-per-core leave usable and still lack memory for the
			// whole cores _job_test charges; it then waits (or, when the
			// greedy test 0 on every node fails, is never runnable).
			if plain && !q.MultiCore() && (err != nil || werr != nil || w.Start != now) {
				t.Fatalf("step %d: the job fits now but run-now says %v, will-run %v %v (%+v)", step, err, w, werr, *q)
			}
			if !plain && !p.cfg.Preempt && (err == nil || werr == nil && w.Start <= now) {
				t.Fatalf("step %d: the job does not fit now but run-now says %v, will-run %v", step, err, w)
			}
			if err != nil {
				continue
			}
			before := p.st.dup()
			if err := p.Begin(q, a); err != nil {
				t.Fatalf("step %d: begin after select: %v", step, err)
			}
			checkInvariants(t, p)
			if len(a.Preempted) == 0 && r.IntN(4) == 0 {
				if err := p.Fini(q.ID); err != nil {
					t.Fatal(err)
				}
				if !sameUsage(before, p.st) {
					t.Fatalf("step %d: fini did not restore the state before begin", step)
				}
				continue
			}
		case op < 7 && len(live) > 0:
			id := live[r.IntN(len(live))]
			_ = p.Fini(id)
		case op < 8 && len(live) > 0:
			id := live[r.IntN(len(live))]
			if p.Suspend(id) == nil && r.IntN(2) == 0 {
				_ = p.Resume(id)
			}
		case op < 9 && len(live) > 1:
			_ = p.Expand(live[r.IntN(len(live))], live[r.IntN(len(live))])
		case len(live) > 0:
			id := live[r.IntN(len(live))]
			if j := p.st.jobs[id]; j != nil {
				_ = p.Resize(id, j.nodes[r.IntN(len(j.nodes))])
			}
		}
		live = p.Jobs()
		checkInvariants(t, p)
	}
	q := New(cl, p.cfg)
	if err := q.RestoreState(p.MarshalState()); err != nil {
		t.Fatalf("restore of a consistent state: %v", err)
	}
	if !sameUsage(p.st, q.st) {
		t.Fatal("restored usage differs")
	}
}

func sameUsage(a, b *state) bool {
	if !slices.Equal(a.mem, b.mem) || !slices.Equal(a.nodeReq, b.nodeReq) || !slices.Equal(a.jobCnt, b.jobCnt) || !slices.Equal(a.shareCnt, b.shareCnt) {
		return false
	}
	for i := range a.gpus {
		if !slices.Equal(nz(a.gpus[i]), nz(b.gpus[i])) {
			return false
		}
	}
	used := func(s *state) map[string]int {
		m := map[string]int{}
		for name, pr := range s.parts {
			for _, row := range pr.rows {
				m[name] += row.Count()
			}
		}
		return m
	}
	ua, ub := used(a), used(b)
	for k := range ua {
		if ua[k] != ub[k] {
			return false
		}
	}
	for k := range ub {
		if ua[k] != ub[k] {
			return false
		}
	}
	return true
}

// nz treats a nil GPU book as all zeros.
func nz(g []int) []int {
	out := []int{}
	for _, v := range g {
		if v != 0 {
			return g
		}
	}
	return out
}

func TestRandomLifecyclesKeepInvariants(t *testing.T) {
	for seed := uint64(0); seed < 400; seed++ {
		lifecycle(t, seed, 1)
	}
}

func FuzzLifecycle(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(42), uint64(7))
	f.Fuzz(func(t *testing.T, a, b uint64) { lifecycle(t, a, b) })
}
