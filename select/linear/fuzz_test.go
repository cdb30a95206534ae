package linear

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nodesift/sift/select/job"
)

// checkInvariants fails if the per-node books disagree with the jobs, or a
// node is over-allocated: memory beyond the node's, or an exclusive job
// sharing its node with another running job.
func checkInvariants(t *testing.T, p *Plugin) {
	t.Helper()
	n := p.cl.N
	mem, run, tot, excl := make([]uint64, n), make([]int32, n), make([]int32, n), make([]int32, n)
	for _, j := range p.st.jobs {
		for i, id := range j.nodes {
			mem[id] += j.mem[i]
			tot[id]++
			if !j.suspended {
				run[id]++
				if j.exclusive {
					excl[id]++
				}
			}
		}
	}
	if !slices.Equal(mem, p.st.mem) || !slices.Equal(run, p.st.run) || !slices.Equal(tot, p.st.tot) || !slices.Equal(excl, p.st.excl) {
		t.Fatal("per-node books disagree with the jobs")
	}
	for id := 0; id < n; id++ {
		if p.cfg.TrackMemory && mem[id] > p.cl.MemoryMB[id] {
			t.Fatalf("node %d: %d MB of %d", id, mem[id], p.cl.MemoryMB[id])
		}
		if excl[id] > 1 || (excl[id] == 1 && run[id] > 1) {
			t.Fatalf("node %d: exclusive job shares the node (%d running)", id, run[id])
		}
		clean := mem[id] == 0 && run[id] == 0 && tot[id] == 0
		if clean != p.st.clean.Has(uint32(id)) && p.live.Has(uint32(id)) {
			t.Fatalf("node %d: clean bit wrong", id)
		}
		if (excl[id] != 0) != p.st.held.Has(uint32(id)) {
			t.Fatalf("node %d: held bit wrong", id)
		}
	}
}

func lifecycle(t *testing.T, s1, s2 uint64) {
	r := rand.New(rand.NewPCG(s1, s2))
	p, _, _ := randomScenario(t, r)
	cl := p.cl
	if r.IntN(2) == 0 {
		cl.Partitions["p"] = &job.Partition{Nodes: cl.Snap.Live(), OverSubscribe: 1 + r.IntN(3)}
	}
	checkInvariants(t, p)
	now := int64(5000)
	for step := uint32(100); step < 140; step++ {
		now += int64(r.IntN(50))
		live := p.Jobs()
		switch op := r.IntN(10); {
		case op < 5:
			k := 1 + r.IntN(4)
			q := &job.Request{ID: step, MinNodes: k, MaxNodes: k + r.IntN(2), ReqNodes: k, Priority: uint32(r.IntN(12)),
				Preemptable: r.IntN(2) == 0, OverSubscribe: r.IntN(2) == 0, Partition: "p", Contiguous: r.IntN(6) == 0,
				MemPerNode: uint64(250 * r.IntN(5)), MemPerNodeSet: r.IntN(2) == 0, TimeLimit: 0}
			a, err := p.Select(q, cl.Snap.Live(), job.RunNow, now)
			w, werr := p.Select(q, cl.Snap.Live(), job.WillRun, now)
			if !p.cfg.Preempt {
				if err == nil && (werr != nil || w.Start != now) {
					t.Fatalf("step %d: run-now fits, will-run says %v %v", step, w, werr)
				}
				if err != nil && werr == nil && w.Start <= now {
					t.Fatalf("step %d: will-run promises now, run-now fails: %v", step, err)
				}
			}
			if err != nil {
				continue
			}
			before := p.st.dup()
			if err := p.Begin(q, a); err != nil {
				t.Fatalf("step %d: begin after select: %v", step, err)
			}
			checkInvariants(t, p)
			if len(a.Preempted) == 0 && r.IntN(3) == 0 {
				if err := p.Fini(q.ID); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(before.mem, p.st.mem) || !slices.Equal(before.run, p.st.run) || !slices.Equal(before.tot, p.st.tot) ||
					!slices.Equal(before.excl, p.st.excl) || !slices.Equal(before.clean, p.st.clean) {
					t.Fatalf("step %d: fini did not restore the state before begin", step)
				}
			}
		case op < 7 && len(live) > 0:
			_ = p.Fini(live[r.IntN(len(live))])
		case op < 8 && len(live) > 0:
			id := live[r.IntN(len(live))]
			if p.Suspend(id) == nil && r.IntN(2) == 0 {
				_ = p.Resume(id)
			}
		case op < 9 && len(live) > 1:
			_ = p.Expand(live[r.IntN(len(live))], live[r.IntN(len(live))])
		case len(live) > 0:
			id := live[r.IntN(len(live))]
			j := p.st.jobs[id]
			_ = p.Resize(id, j.nodes[r.IntN(len(j.nodes))])
		}
		checkInvariants(t, p)
	}
	q := New(cl, p.cfg)
	if err := q.RestoreState(p.MarshalState()); err != nil {
		t.Fatalf("restore of a consistent state: %v", err)
	}
	if !slices.Equal(q.st.mem, p.st.mem) || !slices.Equal(q.st.run, p.st.run) || !slices.Equal(q.st.clean, p.st.clean) {
		t.Fatal("restored state differs")
	}
}

func TestRandomLifecyclesKeepInvariants(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		lifecycle(t, seed, 5)
	}
}

func FuzzLifecycle(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) { lifecycle(t, a, b) })
}
