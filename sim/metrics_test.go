package sim

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/nodesift/sift/workload"
)

// TestSummaryOfAKnownSchedule: the metrics of TestKnownSchedules' backfill
// schedule (waits 3, 93 and 10 s; runs 100, 50 and 10 s on 2, 4 and 1 of
// 4 one-CPU nodes; last end at 153), computed by hand.
func TestSummaryOfAKnownSchedule(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 2, 100, 100), wj(2, 10, 4, 50, 60), wj(3, 20, 1, 10, 60)}
	s := simulate(t, 4, Backfill, jobs).Summary
	cases := []struct {
		name      string
		got, want float64
	}{
		{"mean wait", s.MeanWait, (3 + 93 + 10) / 3.0},
		{"median wait", s.MedianWait, 10},
		{"p95 wait", s.P95Wait, 10 + 0.9*(93-10)},
		{"max wait", s.MaxWait, 93},
		{"mean bsld", s.MeanBSLD, (103.0/100 + 143.0/50 + 20.0/10) / 3},
		{"mean response", s.MeanResponse, (103 + 143 + 20) / 3.0},
		{"utilization", s.Utilization, (100*2 + 50*4 + 10*1) / (4 * 153.0)},
		{"makespan", float64(s.Makespan), 153},
		{"backfilled", float64(s.Backfilled), 1},
		{"jobs held for resources", float64(s.HeldPerReason["Resources"]), 1},
		{"jobs held for priority", float64(s.HeldPerReason["Priority"]), 1},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestQuantileInterpolatesLikeNumpy: linear interpolation between ranks.
func TestQuantileInterpolatesLikeNumpy(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.5, 2.5}, {0.95, 3.85}, {1, 4}} {
		if got := quantile(xs, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

// TestPerJobFiles: the CSV has a header and one row per job with the
// reason history in one column; JSON Lines one object per line.
func TestPerJobFiles(t *testing.T) {
	jobs := []workload.Job{wj(1, 0, 2, 100, 100), wj(2, 10, 4, 50, 60), wj(3, 20, 1, 10, 60)}
	res := simulate(t, 4, Backfill, jobs)
	var b bytes.Buffer
	if err := WriteCSV(&b, res.Jobs); err != nil {
		t.Fatal(err)
	}
	want := `id,submit,eligible,start,end,wait,procs,nodes,cpus,time_limit,run,state,backfilled,reasons
1,0,3,3,103,3,2,2,2,120,100,COMPLETED,false,
2,10,10,103,153,93,4,4,4,60,50,COMPLETED,false,10:Resources
3,20,20,30,40,10,1,1,1,60,10,COMPLETED,true,20:Priority
`
	if b.String() != want {
		t.Fatalf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteJSONL(&b, res.Jobs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || lines[1] != `{"id":2,"submit":10,"eligible":10,"start":103,"end":153,"wait":93,"procs":4,"nodes":4,"cpus":4,"time_limit":60,"run":50,"state":"COMPLETED","backfilled":false,"reasons":[{"t":10,"reason":"Resources"}]}` {
		t.Fatalf("JSON Lines:\n%s", b.String())
	}
}
