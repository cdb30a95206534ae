package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimReplaysAnSWFTrace: the hand-made trace's known backfill schedule
// comes out of the CLI as metrics JSON and a per-job CSV.
func TestSimReplaysAnSWFTrace(t *testing.T) {
	dir := t.TempDir()
	js, csv := filepath.Join(dir, "m.json"), filepath.Join(dir, "jobs.csv")
	out, errOut, code := runCLI("sim", "--trace", "testdata/sim/known.swf", "--json", js, "--jobs-out", csv)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "3 started (1 by backfill)") {
		t.Fatalf("summary:\n%s", out)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"jobs", "mean_wait_s", "median_wait_s", "p95_wait_s", "mean_bsld", "utilization", "makespan_s", "backfilled_jobs", "mean_pass_ms", "max_pass_ms", "wall_s"} {
		if _, ok := m[k]; !ok {
			t.Errorf("--json lacks %s", k)
		}
	}
	if m["jobs"] != 3.0 || m["makespan_s"] != 153.0 || m["backfilled_jobs"] != 1.0 || m["median_wait_s"] != 10.0 {
		t.Errorf("--json: %s", b)
	}
	rows, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	if want := "3,20,20,30,40,10,1,1,1,60,10,COMPLETED,true,20:Priority\n"; !strings.HasSuffix(string(rows), want) {
		t.Fatalf("jobs CSV:\n%s", rows)
	}
}

// TestSimRunsAreByteIdentical: the same synthetic workload and seed give
// the same per-job file, and another seed another one.
func TestSimRunsAreByteIdentical(t *testing.T) {
	dir := t.TempDir()
	run := func(name, seed string) []byte {
		path := filepath.Join(dir, name)
		_, errOut, code := runCLI("sim", "--nodes", "synthetic:64", "--synthetic-jobs", "60", "--seed", seed, "--jobs-out", path)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := run("a.jsonl", "7"), run("b.jsonl", "7"), run("c.jsonl", "8")
	if string(a) != string(b) {
		t.Fatal("two runs with seed 7 differ")
	}
	if string(a) == string(c) {
		t.Fatal("seeds 7 and 8 give the same workload")
	}
	if !strings.HasPrefix(string(a), `{"id":1,`) {
		t.Fatalf("JSON Lines: %.100s", a)
	}
}

// TestSimInvalidInput: bad flags and unusable traces exit 2 with one line.
func TestSimInvalidInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.swf")
	if err := os.WriteFile(bad, []byte("1 0 -1 100 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noHeader := filepath.Join(dir, "noheader.swf")
	if err := os.WriteFile(noHeader, []byte("1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--policy", "easy"}, `--policy: unknown policy "easy"`},
		{[]string{"sim", "--overrun", "maybe"}, `--overrun: unknown overrun rule "maybe"`},
		{[]string{"sim", "--alloc", "core"}, `--alloc: unknown allocation "core"`},
		{[]string{"sim", "--estimate", "guess"}, `--estimate: estimate "guess"`},
		{[]string{"sim", "--trace", bad}, "bad.swf:1:"},
		{[]string{"sim", "--trace", noHeader, "--nodes", "header"}, "neither MaxNodes nor MaxProcs"},
		{[]string{"sim", "--trace", "testdata/sim/known.swf", "--nodes", "header+x"}, "want header+N"},
		{[]string{"sim", "--trace", "testdata/sim/known.swf", "--nodes", "header:cpus+-1"}, "want header+N"},
		{[]string{"sim", "--partition", "nosuch", "--synthetic-jobs", "5"}, `--partition "nosuch": no such partition`},
		{[]string{"sim", "--bf-resolution", "0", "--synthetic-jobs", "5"}, "bf_resolution"},
	} {
		_, errOut, code := runCLI(c.args...)
		if code != exitInvalidInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, errOut, code := runCLI("sim", "--trace", filepath.Join(dir, "missing.swf")); code != exitRuntime {
		t.Errorf("missing trace: exit %d, %s", code, errOut)
	}
}

// TestSimPlots: --plot writes the three SVG files.
func TestSimPlots(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := runCLI("sim", "--trace", "testdata/sim/known.swf", "--plot", dir); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"queue.svg", "utilization.svg", "wait-cdf.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "</svg>") {
			t.Fatalf("%s is not an SVG document: %.200s", name, b)
		}
	}
}

