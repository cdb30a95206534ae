package sched

import (
	"errors"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/nodesift/sift/select/job"
)

// TestAddRunningKeepsItsAllocation: a running job given with its
// allocation holds those cores; without one it gets what a selection on
// its node list gives, which may lay it out otherwise (ntasks=5 on two
// 4-core nodes: 4+1 as first selected from the free nodes, 3+2 on the
// list). Which cores stay free decides where the next job fits now.
func TestAddRunningKeepsItsAllocation(t *testing.T) {
	layout := &job.Allocation{Nodes: roaring.BitmapOf(0, 1), PerNode: []job.NodeAlloc{
		{ID: 0, CPUs: 1, Cores: []int{0}},
		{ID: 1, CPUs: 4, Cores: []int{0, 1, 2, 3}},
	}, TotalCPUs: 5}
	for _, c := range []struct {
		name  string
		alloc *job.Allocation
		want  string // where a 2-core job on n2 only stands
		err   error
	}{
		{name: "given", alloc: layout, want: "PENDING Resources"},
		{name: "selected on its nodes", want: "RUNNING n2"},
		{name: "on other nodes", alloc: &job.Allocation{Nodes: roaring.BitmapOf(0), PerNode: layout.PerNode[:1]}, err: ErrInvalidJob},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nodesN("n", 1, 2, "batch"), Backfill{}, DefaultConfig(), nil, true)
			req, err := job.ParseSpec("ntasks=5,time=10")
			if err != nil {
				t.Fatal(err)
			}
			run := &Job{ID: 1, User: "u", Partitions: []string{"batch"}, Request: req, Start: 0, End: 600,
				Nodes: roaring.BitmapOf(0, 1), Alloc: c.alloc}
			if err := f.q.AddRunning(run); !errors.Is(err, c.err) {
				t.Fatalf("AddRunning: %v, want %v", err, c.err)
			}
			if c.err != nil {
				return
			}
			next := f.submit(2, 100, "ntasks=2,nodelist=n2,time=10")
			f.pass(1)
			if got := f.outcome(next); got != c.want {
				t.Errorf("next job: %s, want %s", got, c.want)
			}
		})
	}
}
