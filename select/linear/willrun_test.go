package linear

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/bitset"
	"github.com/nodesift/sift/select/job"
)

// willRunAgrees drives a random cluster through starts, ends, suspensions,
// expansions and resizes of jobs with time limits, and after each step asks
// will-run for random jobs on random candidates at random times: the
// release chain path and willRunPlain must give the same allocation or the
// same error, and the chain's scratch books must be base's again after.
func willRunAgrees(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 23))
	p := willRunScenario(t, r)
	cl := p.cl
	request := func(id uint32) *job.Request {
		k := 1 + r.IntN(max(cl.N/3, 1))
		q := &job.Request{ID: id, MinNodes: k, MaxNodes: k + r.IntN(2), ReqNodes: k, Priority: uint32(r.IntN(12)),
			OverSubscribe: r.IntN(2) == 0, Exclusive: r.IntN(3) == 0, Partition: "p", Contiguous: r.IntN(6) == 0,
			MemPerNode: uint64(250 * r.IntN(5)), MemPerNodeSet: r.IntN(2) == 0, TimeLimit: time.Duration(1+r.IntN(30)) * time.Minute}
		if r.IntN(4) == 0 {
			q.MinNodes, q.MaxNodes, q.ReqNodes, q.NTasks = 0, 0, 0, 1+r.IntN(4*cl.N)
		}
		return q
	}
	now := int64(5000)
	for step := uint32(100); step < 130; step++ {
		now += int64(r.IntN(120))
		live := p.Jobs()
		switch op := r.IntN(10); {
		case op < 6:
			q := request(step)
			if a, err := p.Select(q, cl.Snap.Live(), job.RunNow, now); err == nil {
				if err := p.Begin(q, a); err != nil {
					t.Fatalf("seed %d step %d: begin after select: %v", seed, step, err)
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
		for k := 0; k < 6; k++ {
			q := request(1000 + step)
			cand := bitset.FromRoaring(cl.Snap.Live(), cl.N)
			cand.And(p.usable)
			if r.IntN(3) == 0 {
				cand.Each(func(id uint32) bool {
					if r.IntN(3) == 0 {
						cand.Del(id)
					}
					return true
				})
			}
			if r.IntN(8) == 0 && cand.Count() > 0 {
				ids := cand.IDs(nil)
				q.RequiredSet = roaring.BitmapOf(ids[r.IntN(len(ids))])
			}
			at := now + int64(r.IntN(1500)) - 200
			fast, ferr := p.willRun(q, cand.Clone(), at)
			fast = cloneAlloc(fast)
			plain, perr := p.willRunPlain(q, cand.Clone(), at)
			if (ferr == nil) != (perr == nil) || (ferr != nil && ferr.Error() != perr.Error()) {
				t.Fatalf("seed %d step %d: will-run errors differ: fast %v, plain %v (%+v)", seed, step, ferr, perr, *q)
			}
			if !reflect.DeepEqual(fast, plain) {
				t.Fatalf("seed %d step %d: will-run answers differ at %d:\nfast  %+v\nplain %+v\n(%+v)", seed, step, at, fast, plain, *q)
			}
			if c := p.rel; c != nil && c.base == p.st && c.gen == p.st.gen && (!slices.Equal(c.scratch.mem, p.st.mem) || !slices.Equal(c.scratch.run, p.st.run) ||
				!slices.Equal(c.scratch.tot, p.st.tot) || !slices.Equal(c.scratch.excl, p.st.excl)) {
				t.Fatalf("seed %d step %d: the scratch books did not return to the plugin's", seed, step)
			}
		}
	}
}

// willRunScenario is randomScenario's plugin without preemption, with
// partition p over every live node sharing them half of the time.
func willRunScenario(t *testing.T, r *rand.Rand) *Plugin {
	p, _, _ := randomScenario(t, r)
	p.cfg.Preempt = false
	if r.IntN(2) == 0 {
		p.cl.Partitions["p"] = &job.Partition{Nodes: p.cl.Snap.Live(), OverSubscribe: 1 + r.IntN(3)}
	}
	return p
}

// cloneAlloc copies a so that a later call reusing scratch sets cannot
// change it.
func cloneAlloc(a *job.Allocation) *job.Allocation {
	if a == nil {
		return nil
	}
	c := *a
	c.Nodes = a.Nodes.Clone()
	c.PerNode = slices.Clone(a.PerNode)
	return &c
}

func TestWillRunChainAgreesWithPlain(t *testing.T) {
	for seed := uint64(0); seed < 80; seed++ {
		willRunAgrees(t, seed)
	}
}

func FuzzWillRunChain(f *testing.F) {
	f.Add(uint64(3))
	f.Fuzz(func(t *testing.T, seed uint64) { willRunAgrees(t, seed) })
}

// memoAgrees drives a random cluster as willRunAgrees does and asks
// will-run, through Select and WillRunDense, for a few request shapes on a
// few candidate sets at random times, so that most questions repeat: the
// remembered answers must be those computed afresh (noMemo).
func memoAgrees(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 41))
	p := willRunScenario(t, r)
	cl := p.cl
	var shapes []*job.Request
	for k := 0; k < 4; k++ {
		n := 1 + r.IntN(max(cl.N/3, 1))
		q := &job.Request{MinNodes: n, MaxNodes: n + r.IntN(2), ReqNodes: n, OverSubscribe: r.IntN(2) == 0, Exclusive: r.IntN(3) == 0,
			Partition: "p", Contiguous: r.IntN(6) == 0, MemPerNode: uint64(250 * r.IntN(5)), MemPerNodeSet: r.IntN(2) == 0,
			TimeLimit: time.Duration(1+r.IntN(30)) * time.Minute}
		if r.IntN(4) == 0 {
			q.MinNodes, q.MaxNodes, q.ReqNodes, q.NTasks = 0, 0, 0, 1+r.IntN(4*cl.N)
		}
		if r.IntN(8) == 0 {
			q.RequiredSet = roaring.BitmapOf(uint32(r.IntN(cl.N)))
		}
		shapes = append(shapes, q)
	}
	var cands []*roaring.Bitmap
	for k := 0; k < 3; k++ {
		c := cl.Snap.Live().Clone()
		for id := range cl.N {
			if k > 0 && r.IntN(3) == 0 {
				c.Remove(uint32(id))
			}
		}
		cands = append(cands, c)
	}
	now := int64(5000)
	for step := uint32(100); step < 120; step++ {
		now += int64(r.IntN(120))
		live := p.Jobs()
		if op := r.IntN(4); op < 2 {
			q := &job.Request{ID: step, MinNodes: 1 + r.IntN(3), Exclusive: r.IntN(2) == 0, Partition: "p",
				TimeLimit: time.Duration(1+r.IntN(30)) * time.Minute}
			if a, err := p.Select(q, cl.Snap.Live(), job.RunNow, now); err == nil {
				if err := p.Begin(q, a); err != nil {
					t.Fatalf("seed %d step %d: begin after select: %v", seed, step, err)
				}
			}
		} else if op == 2 && len(live) > 0 {
			_ = p.Fini(live[r.IntN(len(live))])
		}
		for k := 0; k < 12; k++ {
			q := *shapes[r.IntN(len(shapes))]
			q.ID = 1000 + step
			cand := cands[r.IntN(len(cands))]
			at := now + int64(r.IntN(1500)) - 200
			got, gerr := p.Select(&q, cand.Clone(), job.Plan, at)
			got = cloneAlloc(got)
			start, nodes, derr := p.WillRunDense(&q, bitset.FromRoaring(cand, cl.N), at)
			noMemo = true
			want, werr := p.Select(&q, cand.Clone(), job.Plan, at)
			noMemo = false
			if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) || (derr == nil) != (werr == nil) {
				t.Fatalf("seed %d step %d: errors differ: memo %v, dense %v, fresh %v (%+v)", seed, step, gerr, derr, werr, q)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d: answers differ at %d:\nmemo  %+v\nfresh %+v\n(%+v)", seed, step, at, got, want, q)
			}
			if want != nil && (start != want.Start || !nodes.Equal(bitset.FromRoaring(want.Nodes, cl.N))) {
				t.Fatalf("seed %d step %d: dense answer %d %v, Select's %d %v", seed, step, start, nodes.IDs(nil), want.Start, want.Nodes.ToArray())
			}
		}
	}
}

