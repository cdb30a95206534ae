package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPreemptgenIsSeeded: the same seed writes the same files, each a
// preemption cluster of 4-64 nodes whose cases start jobs before a queue
// of 10-300.
func TestPreemptgenIsSeeded(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := preemptgen([]string{"-files", "6", "-n", "3", "-seed", "3", "-out", dir}); err != nil {
			t.Fatal(err)
		}
	}
	names, _ := filepath.Glob(filepath.Join(a, "preempt-3-*.json"))
	if len(names) != 6 {
		t.Fatalf("%d files", len(names))
	}
	for _, name := range names {
		ba, _ := os.ReadFile(name)
		bb, _ := os.ReadFile(filepath.Join(b, filepath.Base(name)))
		// Only the command line, in recorded_by, names the directory.
		if !bytes.Equal(bytes.ReplaceAll(ba, []byte(a), nil), bytes.ReplaceAll(bb, []byte(b), nil)) {
			t.Fatalf("%s: not reproducible", name)
		}
		r, err := readRecording(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.SlurmConf, "PreemptType=preempt/") || strings.Contains(r.SlurmConf+r.Sacctmgr, "GraceTime") {
			t.Errorf("%s: preemption settings:\n%s%s", name, r.SlurmConf, r.Sacctmgr)
		}
		if n := len(nodeThreads(r.SlurmConf)); n < 4 || n > 64 {
			t.Errorf("%s: %d nodes", name, n)
		}
		for _, c := range r.Cases {
			if queued := len(c.Jobs) - c.Running; c.Mode != "schedule" || c.Running < 1 || queued < 10 || queued > 300 {
				t.Errorf("%s %s: mode %s, %d running, %d queued", name, c.Name, c.Mode, c.Running, queued)
			}
		}
	}
}

// TestPreemptcasesWritesTheCommittedFiles: the hand-written preemption case
// files of lab/slurm/sched/preempt are preemptcases' output, byte for byte.
func TestPreemptcasesWritesTheCommittedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := preemptcases([]string{"-out", dir}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"gang", "gangcores", "partition_prio", "qos", "exempt", "builtin"} {
		got, err := os.ReadFile(filepath.Join(dir, f+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "sched", "preempt", f+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s.json differs from preemptcases' output", f)
		}
	}
}

func TestSchedSbatchArgsWithoutGate(t *testing.T) {
	got, err := schedSbatchArgs("nodes=2,exclusive,priority=900", nil, "")
	if want := []string{"--nodes=2", "--exclusive", "--priority=900"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}