// TestSimWritesACPUProfile: --cpuprofile leaves a profile go tool pprof
// reads (gzip-compressed protobuf), and an unwritable path is a runtime error.
func TestSimWritesACPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	if _, errOut, code := runCLI("sim", "--trace", "testdata/sim/known.swf", "--cpuprofile", path); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile is not gzip data: % x", b[:min(len(b), 8)])
	}
	bad := filepath.Join(t.TempDir(), "missing", "cpu.prof")
	if _, errOut, code := runCLI("sim", "--trace", "testdata/sim/known.swf", "--cpuprofile", bad); code != exitRuntime || !strings.Contains(errOut, "--cpuprofile") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestSimCompareRecorded: a hand-made sacct slice of a small site replayed
// with --compare-recorded prints sift's waits beside the recorded ones per
// size class, both utilizations and the idle waits (golden), and --json
// carries the comparison.
func TestSimCompareRecorded(t *testing.T) {
	args := []string{"sim", "--trace", "testdata/sim/site-sacct.csv", "--nodes", "testdata/sim/site.conf", "--alloc", "cpu", "--compare-recorded"}
	scrub := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "passes") && !strings.HasPrefix(l, "speed") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	runGolden(t, "sim", []cliCase{{"site-compare-recorded", args}}, scrub)
	js := filepath.Join(t.TempDir(), "m.json")
	if _, errOut, code := runCLI(append(args, "--json", js)...); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Recorded struct {
			Jobs     int `json:"jobs"`
			Recorded struct {
				Mean float64 `json:"mean_wait_s"`
			} `json:"recorded"`
			BySize []struct{ Class string } `json:"by_size"`
		} `json:"recorded"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	// Recorded waits of the nine jobs that started: 0+2+3500+600+1500+5000+1+4500+500.
	if m.Recorded.Jobs != 9 || int(m.Recorded.Recorded.Mean*9+0.5) != 15603 || len(m.Recorded.BySize) != 3 {
		t.Errorf("--json recorded: %s", b)
	}
}

// TestSimCompareRecordedNeedsATrace: without a trace, or with one that
// records no start times, --compare-recorded is invalid input.
func TestSimCompareRecordedNeedsATrace(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "--compare-recorded", "--synthetic-jobs", "5"},
		{"sim", "--compare-recorded", "--trace", "testdata/sim/known.swf"},
	} {
		if _, errOut, code := runCLI(args...); code != exitInvalidInput || !strings.Contains(errOut, "--compare-recorded") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// TestSimReservationKeepsJobsOff: --reservation keeps every trace job off
// its nodes until it ends; a malformed one is invalid input.
func TestSimReservationKeepsJobsOff(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "jobs.csv")
	_, errOut, code := runCLI("sim", "--trace", "testdata/sim/known.swf", "--jobs-out", csv, "--reservation", "n[1-4]:0:500:MAINT")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range strings.Split(strings.TrimSpace(string(rows)), "\n")[1:] {
		f := strings.Split(row, ",")
		if start, err := strconv.Atoi(f[3]); err != nil || start < 500 {
			t.Errorf("job %s starts at %s, inside the reservation", f[0], f[3])
		}
	}
	for _, bad := range []string{"n1:10", "n1:20:10", "n1:0:10:DAILY", "n[1-:0:10"} {
		if _, _, code := runCLI("sim", "--trace", "testdata/sim/known.swf", "--reservation", bad); code != exitInvalidInput {
			t.Errorf("--reservation %s: exit %d, want %d", bad, code, exitInvalidInput)
		}
	}
}

// TestSimHeaderPlusNodes: header+4 doubles the hand-made trace's 4-node
// machine, so its three jobs start at once and none needs backfill.
func TestSimHeaderPlusNodes(t *testing.T) {
	out, errOut, code := runCLI("sim", "--trace", "testdata/sim/known.swf", "--nodes", "header+4")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "machine               8 nodes, 8 CPUs") || !strings.Contains(out, "3 started (0 by backfill)") {
		t.Fatalf("summary:\n%s", out)
	}
}
