package constres

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/job"
)

type nodeSpec struct {
	cpus                    int // 0: sockets x cores x threads
	sockets, cores, threads int
	mem                     uint64
	gpus                    uint64
	weight                  uint32
}

func testCluster(t testing.TB, specs ...nodeSpec) *job.Cluster {
	t.Helper()
	nodes := make([]index.Node, len(specs))
	for i, s := range specs {
		nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), CPUs: s.cpus, Sockets: s.sockets, CoresPerSocket: s.cores, ThreadsPerCore: s.threads,
			MemoryMB: s.mem, Weight: s.weight, Partitions: []string{"p"}}
		if s.gpus > 0 {
			nodes[i].Gres = []index.Gres{{Name: "gpu", Type: "a100", Count: s.gpus}}
		}
	}
	snap, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	return job.NewCluster(snap)
}

func bmOf(xs ...uint32) *roaring.Bitmap { return roaring.BitmapOf(xs...) }

func same(n int, s nodeSpec) []nodeSpec { return slices.Repeat([]nodeSpec{s}, n) }

var small = nodeSpec{sockets: 1, cores: 4, threads: 1, mem: 1000}

func spec(t testing.TB, cl *job.Cluster, s string) *job.Request {
	t.Helper()
	r, err := job.ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Resolve(cl); err != nil {
		t.Fatal(err)
	}
	return r
}

func cfg() Config { return Config{TrackMemory: true, DefMemPerCPU: 100} }

func run(t *testing.T, p *Plugin, s string, cand *roaring.Bitmap) *job.Allocation {
	t.Helper()
	r := spec(t, p.cl, s)
	if cand == nil {
		cand = p.cl.Snap.Live()
	}
	a, err := p.Select(r, cand, job.RunNow, 0)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	if err := p.Begin(r, a); err != nil {
		t.Fatalf("%s: begin: %v", s, err)
	}
	return a
}

