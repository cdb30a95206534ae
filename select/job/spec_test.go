package job

import (
	"errors"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/nodesift/sift/index"
)

func TestParseSpecReadsEveryKey(t *testing.T) {
	r, err := ParseSpec("id=7,nodes=2-4,ntasks=128,cpus-per-task=2,ntasks-per-node=32,ntasks-per-core=1,ntasks-per-socket=4,mem-per-cpu=2G,gpus-per-node=a100:2,time=1:00:00,contiguous,exclusive=no,nodelist=n[1-2],n5,exclude=n9,partition=batch,priority=10,preemptable,distribution=block:block,extra=a=1&b<2")
	if err != nil {
		t.Fatal(err)
	}
	want := Request{ID: 7, MinNodes: 2, MaxNodes: 4, ReqNodes: 4, NTasks: 128, CPUsPerTask: 2, NTasksPerNode: 32, NTasksPerCore: 1, NTasksPerSocket: 4,
		MemPerCPU: 2048, GPUsPerNode: 2, GPUType: "a100", TimeLimit: time.Hour, Contiguous: true,
		Required: "n[1-2],n5", Excluded: "n9", Partition: "batch", Priority: 10, Preemptable: true,
		Distribution: Block, CoreDistSet: true, Constraints: []Constraint{{Lang: "slurm", Text: "a=1&b<2"}}}
	if diff := cmp.Diff(want, *r, cmpopts.IgnoreUnexported(roaring.Bitmap{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseSpecRejectsWithOffset(t *testing.T) {
	for _, tc := range []struct {
		in  string
		off int
	}{
		{"", 0},
		{"nodes=0", 6},
		{"nodes=4,bogus=1", 8},
		{"mem=3X", 4},
		{"time=1:2:3:4", 5},
		{"nodes=1,nodes=2", 8},
		{"ntasks=-1", 7},
		{"extra=a=1,extra=b=2", 10},
		{"foo", 0},
		{"mem=1,mem-per-cpu=2", 6},
		{"threads-per-core=1,ntasks-per-core=2", 19},
	} {
		_, err := ParseSpec(tc.in)
		var se *SpecError
		if !errors.As(err, &se) {
			t.Errorf("%q: got %v, want a SpecError", tc.in, err)
			continue
		}
		if se.ByteOffset() != tc.off {
			t.Errorf("%q: offset %d, want %d (%v)", tc.in, se.ByteOffset(), tc.off, err)
		}
	}
}

func TestParseSpecImpliesTasksLikeSbatch(t *testing.T) {
	for in, want := range map[string]int{
		"nodes=2,sockets-per-node=2,cores-per-socket=3,threads-per-core=1": 12,
		"nodes=1,cores-per-socket=4":                                       4,
		"nodes=1-2,cores-per-socket=4":                                     0,
		"cores-per-socket=4":                                               0,
		"nodes=2,ntasks=3,cores-per-socket=4":                              3,
		"nodes=2,ntasks-per-node=1,cores-per-socket=4":                     0,
		"nodes=2": 0,
		"nodes=4096,sockets-per-node=4096,cores-per-socket=4096": 1 << 24,
	} {
		r, err := ParseSpec(in)
		if err != nil || r.NTasks != want {
			t.Errorf("%s: ntasks %v, %v; want %d", in, r, err, want)
		}
	}
}

func TestParseMemoryUsesSlurmSuffixes(t *testing.T) {
	for in, want := range map[string]uint64{"512": 512, "1K": 1, "1025K": 2, "3M": 3, "2G": 2048, "2g": 2048, "1T": 1 << 20} {
		got, err := ParseMemory(in)
		if err != nil || got != want {
			t.Errorf("%s: got %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "1.5G", "1P", "-1"} {
		if _, err := ParseMemory(in); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

func TestParseTimeUsesSlurmFormatsRoundingUp(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90": 90 * time.Minute, "1:30": 2 * time.Minute, "1:00": time.Minute, "2:03:00": 123 * time.Minute,
		"1-2": 26 * time.Hour, "1-2:3": 26*time.Hour + 3*time.Minute, "1-0:0:1": 24*time.Hour + time.Minute,
		"UNLIMITED": Unlimited, "infinite": Unlimited, "-1": Unlimited, "0": 0,
	} {
		got, err := ParseTime(in)
		if err != nil || got != want {
			t.Errorf("%s: got %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "1:2:3:4", "1-2:3:4:5", "1--2", ":5", "1-"} {
		if _, err := ParseTime(in); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

func TestNodeCountsFollowSlurm(t *testing.T) {
	r := &Request{MinNodes: 2, MaxNodes: 4, ReqNodes: 4}
	if a, b, c := r.NodeCounts(100); a != 2 || b != 4 || c != 4 {
		t.Errorf("range: %d %d %d", a, b, c)
	}
	r = &Request{NTasks: 10, NTasksPerNode: 4}
	if a, b, c := r.NodeCounts(100); a != 3 || b != 10 || c != 3 {
		t.Errorf("tasks: %d %d %d", a, b, c)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseSpec(s)
		if err != nil {
			var se *SpecError
			if errors.As(err, &se) && (se.Offset < 0 || se.Offset > len(s)) {
				t.Fatalf("offset %d outside %q", se.Offset, s)
			}
			return
		}
		if r.MinNodes > r.MaxNodes {
			t.Fatalf("min %d > max %d", r.MinNodes, r.MaxNodes)
		}
	})
}

func TestResolveUsesSlurmHostlists(t *testing.T) {
	var nodes []index.Node
	for _, n := range []string{"n1", "n2", "n3", "n10", "gpu01"} {
		nodes = append(nodes, index.Node{Name: n})
	}
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCluster(s)
	r := &Request{Required: "n[1-2],gpu01", Excluded: "n10"}
	if err := r.Resolve(c); err != nil {
		t.Fatal(err)
	}
	if got := r.RequiredSet.ToArray(); len(got) != 3 || got[0] != 0 || got[2] != 4 {
		t.Errorf("required %v", got)
	}
	if got := r.ExcludedSet.ToArray(); len(got) != 1 || got[0] != 3 {
		t.Errorf("excluded %v", got)
	}
	var re *ResolveError
	if err := (&Request{Required: "n[1-4]"}).Resolve(c); !errors.As(err, &re) || re.Name != "n4" {
		t.Errorf("unknown node: %v", err)
	}
	if err := (&Request{Required: "n[1-"}).Resolve(c); err == nil {
		t.Error("bad hostlist accepted")
	}
}

func TestParseSpecKeepsCommasOfConstraints(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Constraint
		mem  uint64
	}{
		{"extra=a=1,b=2,mem=5", []Constraint{{"slurm", "a=1,b=2"}}, 5},
		{`extra="a=1,mem=2",mem=5`, []Constraint{{"slurm", "a=1,mem=2"}}, 5},
		{"requires=host:n[1-3],n7,extra=zed>1", []Constraint{{"requires", "host:n[1-3],n7"}, {"slurm", "zed>1"}}, 0},
		{`jobspec={"properties":["a","b"]}`, []Constraint{{"flux", `{"properties":["a","b"]}`}}, 0},
	} {
		r, err := ParseSpec(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if !cmp.Equal(r.Constraints, tc.want) || r.MemPerNode != tc.mem {
			t.Errorf("%s: got %+v mem %d", tc.in, r.Constraints, r.MemPerNode)
		}
	}
}
