package job

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/index"
)

// TestNewClusterThreadsFollowInitNodeRecord checks node_conf.c
// _init_node_record: tpc is 1 when the cores cover the CPUs.
func TestNewClusterThreadsFollowInitNodeRecord(t *testing.T) {
	for _, tc := range []struct {
		name                                string
		cpus, sockets, cores, threads, want int
	}{
		{"cirrus cpus equal cores", 36, 2, 18, 2, 1},
		{"hyperthreads schedulable", 72, 2, 18, 2, 2},
		{"cpus omitted", 0, 2, 4, 2, 2},
		{"fewer cpus than cores", 4, 1, 8, 2, 1},
		{"single thread", 8, 1, 8, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := index.Build([]index.Node{{Name: "n0", CPUs: tc.cpus, Sockets: tc.sockets, CoresPerSocket: tc.cores, ThreadsPerCore: tc.threads}})
			if err != nil {
				t.Fatal(err)
			}
			if got := NewCluster(s).Threads[0]; got != tc.want {
				t.Errorf("threads %d, want %d", got, tc.want)
			}
		})
	}
}

// TestApplyMemoryPolicyFollowsJobMgr checks job_mgr.c _get_def_mem and
// _valid_pn_min_mem.
func TestApplyMemoryPolicyFollowsJobMgr(t *testing.T) {
	s, err := index.Build([]index.Node{{Name: "n0", CPUs: 8, Partitions: []string{"std", "plain"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCluster(s)
	c.Partitions["std"].DefMemPerCPU, c.Partitions["std"].MaxMemPerCPU = 7150, 7150
	for _, tc := range []struct {
		name             string
		req              Request
		def, max         uint64
		wantMem          uint64
		wantCPT          int
		wantWholeNodeMem bool
	}{
		{"partition default per cpu", Request{Partition: "std"}, 0, 0, 7150, 0, false},
		{"cluster default when partition has none", Request{Partition: "plain"}, 1000, 0, 1000, 0, false},
		{"no default: whole node", Request{Partition: "plain"}, 0, 0, 0, 0, true},
		{"explicit mem per node kept", Request{Partition: "std", MemPerNode: 5, MemPerNodeSet: true}, 0, 0, 0, 0, false},
		{"above max raises cpus per task", Request{Partition: "std", MemPerCPU: 10000}, 0, 0, 5000, 2, false},
		{"above max multiplies cpus per task", Request{Partition: "std", MemPerCPU: 20000, CPUsPerTask: 2}, 0, 0, 6667, 6, false},
		{"at max unchanged", Request{Partition: "std", MemPerCPU: 7150}, 0, 0, 7150, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req
			r.ApplyMemoryPolicy(c, tc.def, tc.max)
			if r.MemPerCPU != tc.wantMem || r.CPUsPerTask != tc.wantCPT {
				t.Errorf("mem-per-cpu %d cpus-per-task %d, want %d %d", r.MemPerCPU, r.CPUsPerTask, tc.wantMem, tc.wantCPT)
			}
			if whole := r.MemPerCPU == 0 && !r.MemPerNodeSet; whole != tc.wantWholeNodeMem {
				t.Errorf("whole node memory %v, want %v", whole, tc.wantWholeNodeMem)
			}
		})
	}
}

func TestParseOverSubscribeReadsSlurmForms(t *testing.T) {
	for _, tc := range []struct {
		in               string
		n                int
		force, exclusive bool
	}{{"NO", 1, false, false}, {"EXCLUSIVE", 1, false, true}, {"YES", 4, false, false}, {"yes:2", 2, false, false}, {"FORCE", 4, true, false}, {"FORCE:8", 8, true, false}} {
		var p Partition
		if err := p.ParseOverSubscribe(tc.in); err != nil || p.OverSubscribe != tc.n || p.Force != tc.force || p.Exclusive != tc.exclusive {
			t.Errorf("%s: %+v %v", tc.in, p, err)
		}
	}
	for _, in := range []string{"MAYBE", "YES:0", "FORCE:x"} {
		var p Partition
		if err := p.ParseOverSubscribe(in); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

// TestApplyMemoryPolicyNodeMemoryUnderCPULimit checks _valid_pn_min_mem's
// per-node branch: mem per node over MaxMemPerCPU raises cpus-per-task.
func TestApplyMemoryPolicyNodeMemoryUnderCPULimit(t *testing.T) {
	s, err := index.Build([]index.Node{{Name: "n0", CPUs: 36, MemoryMB: 257400, Partitions: []string{"std"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCluster(s)
	c.Partitions["std"].MaxMemPerCPU = 7150
	for _, tc := range []struct {
		name string
		req  Request
		cpt  int
	}{
		{"one task per node", Request{Partition: "std", MemPerNode: 20000, MemPerNodeSet: true}, 3},
		{"spread over ntasks-per-node", Request{Partition: "std", MemPerNode: 20000, MemPerNodeSet: true, NTasksPerNode: 2}, 2},
		{"spread over ntasks", Request{Partition: "std", MemPerNode: 20000, MemPerNodeSet: true, NTasks: 2, MinNodes: 1}, 2},
		{"already enough cpus", Request{Partition: "std", MemPerNode: 20000, MemPerNodeSet: true, CPUsPerTask: 4}, 4},
		{"whole node reads the first node", Request{Partition: "std", MemPerNodeSet: true}, 36},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req
			r.ApplyMemoryPolicy(c, 0, 0)
			if r.CPUsPerTask != tc.cpt {
				t.Errorf("cpus-per-task %d, want %d", r.CPUsPerTask, tc.cpt)
			}
		})
	}
}

// TestFilterNodesFollowsBuildNodeList checks node_scheduler.c
// _build_node_list: nodes too small in CPUs or memory never hold the job,
// whether or not memory is consumable.
func TestFilterNodesFollowsBuildNodeList(t *testing.T) {
	s, err := index.Build([]index.Node{
		{Name: "small", CPUs: 8, MemoryMB: 16000},
		{Name: "big", CPUs: 36, MemoryMB: 256000},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCluster(s)
	for _, tc := range []struct {
		name string
		req  Request
		want []uint32
	}{
		{"no request keeps every node", Request{}, []uint32{0, 1}},
		{"memory per node above a node's", Request{MemPerNode: 20000, MemPerNodeSet: true}, []uint32{1}},
		{"memory per node above every node's", Request{MemPerNode: 300000, MemPerNodeSet: true}, nil},
		{"memory per cpu compared per cpu", Request{MemPerCPU: 16000, NTasks: 4}, []uint32{0, 1}},
		{"cpus per task above a node's", Request{CPUsPerTask: 9}, []uint32{1}},
		{"tasks per node times cpus per task", Request{NTasksPerNode: 5, CPUsPerTask: 2}, []uint32{1}},
		{"a GPU job skips nodes without GPUs", Request{GPUsPerJob: 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cand := s.Live().Clone()
			r := tc.req
			r.FilterNodes(c, cand)
			if got := cand.ToArray(); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFilterNodesShortcutAgreesWithScan: on random clusters with removed
// nodes (ids without CPUs) and candidates past the cluster, FilterNodes
// (its shortcut for requests of one CPU and nothing else) keeps the nodes
// its node-by-node scan keeps.
func TestFilterNodesShortcutAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for round := 0; round < 200; round++ {
		n := 1 + r.IntN(300)
		nodes := make([]index.Node, n)
		for i := range nodes {
			nodes[i] = index.Node{Name: fmt.Sprintf("n%d", i), CPUs: r.IntN(5), MemoryMB: uint64(r.IntN(3)) * 1000}
		}
		s, err := index.Build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		st := index.NewStore(s)
		for k := r.IntN(n/4 + 1); k > 0; k-- {
			// A node removed twice is unknown the second time.
			if next, err := st.RemoveNode(fmt.Sprintf("n%d", r.IntN(n))); err == nil {
				s = next
			}
		}
		c := NewCluster(s)
		for _, req := range []Request{{}, {NTasks: 1 + r.IntN(9)}, {CPUsPerTask: 1}, {MinCPUsPerNode: 1}, {NTasksPerNode: 1}, {CPUsPerTask: 2}, {MemPerCPU: 1}} {
			cand := roaring.New()
			for id := 0; id < n+64; id++ {
				if r.IntN(3) != 0 {
					cand.Add(uint32(id))
				}
			}
			want := cand.Clone()
			req.filterScan(c, want, max(req.CPUsPerTaskOr1()*max(req.NTasksPerNode, 1), req.MinCPUsPerNode), req.MemPerCPU, false)
			req.FilterNodes(c, cand)
			if !cand.Equals(want) {
				t.Fatalf("round %d %+v: kept %v, the scan %v", round, req, cand.ToArray(), want.ToArray())
			}
		}
	}
}

// TestResolveRefusesPlaneLayoutsSbatchRefuses follows sbatch's opt.c checks
// of -m plane=N and of --gpus against -N.
func TestResolveRefusesPlaneLayoutsSbatchRefuses(t *testing.T) {
	s, err := index.Build([]index.Node{{Name: "n1", CPUs: 8}, {Name: "n2", CPUs: 8}, {Name: "n3", CPUs: 8}})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCluster(s)
	for _, tc := range []struct {
		spec string
		bad  bool
	}{
		{"nodes=2,ntasks-per-node=4,distribution=plane=3", true}, // tasks default to 1
		{"nodes=3,distribution=plane=2", true},
		{"nodes=2,ntasks=4,distribution=plane=3", false},
		{"nodes=2,ntasks=3,distribution=plane=3", true},
		{"nodelist=n[1-3],ntasks=2,distribution=plane=1", true},
		{"ntasks=6,distribution=plane=4", false},
		{"nodes=3,gpus=2", true}, // sbatch: --gpus < -N
		{"nodes=2,gpus=2", false},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			r, err := ParseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			err = r.Resolve(c)
			if got := errors.Is(err, ErrPlaneTasks) || errors.Is(err, ErrGPUsBelowNodes); got != tc.bad {
				t.Errorf("refused %v (%v), want %v", got, err, tc.bad)
			}
		})
	}
}

// TestNodeMemoryAboveMaxRaisesCPUsPerNode follows _valid_pn_min_mem for a
// per-node request above MaxMemPerCPU: pn_min_cpus comes from the tasks
// over the minimum node count, and nodes with fewer CPUs never hold the job.
func TestNodeMemoryAboveMaxRaisesCPUsPerNode(t *testing.T) {
	s, err := index.Build([]index.Node{{Name: "n0", CPUs: 36, MemoryMB: 256000, Partitions: []string{"std"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCluster(s)
	c.Partitions["std"].MaxMemPerCPU = 7150
	for _, tc := range []struct {
		name             string
		req              Request
		wantCPT, wantMin int
		runnable         bool
	}{
		{"tasks over one node exceed the node", Request{Partition: "std", NTasks: 102, MemPerNode: 128000, MemPerNodeSet: true}, 1, 102, false},
		{"whole-node memory", Request{Partition: "std", NTasks: 15, MemPerNode: 255000, MemPerNodeSet: true}, 3, 45, false},
		{"tasks over two nodes", Request{Partition: "std", NTasks: 12, MinNodes: 2, MemPerNode: 64000, MemPerNodeSet: true}, 2, 12, true},
		{"ntasks-per-node", Request{Partition: "std", NTasksPerNode: 4, MemPerNode: 64000, MemPerNodeSet: true}, 3, 12, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req
			r.ApplyMemoryPolicy(c, 0, 0)
			cand := s.Live().Clone()
			r.FilterNodes(c, cand)
			if r.CPUsPerTask != tc.wantCPT || r.MinCPUsPerNode != tc.wantMin || cand.IsEmpty() == tc.runnable {
				t.Errorf("cpus-per-task %d, pn_min_cpus %d, runnable %v; want %d, %d, %v",
					r.CPUsPerTask, r.MinCPUsPerNode, !cand.IsEmpty(), tc.wantCPT, tc.wantMin, tc.runnable)
			}
		})
	}
}