func TestNodeChoice(t *testing.T) {
	w := func(ws ...uint32) []nodeSpec {
		var out []nodeSpec
		for _, x := range ws {
			s := small
			s.weight = x
			out = append(out, s)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		nodes []nodeSpec
		spec  string
		cand  []uint32
		want  []uint32
	}{
		{"§2.4 single-node job: first fitting node of lowest weight", w(5, 1, 1), "ntasks=2", nil, []uint32{1}},
		{"§2.4 single-node job: lowest index among equal weights, no tightest fit", w(1, 1, 1), "nodes=1", nil, []uint32{0}},
		{"§2.4 lower weight run beats a tighter run", w(1, 1, 1, 1, 0, 0), "nodes=2", nil, []uint32{4, 5}},
		{"§2.4 lighter run first, then the rest", w(1, 1, 1, 1, 0, 0), "nodes=3", nil, []uint32{0, 4, 5}},
		{"§2.4 tightest sufficient run at equal weight", w(0, 0, 0, 0, 0, 0), "nodes=2", []uint32{0, 1, 2, 4, 5}, []uint32{4, 5}},
		{"§2.4 largest run when none suffices", w(0, 0, 0, 0, 0, 0, 0), "nodes=4", []uint32{0, 1, 3, 4, 5}, []uint32{0, 3, 4, 5}},
		{"§2.4 required node first, walk up then down", w(0, 0, 0, 0, 0, 0), "nodes=3,nodelist=n4", nil, []uint32{3, 4, 5}},
		{"§2.4 CPUs spread: tasks fill nodes in index order", w(0, 0, 0, 0), "ntasks=6", nil, []uint32{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := testCluster(t, tc.nodes...)
			p := New(cl, cfg())
			var cand *roaring.Bitmap
			if tc.cand != nil {
				cand = roaring.BitmapOf(tc.cand...)
			}
			a := run(t, p, tc.spec, cand)
			if got := a.Nodes.ToArray(); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSharedRows(t *testing.T) {
	cl := testCluster(t, same(2, small)...)
	cl.Partitions["p"].OverSubscribe = 2
	p := New(cl, cfg())
	sh := "partition=p,oversubscribe,nodes=1,ntasks=4"
	if a := run(t, p, "id=1,"+sh, nil); a.Nodes.ToArray()[0] != 0 {
		t.Fatal("§2.3 test 1: first job on node 0")
	}
	if a := run(t, p, "id=2,"+sh, nil); a.Nodes.ToArray()[0] != 1 {
		t.Fatal("§2.3 test 1: free cores of node 1 come before a second row")
	}
	if a := run(t, p, "id=3,"+sh, nil); a.Nodes.ToArray()[0] != 0 {
		t.Fatal("§2.3 test 4: second row on node 0")
	}
	if a := run(t, p, "id=4,"+sh, nil); a.Nodes.ToArray()[0] != 1 {
		t.Fatal("§2.3 test 4: second row on node 1")
	}
	if _, err := p.Select(spec(t, cl, "id=5,"+sh), cl.Snap.Live(), job.RunNow, 0); !errors.Is(err, job.ErrBusy) {
		t.Fatalf("§2.1 cores shared by at most OverSubscribe jobs: %v", err)
	}
	if _, err := p.Select(spec(t, cl, "id=6,partition=p,nodes=1,ntasks=1"), cl.Snap.Live(), job.RunNow, 0); !errors.Is(err, job.ErrBusy) {
		t.Fatalf("§2.3 test 1: a one-row job needs cores free in every row: %v", err)
	}
	if err := p.Fini(3); err != nil {
		t.Fatal(err)
	}
	if err := p.Fini(1); err != nil {
		t.Fatal(err)
	}
	if a := run(t, p, "id=7,exclusive,nodes=1,partition=p", nil); a.Nodes.ToArray()[0] != 0 || a.TotalCPUs != 4 {
		t.Fatalf("§2.8 exclusive job gets a whole idle node: %v", a)
	}
}

func TestExclusiveNeedsIdleNodes(t *testing.T) {
	cl := testCluster(t, same(2, small)...)
	p := New(cl, cfg())
	run(t, p, "id=1,ntasks=1,mem=100", nil)
	a := run(t, p, "id=2,exclusive,nodes=1", nil)
	if a.Nodes.ToArray()[0] != 1 || a.TotalCPUs != 4 || a.PerNode[0].MemoryMB != 400 {
		t.Fatalf("§2.3 step 0: exclusive job on the idle node with all cores: %+v", a.PerNode)
	}
}

func TestMemoryPerCPUShrinks(t *testing.T) {
	n := nodeSpec{sockets: 1, cores: 8, threads: 1, mem: 1000}
	cl := testCluster(t, same(2, n)...)
	p := New(cl, cfg())
	if _, err := p.Select(spec(t, cl, "ntasks=8,nodes=1,mem-per-cpu=200"), cl.Snap.Live(), job.RunNow, 0); err == nil {
		t.Fatal("§2.4 memory feeds only 5 CPUs of a node")
	}
	a := run(t, p, "id=1,ntasks=8,nodes=2,mem-per-cpu=200", nil)
	if a.PerNode[0].CPUs != 5 || a.PerNode[1].CPUs != 3 || a.PerNode[0].MemoryMB != 1000 || a.PerNode[1].MemoryMB != 600 {
		t.Fatalf("§2.4 shrink to what memory feeds: %+v", a.PerNode)
	}
	if _, err := p.Select(spec(t, cl, "ntasks=1,mem=500"), cl.Snap.Live(), job.RunNow, 0); !errors.Is(err, job.ErrBusy) {
		t.Fatalf("§2.3 per-node memory larger than what is free: %v", err)
	}
}

func TestGPUChecks(t *testing.T) {
	g1 := small
	g1.gpus = 1
	g4 := small
	g4.gpus = 4
	cl := testCluster(t, g1, g4, g4)
	p := New(cl, cfg())
	a := run(t, p, "id=1,nodes=1,gpus-per-node=a100:2", nil)
	if a.Nodes.ToArray()[0] != 1 || a.PerNode[0].GPUs != 2 {
		t.Fatalf("§2.5 first node with enough GPUs: %+v", a.PerNode)
	}
	a = run(t, p, "id=2,nodes=1,gpus-per-node=3", nil)
	if a.Nodes.ToArray()[0] != 2 {
		t.Fatalf("§2.5 allocated GPUs are not free: %v", a.Nodes.ToArray())
	}
	if _, err := p.Select(spec(t, cl, "id=3,nodes=1,gpus-per-node=3"), cl.Snap.Live(), job.RunNow, 0); !errors.Is(err, job.ErrBusy) {
		t.Fatalf("§2.5 busy: %v", err)
	}
	if _, err := p.Select(spec(t, cl, "id=4,nodes=1,gpus-per-node=5"), cl.Snap.Live(), job.RunNow, 0); !errors.Is(err, job.ErrNever) {
		t.Fatalf("§2.5 never: %v", err)
	}
	a = run(t, p, "id=5,nodes=2,gpus=3", nil)
	total := 0
	for _, n := range a.PerNode {
		total += n.GPUs
	}
	if total != 3 {
		t.Fatalf("§2.4 per-job GPUs: %+v", a.PerNode)
	}
}

func TestCoreDistribution(t *testing.T) {
	n := nodeSpec{sockets: 2, cores: 4, threads: 1, mem: 1000}
	for _, tc := range []struct {
		dist string
		want []int
	}{{"block:block", []int{0, 1, 2}}, {"cyclic:cyclic", []int{0, 1, 4}}, {"block", []int{0, 1, 4}}, {"plane=2", []int{0, 1, 2}}} {
		cl := testCluster(t, n)
		p := New(cl, cfg())
		a := run(t, p, "id=1,ntasks=3,distribution="+tc.dist, nil)
		if !slices.Equal(a.PerNode[0].Cores, tc.want) {
			t.Errorf("§2.6 %s: cores %v, want %v", tc.dist, a.PerNode[0].Cores, tc.want)
		}
	}
	cl := testCluster(t, nodeSpec{sockets: 1, cores: 4, threads: 2, mem: 1000})
	p := New(cl, cfg())
	if a := run(t, p, "id=1,ntasks=3", nil); a.PerNode[0].CPUs != 4 || len(a.PerNode[0].Cores) != 2 {
		t.Errorf("§2.1 whole cores with two threads: %+v", a.PerNode[0])
	}
}

// beginExclusive starts jobs 1, 2, ... at time 0 on one whole node each,
// with these time limits (minutes).
func beginExclusive(t *testing.T, p *Plugin, cl *job.Cluster, limits ...string) {
	t.Helper()
	for i, limit := range limits {
		r := spec(t, cl, fmt.Sprintf("id=%d,nodes=1,exclusive,time=%s", i+1, limit))
		a, err := p.Select(r, cl.Snap.Live(), job.RunNow, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Begin(r, a); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWillRunUsesEndTimes(t *testing.T) {
	cl := testCluster(t, same(3, small)...)
	p := New(cl, cfg())
	beginExclusive(t, p, cl, "10", "20", "5")
	a, err := p.Select(spec(t, cl, "id=9,nodes=2,exclusive"), cl.Snap.Live(), job.WillRun, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Start != 600 {
		t.Errorf("§2.7 start when the two earliest jobs have ended: %d", a.Start)
	}
}

func TestLifecycleRestores(t *testing.T) {
	g := small
	g.gpus = 2
	cl := testCluster(t, same(3, g)...)
	p := New(cl, cfg())
	before := p.st.dup()
	run(t, p, "id=1,nodes=2,ntasks=4,gpus-per-node=1", nil)
	run(t, p, "id=2,nodes=1,ntasks=2", nil)
	if err := p.Suspend(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Resume(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Expand(2, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Resize(1, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.Fini(1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before.mem, p.st.mem) || !slices.Equal(before.nodeReq, p.st.nodeReq) || !slices.Equal(before.jobCnt, p.st.jobCnt) {
		t.Fatal("fini did not restore the node usage")
	}
	for _, pr := range p.st.parts {
		for _, row := range pr.rows {
			if row.Count() != 0 {
				t.Fatal("cores left in a row")
			}
		}
	}
	for id, g := range p.st.gpus {
		for _, c := range g {
			if c != 0 {
				t.Fatalf("node %d keeps GPUs", id)
			}
		}
	}
}

func TestBeginRefusesDoubleAllocation(t *testing.T) {
	cl := testCluster(t, small)
	p := New(cl, cfg())
	a := run(t, p, "id=1,ntasks=4", nil)
	if err := p.Begin(spec(t, cl, "id=2,ntasks=4"), a); err == nil {
		t.Fatal("the same cores were allocated twice")
	}
}

func TestMoreFreeGPUsFirstAtEqualWeight(t *testing.T) {
	g1, g2, g4 := small, small, small
	g1.gpus, g2.gpus, g4.gpus = 1, 2, 4
	cl := testCluster(t, g1, g4, g4, g2)
	p := New(cl, cfg())
	if a := run(t, p, "id=1,nodes=2,gpus=4", nil); !slices.Equal(a.Nodes.ToArray(), []uint32{1, 2}) {
		t.Fatalf("§2.4 sched_weight low byte prefers the nodes with more usable GPUs: %v", a.Nodes.ToArray())
	}
	// Free GPUs count up to the per-node request only (real Slurm).
	if a := run(t, p, "id=2,nodes=1,gpus-per-node=1", nil); a.Nodes.ToArray()[0] != 0 {
		t.Fatalf("§2.4 GPUs beyond the per-node request do not weigh: %v", a.Nodes.ToArray())
	}
	if a := run(t, p, "id=3,nodes=1,ntasks=1", nil); a.Nodes.ToArray()[0] != 0 {
		t.Fatalf("§2.4 jobs without GPUs see the admin weight only: %v", a.Nodes.ToArray())
	}
}

// TestCompletingNodesLastAtEqualWeight is cons_tres's _set_sched_weight
// for a test on the nodes free now: a node still completing
// (Request.Completing) comes after the others of its admin weight, and is
// taken when they do not suffice.
func TestCompletingNodesLastAtEqualWeight(t *testing.T) {
	cl := testCluster(t, same(3, small)...)
	p := New(cl, cfg())
	r := spec(t, cl, "id=1,ntasks=1")
	r.Completing = bmOf(0)
	a, err := p.Select(r, cl.Snap.Live(), job.WillRun, 1000)
	if err != nil || !slices.Equal(a.Nodes.ToArray(), []uint32{1}) {
		t.Fatalf("got %v %v, want n1 before the completing n0", a, err)
	}
	r = spec(t, cl, "id=2,nodes=3")
	r.Completing = bmOf(0)
	if a, err := p.Select(r, cl.Snap.Live(), job.WillRun, 1000); err != nil || a.Nodes.GetCardinality() != 3 {
		t.Fatalf("got %v %v, want all three nodes", a, err)
	}
}

func TestReserveTakesWholeFreeNodes(t *testing.T) {
	cl := testCluster(t, same(4, small)...)
	p := New(cl, cfg())
	run(t, p, "id=1,ntasks=1", roaring.BitmapOf(1))
	got, err := p.Reserve(2, cl.Snap.Live())
	if err != nil || !slices.Equal(got.ToArray(), []uint32{2, 3}) {
		t.Fatalf("got %v %v, want the free run [2 3]", got, err)
	}
	if _, err := p.Reserve(4, cl.Snap.Live()); err == nil {
		t.Fatal("reserved a busy node")
	}
}

func TestOneRowJobsAndSharingPartitions(t *testing.T) {
	nodes := same(2, small)
	cl := testCluster(t, nodes...)
	cl.Partitions["p"].OverSubscribe = 2
	cl.Partitions["q"] = &job.Partition{Nodes: cl.Snap.Live(), OverSubscribe: 1}
	p := New(cl, cfg())
	run(t, p, "id=1,partition=p,oversubscribe,ntasks=2,nodes=1", nil)
	if a := run(t, p, "id=2,partition=p,ntasks=2,nodes=1", nil); a.Nodes.ToArray()[0] != 0 {
		t.Fatalf("§2.3 step 0: a one-row job may use free cores beside sharing jobs of its own partition: %v", a.Nodes.ToArray())
	}
	if a := run(t, p, "id=3,partition=q,ntasks=1,nodes=1", nil); a.Nodes.ToArray()[0] != 1 {
		t.Fatalf("§2.3 step 0: a one-row job avoids nodes running sharing jobs of another partition: %v", a.Nodes.ToArray())
	}
	if _, err := p.Select(spec(t, cl, "id=4,partition=p,oversubscribe,ntasks=1,nodes=1"), cl.Snap.Live(), job.RunNow, 0); !errors.Is(err, job.ErrBusy) {
		t.Fatalf("§2.3 step 0: sharing jobs avoid nodes running non-sharing jobs: %v", err)
	}
}

// TestDistTasksComputeCB follows dist_tasks.c _dist_tasks_compute_c_b and
// _compute_plane_dist over the CPUs eval_nodes chose.
func TestDistTasksComputeCB(t *testing.T) {
	for _, tc := range []struct {
		name        string
		spec        string
		avail, vpus []int
		want        []int
		ok          bool
	}{
		{"eval_nodes clamp kept", "ntasks=8", []int{7, 1}, []int{1, 1}, []int{7, 1}, true},
		{"round robin", "ntasks=8", []int{36, 36}, []int{1, 1}, []int{4, 4}, true},
		{"a core's worth per pass", "ntasks=5", []int{8, 8}, []int{2, 2}, []int{3, 2}, true},
		{"cpus per task", "ntasks=3,cpus-per-task=2", []int{4, 4}, []int{1, 1}, []int{4, 2}, true},
		{"ntasks per node caps", "nodes=2,ntasks-per-node=2", []int{8, 8}, []int{1, 1}, []int{2, 2}, true},
		{"plane", "ntasks=6,m=plane=4", []int{8, 8}, []int{1, 1}, []int{4, 2}, true},
		{"no tasks given: one per node", "nodes=2", []int{1, 1}, []int{1, 1}, []int{1, 1}, true},
		{"too few cpus", "ntasks=5", []int{2, 2}, []int{1, 1}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := job.ParseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := distTasks(r, tc.avail, tc.vpus)
			if ok != tc.ok || !slices.Equal(got, tc.want) {
				t.Errorf("got %v %v, want %v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestSyncCoreBitmap follows dist_tasks.c _block_sync_core_bitmap (best-fit
// socket) and _cyclic_sync_core_bitmap (tasks packed per socket first when
// cpus-per-task > 1).
func TestSyncCoreBitmap(t *testing.T) {
	free := func(s string) []bool {
		out := make([]bool, len(s))
		for i := range s {
			out[i] = s[i] == '1'
		}
		return out
	}
	list := func(b []bool) []int {
		var out []int
		for i, x := range b {
			if x {
				out = append(out, i)
			}
		}
		return out
	}
	if got, _ := blockCores(free("11110011"), 2, 4, 2, 2, &coreUse{cpc: 1, cpt: 1, left: 1}, false, nil); !slices.Equal(list(got), []int{6, 7}) {
		t.Errorf("block best fit: %v, want the smaller sufficient socket [6 7]", list(got))
	}
	if got, _ := blockCores(free("11100111"), 2, 4, 3, 3, &coreUse{cpc: 1, cpt: 1, left: 1}, false, nil); !slices.Equal(list(got), []int{0, 1, 2}) {
		t.Errorf("block tie: %v, want the first socket", list(got))
	}
	if got, _ := cyclicCores(free("11111111"), nil, 2, 4, 4, &coreUse{cpc: 1, cpt: 2, left: 2}, false, nil); !slices.Equal(list(got), []int{0, 1, 2, 3}) {
		t.Errorf("cyclic cpt=2: %v, want socket 0 packed", list(got))
	}
	if got, _ := cyclicCores(free("11111111"), nil, 2, 4, 3, &coreUse{cpc: 1, cpt: 1, left: 1}, false, nil); !slices.Equal(list(got), []int{0, 1, 4}) {
		t.Errorf("cyclic: %v", list(got))
	}
	if _, ok := cyclicCores(free("10000000"), nil, 2, 4, 2, &coreUse{cpc: 1, cpt: 1, left: 1}, false, nil); ok {
		t.Error("cyclic with too few cores succeeded")
	}
	// CR_Socket: a used socket is completed from where the scan stopped;
	// the cores of socket 1 it passed over (not free) stay out.
	if got, _ := cyclicCores(free("11111100"), nil, 2, 4, 6, &coreUse{cpc: 1, cpt: 1, left: 1}, true, nil); !slices.Equal(list(got), []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("cyclic whole sockets after a full scan: %v", list(got))
	}
	if got, _ := cyclicCores(free("11111111"), nil, 2, 4, 2, &coreUse{cpc: 1, cpt: 1, left: 1}, true, nil); !slices.Equal(list(got), []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("cyclic whole sockets: %v", list(got))
	}
}

// TestRealSlurmLayouts are layouts recorded from a running Slurm 26.11.0rc1
// on nodes of 2 sockets x 18 cores (CPUs=36, ThreadsPerCore=2).
func TestRealSlurmLayouts(t *testing.T) {
	cirrus := nodeSpec{cpus: 36, sockets: 2, cores: 18, threads: 2, mem: 256000}
	for _, tc := range []struct {
		name  string
		units Units
		job   string
		cores [][]int
		total int
	}{
		// _allocate_sc keeps the first free cores the tasks can use, so
		// the cyclic layout only chooses among cores 0-3.
		{"ntasks-per-node trims to the first cores", UnitCore, "nodes=2,ntasks-per-node=4",
			[][]int{{0, 1, 2, 3}, {0, 1, 2, 3}}, 8},
		{"one task of 20 CPUs spills into socket 1", UnitCore, "ntasks=2,cpus-per-task=20",
			[][]int{seq(0, 19), seq(0, 19)}, 40},
		{"without a cap the layout is cyclic", UnitCore, "ntasks=4", [][]int{{0, 1, 18, 19}}, 4},
		// _get_one_res only looks at the required nodes.
		{"one node at most keeps the required node", UnitCore, "nodes=1-1,ntasks=2,nodelist=n2,exclusive", [][]int{seq(0, 35)}, 36},
		// eval_nodes_cpus_to_use keeps a socket's CPUs per node still needed.
		{"CR_Socket keeps a socket for the next node", UnitSocket, "nodes=2,ntasks=8",
			[][]int{seq(0, 17), seq(0, 35)}, 54},
		{"CR_Socket counts every touched socket", UnitSocket, "ntasks=2,cpus-per-task=20",
			[][]int{seq(0, 19), seq(0, 19)}, 72},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(testCluster(t, same(4, cirrus)...), Config{TrackMemory: true, Units: tc.units})
			a := run(t, p, tc.job, nil)
			if strings.Contains(tc.job, "nodelist=n2") && a.PerNode[0].ID != 2 {
				t.Errorf("node %d, want the required n2", a.PerNode[0].ID)
			}
			var got [][]int
			for _, n := range a.PerNode {
				got = append(got, n.Cores)
			}
			if !slices.EqualFunc(got, tc.cores, slices.Equal[[]int]) || a.TotalCPUs != tc.total {
				t.Errorf("cores %v total %d, want %v total %d", got, a.TotalCPUs, tc.cores, tc.total)
			}
		})
	}
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// TestCanJobRunOnNodeMemoryPerCPU follows job_test.c _can_job_run_on_node:
// per-CPU memory sheds allocation units (cpu_alloc_size) until it fits,
// then rounds down to whole tasks.
func TestCanJobRunOnNodeMemoryPerCPU(t *testing.T) {
	for _, tc := range []struct {
		name  string
		units Units
		spec  string
		want  int
	}{
		{"CR_Core sheds a core's threads", UnitCore, "ntasks=8,mem-per-cpu=300", 2},
		{"CR_CPU sheds one CPU", UnitCPU, "ntasks=8,mem-per-cpu=300", 3},
		{"whole tasks", UnitCPU, "ntasks=2,cpus-per-task=2,mem-per-cpu=300", 2},
		{"CR_Socket sheds a socket", UnitSocket, "ntasks=8,mem-per-cpu=200", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := testCluster(t, nodeSpec{sockets: 2, cores: 2, threads: 2, mem: 1000})
			c := cfg()
			c.Units = tc.units
			p := New(cl, c)
			if got, _ := p.canRun(p.st, spec(t, cl, tc.spec), 0, nil, p.nodeReqOf(spec(t, cl, tc.spec)) == crReserved); got != tc.want {
				t.Errorf("cpus %d, want %d", got, tc.want)
			}
		})
	}
}

// TestJobTestStep3FollowsPriorityTier follows _job_test's test 3: a sharing
// job may use cores of lower-tier partitions' jobs when nothing else is
// free, and avoids them when it can.
func TestJobTestStep3FollowsPriorityTier(t *testing.T) {
	nodes := []index.Node{
		{Name: "n0", Sockets: 1, CoresPerSocket: 4, ThreadsPerCore: 1, MemoryMB: 1000, Partitions: []string{"lo", "hi"}},
		{Name: "n1", Sockets: 1, CoresPerSocket: 4, ThreadsPerCore: 1, MemoryMB: 1000, Partitions: []string{"lo", "hi"}},
	}
	snap, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	cl := job.NewCluster(snap)
	for name, tier := range map[string]uint32{"lo": 1, "hi": 2} {
		if err := cl.Partitions[name].ParseOverSubscribe("FORCE:2"); err != nil {
			t.Fatal(err)
		}
		cl.Partitions[name].PriorityTier = tier
	}
	p := New(cl, Config{})
	run(t, p, "id=1,nodes=1,ntasks=4,partition=lo,nodelist=n0", nil)
	if a := run(t, p, "id=2,nodes=1,ntasks=2,partition=hi", nil); a.PerNode[0].ID != 1 {
		t.Errorf("test 1 should place job 2 on the idle node: %+v", a.PerNode)
	}
	run(t, p, "id=3,nodes=1,ntasks=2,partition=lo,nodelist=n1", nil)
	// Every core is now used; the hi job shares the lo jobs' cores (test 3
	// removes only same-tier rows, and job 2's cores of n1).
	a := run(t, p, "id=4,nodes=1,ntasks=2,partition=hi", nil)
	if got := a.PerNode[0]; got.ID != 0 || !slices.Equal(got.Cores, []int{0, 1}) {
		t.Errorf("test 3: %+v, want n0 cores 0-1", got)
	}
}

// TestRealSlurmGPULayouts are GPU layouts recorded from a running Slurm
// 26.11.0rc1 on nodes of 2 sockets x 8 cores with 4 GPUs and no GPU
// topology.
func TestRealSlurmGPULayouts(t *testing.T) {
	g := nodeSpec{sockets: 2, cores: 8, threads: 1, mem: 128000, gpus: 4}
	h := g
	h.gpus = 2
	for _, tc := range []struct {
		name  string
		job   string
		cores [][]int
		gpus  []int
		nodes []uint32
	}{
		// gres_filter_sock_core spreads the cores a GPU job needs over
		// the sockets, taking from the fuller socket (the first on ties).
		{"one core lands on the last socket", "ntasks=1,gpus-per-node=4", [][]int{{8}}, []int{4}, nil},
		{"odd core counts favour the last socket", "ntasks=15,gpus-per-node=2", [][]int{append(seq(0, 6), seq(8, 15)...)}, []int{2}, nil},
		{"a task's CPUs split over sockets", "cpus-per-task=5,ntasks=1,gpus-per-node=2", [][]int{{0, 1, 8, 9, 10}}, []int{2}, nil},
		{"without ntasks nothing is trimmed", "cpus-per-task=2,gpus-per-node=1", [][]int{{0, 1}}, []int{1}, nil},
		// _set_job_bits1: every node gets a GPU, earlier nodes keep one
		// for each later node.
		{"per-job GPUs: at least one a node", "ntasks=47,gpus=2", nil, []int{1, 1, 1}, nil},
		{"per-job GPUs: later nodes keep one each", "ntasks=33,gpus=5", nil, []int{3, 1, 1}, nil},
		{"per-job GPUs: required nodes first", "nodes=2,ntasks=2,nodelist=n1,gpus=3", nil, []int{1, 2}, []uint32{0, 1}},
		// Free GPUs only weigh up to what the job uses on a node, so the
		// 2-GPU node does not split the run and the walk goes down from it.
		{"GPU weight capped at the per-node count", "ntasks=20,nodelist=n2,gpus-per-node=2", nil, []int{2, 2}, []uint32{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(testCluster(t, g, g, h), Config{TrackMemory: true})
			a := run(t, p, tc.job, nil)
			var cores [][]int
			var gpus []int
			for _, n := range a.PerNode {
				cores = append(cores, n.Cores)
				gpus = append(gpus, n.GPUs)
			}
			if tc.cores != nil && !slices.EqualFunc(cores, tc.cores, slices.Equal[[]int]) {
				t.Errorf("cores %v, want %v", cores, tc.cores)
			}
			if !slices.Equal(gpus, tc.gpus) {
				t.Errorf("gpus %v, want %v", gpus, tc.gpus)
			}
			if tc.nodes != nil && !slices.Equal(a.Nodes.ToArray(), tc.nodes) {
				t.Errorf("nodes %v, want %v", a.Nodes.ToArray(), tc.nodes)
			}
		})
	}
}

func TestSocketCoresFollowsAllocateSC(t *testing.T) {
	all := func(n int) []bool {
		b := make([]bool, n)
		for i := range b {
			b[i] = true
		}
		return b
	}
	list := func(b []bool) []int {
		var out []int
		for i, x := range b {
			if x {
				out = append(out, i)
			}
		}
		return out
	}
	partial := all(36)
	partial[0], partial[1], partial[2], partial[3], partial[4], partial[5] = false, false, false, false, false, false
	partial[6], partial[7], partial[8], partial[9], partial[10], partial[11], partial[12], partial[13], partial[14] = false, false, false, false, false, false, false, false, false
	for _, tc := range []struct {
		name      string
		r         job.Request
		avail     []bool
		cpc       int
		wantCPUs  int
		wantCores []int
	}{
		{"one task per socket takes one core of two threads", job.Request{NTasksPerSocket: 1}, all(36), 2, 2, []int{0}},
		{"two tasks per socket with four CPUs each", job.Request{NTasksPerSocket: 2, CPUsPerTask: 4}, all(36), 2, 16, []int{0, 1, 2, 3, 18, 19, 20, 21}},
		{"ntasks-per-socket above a socket's threads", job.Request{NTasksPerSocket: 37}, all(36), 2, 0, nil},
		{"socket with too few free cores is left out", job.Request{CoresPerSocket: 4}, partial, 2, 36, []int{18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35}},
		{"too few usable sockets empties the node", job.Request{CoresPerSocket: 4, SocketsPerNode: 2}, slices.Clone(partial), 2, 0, nil},
		{"ntasks-per-node caps the tasks", job.Request{CoresPerSocket: 1, NTasksPerNode: 3}, all(36), 1, 3, []int{0, 1, 2}},
	} {
		avail := slices.Clone(tc.avail)
		got := socketCores(&tc.r, avail, 18, 2, tc.cpc, false)
		if got != tc.wantCPUs || !slices.Equal(list(avail), tc.wantCores) {
			t.Errorf("%s: %d CPUs on %v, want %d on %v", tc.name, got, list(avail), tc.wantCPUs, tc.wantCores)
		}
	}
}

func TestAvoidSocketsKeepsTheSocketsNeeded(t *testing.T) {
	avail := []bool{true, true, true, true, true, true, true, true}
	r := &job.Request{NTasksPerSocket: 1}
	if got := avoidSockets(r, avail, 2, 4, 1, 1); !slices.Equal(got, []bool{true, false}) {
		t.Errorf("one CPU: avoid %v, want the first socket avoided", got)
	}
	if got := avoidSockets(r, avail, 2, 4, 2, 1); !slices.Equal(got, []bool{false, false}) {
		t.Errorf("two CPUs: avoid %v, want both sockets used", got)
	}
}

// TestGangBeginTakesOtherPartitionsCores: after SetGang(true), a job may
// begin on cores another partition's job holds (cons_tres's job_res_add_job
// looks at the job's own partition's rows only; the gang scheduler
// suspends the job below), never on cores of its own partition's row.
func TestGangBeginTakesOtherPartitionsCores(t *testing.T) {
	for _, c := range []struct {
		name    string
		gang    bool
		part    string
		wantErr bool
	}{
		{"gang: a higher tier's job over a lower tier's cores", true, "hi", false},
		{"gang: a job of the holder's own partition is refused", true, "lo", true},
		{"no gang: every partition's cores are taken", false, "hi", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap, err := index.Build([]index.Node{{Name: "n1", CPUs: 4, MemoryMB: 1000, Partitions: []string{"lo", "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			cl := job.NewCluster(snap)
			cl.Partitions["hi"].PriorityTier = 10
			p := New(cl, Config{})
			p.SetGang(c.gang)
			run(t, p, "id=1,ntasks=4,partition=lo", nil)
			r := spec(t, cl, "id=2,ntasks=2,partition="+c.part)
			r.PreemptCandidates, r.PreemptSuspend, r.PreemptAll = []uint32{1}, true, true
			a, err := p.Select(r, cl.Snap.Live(), job.RunNow, 0)
			if err != nil {
				t.Fatal(err)
			}
			a.Preempted = nil
			if err := p.Begin(r, a); (err != nil) != c.wantErr {
				t.Fatalf("begin: %v, want an error: %v", err, c.wantErr)
			}
		})
	}
}
