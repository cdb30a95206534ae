package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodesift/sift/bench"
)

// spinSink keeps the spin loops from being optimized away.
var spinSink uint64

func spin(rounds int) {
	x := spinSink | 1
	for i := range rounds {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		x += uint64(i)
	}
	spinSink = x
}

// spinSuites is a registry with one suite whose sift operation costs
// slowdown times its baseline's.
func spinSuites(slowdown *int) func() []bench.Suite {
	return func() []bench.Suite {
		return []bench.Suite{{Name: "spin", Sizes: []int{1}, Setup: func(int) (*bench.Case, error) {
			return &bench.Case{
				Op:        func() { spin(20000 * *slowdown) },
				Baselines: []bench.Baseline{{Name: "reference", Op: func() { spin(20000) }}},
			}, nil
		}}}
	}
}

func runBench(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"bench"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String() + errOut.String()
}

// The gate is judged on the ratio to the in-run baseline, so a rerun of the
// same code passes and a 5x slowdown fails even on a busy machine; the
// threshold is wide (50%) to keep noise out of the test.
func TestBenchCompareFailsOnInjectedSlowdownAndPassesOnRerun(t *testing.T) {
	slowdown := 1
	saved := benchSuites
	benchSuites = spinSuites(&slowdown)
	t.Cleanup(func() { benchSuites = saved })
	base := filepath.Join(t.TempDir(), "base.json")
	common := []string{"--count", "8", "--min-sample", "5ms", "--threshold", "50%"}

	if code, out := runBench(t, append(common, "--json", base)...); code != exitOK {
		t.Fatalf("base run: exit %d\n%s", code, out)
	}
	if code, out := runBench(t, append(common, "--compare", base)...); code != exitOK {
		t.Fatalf("rerun of the same code: exit %d, want 0\n%s", code, out)
	}
	slowdown = 5
	code, out := runBench(t, append(common, "--compare", base)...)
	if code != exitUnsatisfied || !strings.Contains(out, "REGRESSED") {
		t.Fatalf("5x slowdown: exit %d, want %d with REGRESSED\n%s", code, exitUnsatisfied, out)
	}
}

func TestBenchRejectsInvalidFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--nodes", "ten"},
		{"--nodes", "0"},
		{"--threshold", "much"},
		{"--format", "xml"},
		{"--suite", "no-such-suite"},
	} {
		if code, out := runBench(t, args...); code != exitInvalidInput {
			t.Errorf("sift bench %q: exit %d, want %d\n%s", args, code, exitInvalidInput, out)
		}
	}
}

func TestBenchCompareWithMissingBaseFileIsARuntimeError(t *testing.T) {
	code, out := runBench(t, "--suite", "property", "--compare", filepath.Join(t.TempDir(), "absent.json"))
	if code != exitRuntime {
		t.Fatalf("exit %d, want %d\n%s", code, exitRuntime, out)
	}
}

func TestBenchListsSuites(t *testing.T) {
	code, out := runBench(t, "--list", "--suite", "evaluate/slurm/10-leaf")
	want := "evaluate/slurm/10-leaf\nevaluate/slurm/10-leaf/cirrus\nevaluate/slurm/10-leaf/grid5000\n"
	if code != exitOK || out != want {
		t.Fatalf("exit %d, output %q, want %q", code, out, want)
	}
}

func TestBenchWritesEveryOutput(t *testing.T) {
	dir := t.TempDir()
	code, out := runBench(t, "--suite", "property", "--nodes", "500", "--count", "2", "--min-sample", "1ms",
		"--json", filepath.Join(dir, "r.json"), "--out", filepath.Join(dir, "r.txt"),
		"--html", filepath.Join(dir, "r.html"), "--cpuprofile", filepath.Join(dir, "prof"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for file, want := range map[string]string{
		"r.json":              `"suite": "property"`,
		"r.txt":               "BenchmarkProperty/engine=sift/nodes=500",
		"r.html":              "<svg",
		"prof/property.pprof": "",
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: err %v, missing %q", file, err, want)
		}
	}
	if !strings.Contains(out, "samples of sift") {
		t.Errorf("no profile summary in output:\n%s", out)
	}
}

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"1000", []int{1000}},
		{"1k,10k,1M", []int{1000, 10000, 1000000}},
		{" 5 ,7", []int{5, 7}},
	} {
		got, err := parseSizes(tc.in)
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("parseSizes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("parseSizes(%q) = %v; want %v", tc.in, got, tc.want)
			}
		}
	}
}

func TestParsePercent(t *testing.T) {
	for in, want := range map[string]float64{"10%": 0.1, "0.25": 0.25, "150%": 1.5} {
		if got, err := parsePercent(in); err != nil || got != want {
			t.Errorf("parsePercent(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parsePercent("-1%"); err == nil {
		t.Error("parsePercent(-1%) accepted")
	}
}
