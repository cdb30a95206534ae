package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestQuantile(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{nil, 0.5, 0},
		{[]float64{3}, 0.95, 3},
		{[]float64{5, 1, 3}, 0.5, 3},
		{[]float64{4, 1, 3, 2}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 0.95, 19},
		{[]float64{6, 5, 4, 3, 2, 1}, 0.95, 6},
	} {
		if got := quantile(tc.xs, tc.q); got != tc.want {
			t.Errorf("quantile(%v, %v) = %v, want %v", tc.xs, tc.q, got, tc.want)
		}
	}
}

func TestPairedRatioCancelsNoiseSharedByARepetition(t *testing.T) {
	// Repetition 2 ran during a burst of load that slowed both 10x.
	sift := []float64{10, 100, 10}
	base := []float64{50, 500, 50}
	if got, spread := pairedRatio(base, sift); got != 5 || spread != 0 {
		t.Errorf("pairedRatio = %v, spread %v; want 5, 0", got, spread)
	}
}

func TestSelectMatchesGlobsAndPrefixes(t *testing.T) {
	suites := []Suite{{Name: "compile/slurm/10-leaf"}, {Name: "evaluate/slurm/3-leaf"}, {Name: "evaluate/slurm/10-leaf"},
		{Name: "evaluate/slurm/10-leaf/cirrus"}, {Name: "ingest"}, {Name: "peer/flux/1", OnRequest: true}}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"", []string{"compile/slurm/10-leaf", "evaluate/slurm/3-leaf", "evaluate/slurm/10-leaf", "evaluate/slurm/10-leaf/cirrus", "ingest"}},
		{"evaluate", []string{"evaluate/slurm/3-leaf", "evaluate/slurm/10-leaf", "evaluate/slurm/10-leaf/cirrus"}},
		{"eval", []string{"evaluate/slurm/3-leaf", "evaluate/slurm/10-leaf", "evaluate/slurm/10-leaf/cirrus"}},
		{"*/slurm/10-leaf", []string{"compile/slurm/10-leaf", "evaluate/slurm/10-leaf", "evaluate/slurm/10-leaf/cirrus"}},
		{"evaluate/slurm/10-leaf/cirrus", []string{"evaluate/slurm/10-leaf/cirrus"}},
		{"select", nil},
		{"peer", []string{"peer/flux/1"}},
		{"*/flux/*", []string{"peer/flux/1"}},
	} {
		var got []string
		for _, s := range Select(suites, tc.pattern) {
			got = append(got, s.Name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Select(%q) (-want +got):\n%s", tc.pattern, diff)
		}
	}
}

func TestBenchmarkName(t *testing.T) {
	for _, tc := range [][4]string{
		{"evaluate/slurm/10-leaf", "sift", "100000", "BenchmarkEvaluate/slurm/10-leaf/engine=sift/nodes=100000"},
		{"ingest", "encoding/json", "1000", "BenchmarkIngest/engine=encoding-json/nodes=1000"},
	} {
		n := map[string]int{"100000": 100000, "1000": 1000}[tc[2]]
		if got := BenchmarkName(tc[0], tc[1], n); got != tc[3] {
			t.Errorf("BenchmarkName(%q, %q, %d) = %q, want %q", tc[0], tc[1], n, got, tc[3])
		}
	}
}

func TestRunGrowsTheInnerLoopAndCountsAllocations(t *testing.T) {
	var sink []byte
	suite := Suite{Name: "alloc", Sizes: []int{1}, Setup: func(int) (*Case, error) {
		return &Case{Op: func() { sink = make([]byte, 64) }, Bytes: 64}, nil
	}}
	rep, err := Run([]Suite{suite}, Options{Count: 3, MinSample: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_ = sink
	r := rep.Results[0]
	if r.Iters < 2 || len(r.Samples) != 3 || r.Allocs < 0.9 || r.Allocs > 1.1 || r.BytesOp < 64 || r.MBps <= 0 {
		t.Errorf("iters %d, samples %d, allocs/op %v, B/op %v, MB/s %v", r.Iters, len(r.Samples), r.Allocs, r.BytesOp, r.MBps)
	}
}

func TestSizeFreeSuitesRunOnce(t *testing.T) {
	calls := 0
	suite := Suite{Name: "once", SizeFree: true, Setup: func(n int) (*Case, error) {
		calls++
		if n != 0 {
			t.Errorf("setup at %d nodes", n)
		}
		return &Case{Op: func() {}}, nil
	}}
	if _, err := Run([]Suite{suite}, Options{Sizes: []int{10, 20}, Count: 1, MinSample: time.Microsecond}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("setup ran %d times", calls)
	}
}

func TestFormatRatioKeepsThreeSignificantDigits(t *testing.T) {
	for v, want := range map[float64]string{1234.6: "1235", 56.78: "56.8", 2.345: "2.35", 0.01234: "0.0123", 0.000456: "0.000456", 0: "0.00"} {
		if got := formatRatio(v); got != want {
			t.Errorf("formatRatio(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestRunReportsAPanicInASuiteAsAnError(t *testing.T) {
	suite := Suite{Name: "boom", Sizes: []int{1}, Setup: func(int) (*Case, error) {
		return &Case{Op: func() { panic("index out of range") }}, nil
	}}
	_, err := Run([]Suite{suite}, Options{Count: 1, MinSample: time.Microsecond})
	if err == nil || !strings.Contains(err.Error(), "boom nodes=1: panic: index out of range") {
		t.Fatalf("err = %v", err)
	}
}
