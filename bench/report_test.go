package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/pprof/profile"
)

func result(suite string, nodes int, ratios map[string]float64, baselines ...string) Result {
	r := Result{Suite: suite, Nodes: nodes, Measurement: Measurement{Engine: "sift", Iters: 10,
		Samples: []float64{100, 110}, MedianNS: 105, P95NS: 110}, Ratios: ratios}
	for _, b := range baselines {
		r.Baselines = append(r.Baselines, Measurement{Engine: b, Iters: 1, Samples: []float64{1000}, MedianNS: 1000, P95NS: 1000})
	}
	return r
}

// steady gives result r ratio spreads: the named baseline steadiest.
func steady(r Result, name string) Result {
	r.Spreads = map[string]float64{}
	for k := range r.Ratios {
		r.Spreads[k] = 0.3
	}
	r.Spreads[name] = 0.05
	r.Slices = 48
	return r
}

func TestCompareJudgesRatiosNotTimes(t *testing.T) {
	base := &Report{Results: []Result{
		steady(result("evaluate", 1000, map[string]float64{"reference": 100, "expr": 50, machineBaseline: 2}, "reference", "expr"), "reference"),
		result("ingest", 1000, map[string]float64{machineBaseline: 4}),
		result("gone", 1000, map[string]float64{machineBaseline: 4}),
	}}
	for _, tc := range []struct {
		name     string
		cur      []Result
		want     []string // "suite baseline regressed"
		thresh   float64
		regessed int
	}{
		{"same ratios pass", []Result{
			steady(result("evaluate", 1000, map[string]float64{"reference": 100, "expr": 50, machineBaseline: 2}, "reference", "expr"), "reference"),
			result("ingest", 1000, map[string]float64{machineBaseline: 4}),
		}, []string{"evaluate reference false", "ingest machine false"}, 0.1, 0},
		{"drop within threshold passes", []Result{
			steady(result("evaluate", 1000, map[string]float64{"reference": 91, "expr": 10}, "reference", "expr"), "reference"),
		}, []string{"evaluate reference false"}, 0.1, 0},
		{"drop past threshold fails", []Result{
			steady(result("evaluate", 1000, map[string]float64{"reference": 89}, "reference"), "reference"),
			result("ingest", 1000, map[string]float64{machineBaseline: 0.8}),
		}, []string{"evaluate reference true", "ingest machine true"}, 0.1, 2},
		{"the steadiest baseline judges", []Result{
			steady(result("evaluate", 1000, map[string]float64{"reference": 50, "expr": 50, machineBaseline: 2}, "reference", "expr"), machineBaseline),
		}, []string{"evaluate machine false"}, 0.1, 0},
		{"a halved ratio regresses, spreads or not", []Result{
			result("evaluate", 1000, map[string]float64{"reference": 50, "expr": 25, machineBaseline: 1}, "reference", "expr"),
		}, []string{"evaluate reference true"}, 0.1, 1},
		{"sizes not in base are skipped", []Result{
			steady(result("evaluate", 5000, map[string]float64{"reference": 1}, "reference"), "reference"),
		}, nil, 0.1, 0},
		{"faster is never a regression", []Result{
			result("ingest", 1000, map[string]float64{machineBaseline: 400}),
		}, []string{"ingest machine false"}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := Compare(base, &Report{Results: tc.cur}, tc.thresh)
			var got []string
			bad := 0
			for _, v := range vs {
				got = append(got, strings.Join([]string{v.Suite, v.Baseline, map[bool]string{true: "true", false: "false"}[v.Regressed]}, " "))
				if v.Regressed {
					bad++
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			if n := WriteVerdicts(&out, vs); n != bad || bad != tc.regessed {
				t.Errorf("WriteVerdicts counted %d, verdicts %d, want %d\n%s", n, bad, tc.regessed, out.String())
			}
		})
	}
}

func TestReportJSONRoundTripsAndHasTheDocumentedFields(t *testing.T) {
	rep := &Report{Results: []Result{steady(result("evaluate/slurm/10-leaf", 100000, map[string]float64{"reference": 300, "expr": 900}, "reference", "expr"), "expr")}}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"results"`, `"suite": "evaluate/slurm/10-leaf"`, `"nodes": 100000`, `"median_ns": 105`, `"p95_ns": 110`, `"allocs": 0`, `"ratios"`, `"reference": 300`, `"expr": 900`, `"ratio_spreads"`} {
		if !strings.Contains(b.String(), field) {
			t.Errorf("JSON lacks %s:\n%s", field, b.String())
		}
	}
	back, err := ReadReport(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := ReadReport(strings.NewReader("{")); err == nil {
		t.Error("ReadReport accepted truncated JSON")
	}
}

func TestBenchstatLinesAreGoBenchmarkFormat(t *testing.T) {
	rep := &Report{Results: []Result{result("evaluate/slurm/10-leaf", 100000, map[string]float64{"reference": 3}, "reference")}}
	var b bytes.Buffer
	if err := rep.WriteBenchstat(&b); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			f := strings.Fields(l)
			name := f[0]
			if i := strings.LastIndexByte(name, '-'); i > strings.LastIndexByte(name, '=') {
				name = name[:i] // the -GOMAXPROCS suffix
			}
			lines = append(lines, strings.Join(append([]string{name}, f[1:]...), " "))
		}
	}
	want := []string{
		"BenchmarkEvaluate/slurm/10-leaf/engine=sift/nodes=100000 10 100.00 ns/op 0 B/op 0 allocs/op",
		"BenchmarkEvaluate/slurm/10-leaf/engine=sift/nodes=100000 10 110.00 ns/op 0 B/op 0 allocs/op",
		"BenchmarkEvaluate/slurm/10-leaf/engine=reference/nodes=100000 1 1000.00 ns/op 0 B/op 0 allocs/op",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("benchstat lines (-want +got):\n%s", diff)
	}
	if !strings.Contains(b.String(), "goos: ") || !strings.Contains(b.String(), "pkg: github.com/nodesift/sift/bench") {
		t.Errorf("missing configuration header:\n%s", b.String())
	}
}

func TestTableHasOneColumnPerBaseline(t *testing.T) {
	rep := &Report{Results: []Result{
		result("ingest", 10, map[string]float64{"encoding/json": 2, machineBaseline: 1}, "encoding/json"),
		result("evaluate", 10, map[string]float64{"reference": 300, "expr": 900, machineBaseline: 1}, "expr", "reference"),
	}}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	head := strings.Fields(strings.SplitN(b.String(), "\n", 2)[0])
	want := []string{"suite", "nodes", "median", "p95", "cpu", "allocs/op", "B/op", "MB/s", "×reference", "×expr", "×encoding/json"}
	if diff := cmp.Diff(want, head); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if !strings.Contains(b.String(), "300") || !strings.Contains(b.String(), "900") {
		t.Errorf("ratios missing:\n%s", b.String())
	}
}

func TestTableLabelsRecordedRatios(t *testing.T) {
	peer := result("peer/slurm/1", 100000, map[string]float64{"reference": 300, machineBaseline: 1}, "reference")
	peer.RecordedRatios = map[string]float64{PeerRecorded: 4013}
	rep := &Report{Results: []Result{peer, result("ingest", 10, map[string]float64{machineBaseline: 1})}}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasSuffix(lines[0], "×reference  ×peer (recorded)") {
		t.Errorf("header %q: want the recorded column last, labelled as recorded", lines[0])
	}
	if !strings.HasSuffix(lines[1], "4013") || !strings.HasSuffix(lines[2], "-") {
		t.Errorf("rows:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "not timed in this run") {
		t.Errorf("no note on recorded figures:\n%s", b.String())
	}
}

func TestTableShowsMatchCountsLast(t *testing.T) {
	peer := result("peer/slurm/4", 100000, map[string]float64{"reference": 300, machineBaseline: 1}, "reference")
	peer.RecordedRatios = map[string]float64{PeerRecorded: 4013}
	n := 22918
	peer.Matches = &n
	rep := &Report{Results: []Result{peer, result("ingest", 10, map[string]float64{machineBaseline: 1})}}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasSuffix(lines[0], "×peer (recorded)  matches") {
		t.Errorf("header %q: want the match count last", lines[0])
	}
	if !strings.HasSuffix(lines[1], "4013    22918") || !strings.HasSuffix(lines[2], "-") {
		t.Errorf("rows:\n%s", b.String())
	}
}

func TestHTMLHasOnePlotPerSuite(t *testing.T) {
	rep := &Report{Results: []Result{
		result("evaluate", 1000, map[string]float64{"reference": 3}, "reference"),
		result("evaluate", 10000, map[string]float64{"reference": 3}, "reference"),
		result("ingest", 1000, map[string]float64{}),
		result("compile", 0, map[string]float64{}),
	}}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "<svg"); n != 2 {
		t.Errorf("%d plots, want 2", n)
	}
	if strings.Contains(b.String(), "<?xml") {
		t.Error("inline SVG keeps its XML prolog")
	}
}

func TestSummarizeCountsOnlySiftSamples(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	run, leaf, other := fn(1, "vm.(*Machine).Run"), fn(2, "index.(*Snapshot).ExtraLeaf"), fn(3, "expr.Run")
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	lRun, lLeaf, lOther := loc(1, run), loc(2, leaf), loc(3, other)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lLeaf, lRun}, Value: []int64{3, 30}, Label: map[string][]string{"engine": {"sift"}}},
			{Location: []*profile.Location{lRun}, Value: []int64{1, 10}, Label: map[string][]string{"engine": {"sift"}}},
			{Location: []*profile.Location{lOther}, Value: []int64{9, 90}, Label: map[string][]string{"engine": {"expr"}}},
		},
		Function: []*profile.Function{run, leaf, other},
		Location: []*profile.Location{lRun, lLeaf, lOther},
	}
	got := summarize(p, "x.pprof", 5)
	want := &ProfileSummary{File: "x.pprof", Samples: 2,
		Flat: []FuncShare{{leaf.Name, 0.75}, {run.Name, 0.25}},
		Cum:  []FuncShare{{run.Name, 1}, {leaf.Name, 0.75}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

var recheckSink uint64

func recheckSpin() {
	x := recheckSink | 1
	for i := range 20000 {
		x ^= x << 13
		x ^= x >> 7
		x += uint64(i)
	}
	recheckSink = x
}

// A result that regressed only because of noise (crafted here) is rerun and
// replaced; with a 50% threshold the rerun of equal work passes.
func TestRecheckReplacesANoisyRegression(t *testing.T) {
	suites := []Suite{{Name: "spin", Sizes: []int{1}, Setup: func(int) (*Case, error) {
		return &Case{Op: recheckSpin, Baselines: []Baseline{{Name: "reference", Op: recheckSpin}}}, nil
	}}}
	base := &Report{Results: []Result{steady(result("spin", 1, map[string]float64{"reference": 1, machineBaseline: 1}, "reference"), "reference")}}
	noisy := &Report{Results: []Result{steady(result("spin", 1, map[string]float64{"reference": 0.1, machineBaseline: 0.1}, "reference"), "reference")}}
	vs := Compare(base, noisy, 0.5)
	if len(vs) != 1 || !vs[0].Regressed {
		t.Fatalf("crafted regression not detected: %+v", vs)
	}
	vs, err := Recheck(base, noisy, suites, Options{Count: 6, MinSample: 5 * time.Millisecond}, 0.5, 2, vs)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Regressed {
		t.Fatalf("after recheck: %+v", vs)
	}
	if noisy.Results[0].Ratios["reference"] <= 0.1 {
		t.Errorf("noisy result was not replaced: %+v", noisy.Results[0].Ratios)
	}
}

func TestCompareToleratesTheNoiseBothRunsMeasured(t *testing.T) {
	noisy := func(ratio float64) Result {
		r := result("update", 1000, map[string]float64{machineBaseline: ratio})
		r.Spreads, r.Slices = map[string]float64{machineBaseline: 1}, 48
		return r
	}
	base := &Report{Results: []Result{noisy(1)}}
	for _, tc := range []struct {
		ratio     float64
		regressed bool
	}{{0.6, false}, {0.2, true}} {
		vs := Compare(base, &Report{Results: []Result{noisy(tc.ratio)}}, 0.1)
		if len(vs) != 1 || vs[0].Regressed != tc.regressed || vs[0].Tolerance != maxNoiseTolerance {
			t.Errorf("ratio 1 -> %v: %+v, want regressed %v at the capped tolerance", tc.ratio, vs, tc.regressed)
		}
	}
	quiet := base.Results[0]
	quiet.Spreads = map[string]float64{machineBaseline: 0.2}
	half := quiet
	half.Ratios = map[string]float64{machineBaseline: 0.49}
	if vs := Compare(&Report{Results: []Result{quiet}}, &Report{Results: []Result{half}}, 0.1); len(vs) != 1 || !vs[0].Regressed || vs[0].Tolerance >= 0.3 {
		t.Errorf("halved ratio with small spreads: %+v", vs)
	}
}