func TestWillRunMemoAgreesWithFresh(t *testing.T) {
	for seed := uint64(0); seed < 80; seed++ {
		memoAgrees(t, seed)
	}
}

// TestWillRunMemoKeyCoversTheRequest fails when job.Request gains a field:
// it must then join memoKey if will-run reads it, else the ignored list.
func TestWillRunMemoKeyCoversTheRequest(t *testing.T) {
	keyed := []string{"MinNodes", "MaxNodes", "ReqNodes", "NTasks", "CPUsPerTask", "NTasksPerNode", "ThreadsPerCore", "MinCPUsTotal",
		"MemPerNode", "MemPerCPU", "MemPerNodeSet", "GPUsPerNode", "GPUsPerJob", "GPUType", "Contiguous", "Exclusive", "OverSubscribe", "Partition"}
	// Not read by will-run without preemption, or (node lists, excluded
	// nodes, ntasks-per-core, named preemptees) never remembered.
	ignored := []string{"ID", "NTasksPerCore", "NTasksPerSocket", "SocketsPerNode", "CoresPerSocket", "MinCPUsPerNode", "Required", "Excluded",
		"RequiredSet", "ExcludedSet", "TimeLimit", "Priority", "Preemptable", "PreemptCandidates", "PreemptSuspend", "Constraints", "Distribution", "CoreDistSet", "PlaneSize"}
	known := map[string]bool{}
	for _, f := range append(keyed, ignored...) {
		known[f] = true
	}
	rt := reflect.TypeFor[job.Request]()
	for i := range rt.NumField() {
		if f := rt.Field(i).Name; !known[f] {
			t.Errorf("job.Request.%s is neither in memoKey nor ignored", f)
		}
	}
	if len(known) != rt.NumField() {
		t.Errorf("the lists name %d fields, job.Request has %d", len(known), rt.NumField())
	}
}
