package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sweepConfigFile = "testdata/sim/sweep/sweep.yaml"

// sweepFiles are every file a sweep wrote under dir, by relative path.
func sweepFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func runSweep(t *testing.T, args ...string) (string, string) {
	t.Helper()
	out, errOut, code := runCLI(append([]string{"sim", "sweep", sweepConfigFile}, args...)...)
	if code != exitOK {
		t.Fatalf("sweep %v: exit %d: %s", args, code, errOut)
	}
	return out, errOut
}

// TestSimSweepIsTheSameOnOneAndManyWorkers: the 16 points on one worker
// and on four give byte-identical point files, summary table, JSON and
// plot, and the same printed table.
func TestSimSweepIsTheSameOnOneAndManyWorkers(t *testing.T) {
	one, many := t.TempDir(), t.TempDir()
	out1, _ := runSweep(t, "--out", one, "--workers", "1")
	outN, _ := runSweep(t, "--out", many, "--workers", "4")
	a, b := sweepFiles(t, one), sweepFiles(t, many)
	if len(a) != 16+3 {
		t.Fatalf("%d files, want 16 points and 3 summaries: %v", len(a), a)
	}
	for name, content := range a {
		if b[name] != content {
			t.Errorf("%s differs between 1 and 4 workers", name)
		}
	}
	if out1 != outN {
		t.Errorf("printed tables differ:\n%s\n%s", out1, outN)
	}
}

// TestSimSweepGolden: the printed table and summary.csv of the small sweep
// (one worker: the per-point lines on stderr come in point order).
func TestSimSweepGolden(t *testing.T) {
	dir := t.TempDir()
	out, errOut := runSweep(t, "--out", dir, "--workers", "1")
	csv, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	got := "--- stdout\n" + out + "--- stderr\n" + errOut + "--- summary.csv\n" + string(csv)
	golden := filepath.Join("testdata", "sim", "sweep", "sweep.golden")
	if os.Getenv("SIFT_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("sweep output differs from %s:\n%s", golden, got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "policies.svg")); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "backfill bf_window=60") {
		t.Errorf("policies.svg: %v %.200s", err, b)
	}
}

// TestSimCollectMergesPointRuns: each point run alone with --point (as an
// array task runs it), then sift sim collect, gives the files of the whole
// sweep.
func TestSimCollectMergesPointRuns(t *testing.T) {
	whole, split := t.TempDir(), t.TempDir()
	out, _ := runSweep(t, "--out", whole)
	for i := range 16 {
		if o, _ := runSweep(t, "--out", split, "--point", fmt.Sprint(i)); o != "" {
			t.Fatalf("--point %d printed %q", i, o)
		}
	}
	if n := len(sweepFiles(t, split)); n != 16 {
		t.Fatalf("16 --point runs wrote %d files", n)
	}
	got, errOut, code := runCLI("sim", "collect", split)
	if code != exitOK {
		t.Fatalf("collect: exit %d: %s", code, errOut)
	}
	if got != out {
		t.Errorf("collect printed\n%s\nthe sweep\n%s", got, out)
	}
	a, b := sweepFiles(t, whole), sweepFiles(t, split)
	for name, content := range a {
		if b[name] != content {
			t.Errorf("%s differs", name)
		}
	}
}

// TestSimSweepEmit: the sbatch array and flux bulksubmit scripts (golden,
// with the test's directory written as TESTDIR).
func TestSimSweepEmit(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	scrub := func(s string) string { return strings.ReplaceAll(s, wd, "TESTDIR") }
	runGolden(t, "sim/sweep", []cliCase{
		{"emit-slurm-array", []string{"sim", "sweep", sweepConfigFile, "--emit", "slurm-array", "--sift", "/opt/sift/bin/sift", "--out", "results"}},
		{"emit-flux", []string{"sim", "sweep", sweepConfigFile, "--emit", "flux", "--sift", "/opt/sift/bin/sift", "--out", "results"}},
	}, scrub)
}

// TestSimSweepInvalidInput: bad configs and flags exit 2 with the cause.
func TestSimSweepInvalidInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{write("knob.yaml", "knobs: {bf_interval: [30]}\n")}, `"bf_interval" is not a knob of sift sim`},
		{[]string{write("empty.yaml", "knobs: {bf_window: []}\n")}, "bf_window has no values"},
		{[]string{write("policy.yaml", "policies: [easy]\n")}, `policies: unknown policy "easy"`},
		{[]string{write("field.yaml", "trace: [a.swf]\n")}, "field trace not found"},
		{[]string{write("ok.yaml", "policies: [fifo]\n"), "--point", "1"}, "--point 1: the sweep has 1 points"},
		{[]string{write("ok2.yaml", "policies: [fifo]\n"), "--emit", "pbs"}, `unknown --emit "pbs"`},
		{[]string{write("ok3.yaml", "policies: [fifo]\n"), "--workers", "0"}, "--workers must be at least 1"},
	} {
		_, errOut, code := runCLI(append([]string{"sim", "sweep"}, c.args...)...)
		if code != exitInvalidInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, errOut, code := runCLI("sim", "collect", dir); code != exitInvalidInput || !strings.Contains(errOut, "no points/point-*.json") {
		t.Errorf("collect of an empty dir: exit %d, %q", code, errOut)
	}
}
