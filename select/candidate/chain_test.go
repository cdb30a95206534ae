package candidate

import (
	"errors"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/select/job"
	"github.com/nodesift/sift/vm"
)

func testCluster(t *testing.T) *job.Cluster {
	t.Helper()
	nodes := []index.Node{
		{Name: "n1", CPUs: 4, MemoryMB: 8000, Partitions: []string{"batch"}, Extra: []byte(`{"zed":1}`)},
		{Name: "n2", CPUs: 4, MemoryMB: 8000, Partitions: []string{"batch"}, Extra: []byte(`{"zed":2}`)},
		{Name: "n3", CPUs: 4, MemoryMB: 8000, Partitions: []string{"batch"}, Extra: []byte(`{"zed":3}`), State: "down"},
		{Name: "n4", CPUs: 2, MemoryMB: 8000, Partitions: []string{"batch"}, Extra: []byte(`{"zed":4}`)},
		{Name: "g1", CPUs: 8, MemoryMB: 16000, Partitions: []string{"gpu"}, Extra: []byte(`{"zed":5}`)},
	}
	s, err := index.Build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	return job.NewCluster(s)
}

// TestBuildRecordsEveryStage checks that each stage removes its nodes, counts
// them, and that masks narrow only the usable nodes.
func TestBuildRecordsEveryStage(t *testing.T) {
	c := testCluster(t)
	r, err := job.ParseSpec("nodes=1,cpus-per-task=3,partition=batch,extra=zed>=2,exclude=n2")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Resolve(c); err != nil {
		t.Fatal(err)
	}
	prog, err := compiler.Compile(compiler.Lang("slurm"), "zed>=2")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(Input{Cluster: c, Request: r, Programs: []*vm.Program{prog},
		Masks: []Mask{{Name: "reserved", Reason: "held for a higher-priority job", Nodes: roaring.New()}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name        string
		in, removed int
	}{
		{StageInventory, 5, 0}, {StagePartition, 5, 1}, {StageConstraint, 4, 1}, {StageExcluded, 3, 1},
		{StageConfig, 2, 1}, {StageState, 1, 1}, {"reserved", 0, 0},
	}
	if len(res.Stages) != len(want) {
		t.Fatalf("stages %+v", res.Stages)
	}
	for i, w := range want {
		s := res.Stages[i]
		if s.Name != w.name || s.In != w.in || s.Removed != w.removed {
			t.Errorf("stage %d = %s in %d removed %d, want %s in %d removed %d", i, s.Name, s.In, s.Removed, w.name, w.in, w.removed)
		}
	}
	if got := res.Candidates.ToArray(); len(got) != 1 || got[0] != 2 {
		t.Errorf("candidates %v, want [2] (n3, down but configured)", got)
	}
	if !res.Usable.IsEmpty() {
		t.Errorf("usable %v, want none", res.Usable.ToArray())
	}
	var b strings.Builder
	res.Explain(&b)
	if !strings.Contains(b.String(), "node state") || !strings.Contains(b.String(), "1 down") {
		t.Errorf("explain:\n%s", b.String())
	}
}

// TestStateReasonAgreesWithBreakdown: on every subset of the nodes, the
// state stage's reason is the one its breakdown counts, shortcut or not.
func TestStateReasonAgreesWithBreakdown(t *testing.T) {
	c := testCluster(t)
	c.Drain.Add(1)
	c.Usable.Remove(1)
	for set := 0; set < 1<<c.N; set++ {
		cand := roaring.New()
		for id := 0; id < c.N; id++ {
			if set&(1<<id) != 0 {
				cand.Add(uint32(id))
			}
		}
		if got, want := stateReason(c, cand), stateBreakdown(c, cand); got != want {
			t.Errorf("%v: %q, want %q", cand.ToArray(), got, want)
		}
	}
}

func TestBuildRefusesUnknownPartitionAndMissingPrograms(t *testing.T) {
	c := testCluster(t)
	if _, err := Build(Input{Cluster: c, Request: &job.Request{Partition: "nope"}}); !errors.Is(err, ErrUnknownPartition) {
		t.Errorf("unknown partition: %v", err)
	}
	r := &job.Request{Constraints: []job.Constraint{{Lang: "slurm", Text: "a=1"}}}
	if _, err := Build(Input{Cluster: c, Request: r}); !errors.Is(err, ErrPrograms) {
		t.Errorf("missing program: %v", err)
	}
}

// TestCandidatesAreBuildsCandidates: Candidates, which records no stage,
// gives the nodes Build's Candidates holds, for requests that each stage
// narrows, and fails where Build fails.
func TestCandidatesAreBuildsCandidates(t *testing.T) {
	c := testCluster(t)
	for _, tc := range []struct{ spec, constraint string }{
		{"nodes=1,cpus-per-task=3,partition=batch,exclude=n2", "zed>=2"},
		{"nodes=1,partition=batch", ""},
		{"nodes=1", ""},
		{"nodes=1,partition=gpu,mem=12000", ""},
		{"ntasks=2,mem-per-cpu=5000", "zed<4"},
		{"nodes=2,exclusive,partition=nosuch", ""},
	} {
		r, err := job.ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		var progs []*vm.Program
		if tc.constraint != "" {
			r.Constraints = []job.Constraint{{Lang: "slurm", Text: tc.constraint}}
			prog, err := compiler.Compile(compiler.Lang("slurm"), tc.constraint)
			if err != nil {
				t.Fatal(err)
			}
			progs = []*vm.Program{prog}
		}
		if err := r.Resolve(c); err != nil {
			t.Fatal(err)
		}
		in := Input{Cluster: c, Request: r, Programs: progs}
		res, berr := Build(in)
		got, err := Candidates(in)
		switch {
		case (berr == nil) != (err == nil):
			t.Errorf("%s: Build error %v, Candidates error %v", tc.spec, berr, err)
		case err == nil && !got.Equals(res.Candidates):
			t.Errorf("%s: Candidates %v, Build's %v", tc.spec, got, res.Candidates)
		}
	}
}
