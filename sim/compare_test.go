package sim

import (
	"errors"
	"math"
	"testing"

	"github.com/nodesift/sift/workload"
)

// TestCompareWithARecordedSchedule: TestKnownSchedules' backfill schedule
// (starts 3, 103 and 30) beside a recorded one that started the jobs at 0,
// 100 and 80, computed by hand. Job 3 waited 60 s in the record while the
// recorded jobs held 2 of the 4 CPUs: an idle wait.
func TestCompareWithARecordedSchedule(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 2, 100, 100), wj(2, 10, 4, 50, 60), wj(3, 20, 1, 10, 60)}
	for i, w := range []int64{0, 90, 60} {
		jobs[i].Wait = w
	}
	res := simulate(t, 4, Backfill, jobs)
	c, err := Compare(&workload.Trace{Jobs: jobs}, res, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		got, want float64
	}{
		{"jobs", float64(c.Jobs), 3},
		{"sim mean", c.Sim.Mean, (3 + 93 + 10) / 3.0},
		{"sim median", c.Sim.Median, 10},
		{"sim max", c.Sim.Max, 93},
		{"recorded mean", c.Recorded.Mean, 50},
		{"recorded median", c.Recorded.Median, 60},
		{"recorded p95", c.Recorded.P95, 60 + 0.9*30},
		{"recorded max", c.Recorded.Max, 90},
		{"earlier", float64(c.Earlier), 1},
		{"same", float64(c.Same), 0},
		{"later", float64(c.Later), 2},
		{"sim utilization", c.SimUtilization, 410 / (4 * 153.0)},
		{"recorded utilization", c.RecordedUtilization, 410 / (4 * 150.0)},
		{"recorded makespan", float64(c.RecordedMakespan), 150},
		{"idle waits", float64(c.IdleWaits), 1},
		{"idle wait seconds", float64(c.IdleWaitSeconds), 60},
		{"size classes", float64(len(c.BySize)), 2},
		{"partitions", float64(len(c.ByPartition)), 0},
	}
	for _, tc := range cases {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if c.BySize[0].Class != "1 node" || c.BySize[0].Jobs != 1 || c.BySize[1].Class != "2-4 nodes" || c.BySize[1].Jobs != 2 {
		t.Errorf("size classes: %+v", c.BySize)
	}
}

// TestSizeClasses: a job's class comes from its recorded nodes, else its
// processors over a node's CPUs; fewer processors than a node's on one
// node is "<1 node".
func TestSizeClasses(t *testing.T) {
	for _, tc := range []struct {
		procs, nodes int
		want         string
	}{
		{1, 1, "<1 node"}, {1, 0, "<1 node"}, {35, 1, "<1 node"}, {36, 1, "1 node"}, {36, 0, "1 node"},
		{37, 0, "2-4 nodes"}, {72, 2, "2-4 nodes"}, {144, 4, "2-4 nodes"}, {180, 5, "5-16 nodes"},
		{576, 16, "5-16 nodes"}, {612, 17, ">16 nodes"}, {2, 2, "2-4 nodes"},
	} {
		j := workload.Job{Procs: tc.procs, AllocProcs: tc.procs, Nodes: tc.nodes}
		if got := sizeOf(&j, 36); got != tc.want {
			t.Errorf("%d procs on %d nodes: %q, want %q", tc.procs, tc.nodes, got, tc.want)
		}
	}
}

// TestCompareNeedsRecordedWaits: a trace without start times (a synthetic
// workload) has nothing to be compared with.
func TestCompareNeedsRecordedWaits(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 2, 100, 100)}
	res := simulate(t, 4, FIFO, jobs)
	if _, err := Compare(&workload.Trace{Jobs: jobs}, res, 1); !errors.Is(err, ErrNoRecorded) {
		t.Fatalf("err = %v, want ErrNoRecorded", err)
	}
}
