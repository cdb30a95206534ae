package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestPriorityGolden(t *testing.T) {
	const d = "testdata/priority/"
	base := []string{"priority", "--limits", d + "assoc.dump", "--jobs", d + "jobs.json", "--nodes", d + "slurm.conf",
		"--at", "2026-11-21T12:00:00"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	runGolden(t, "priority", []cliCase{
		{"sprio-usage-from-jobs", with()},
		{"sprio-normalized", with("--normalized")},
		{"sshare-usage-from-jobs", with("--shares")},
		{"sshare-classic", with("--shares", "--set", "PriorityFlags=NO_FAIR_TREE")},
		{"sprio-usage-file", with("--usage", d+"usage.sshare")},
		{"sshare-usage-file-parsable", with("--usage", d+"usage.sshare", "--shares", "--parsable")},
		{"sprio-json", with("--output", "json", "--set", "PriorityWeightAssoc=5")},
		{"sshare-json", with("--usage", d+"usage.sshare", "--shares", "--output", "json")},
		{"bad-usage", with("--usage", d+"bad.sshare")},
		{"bad-set", with("--set", "PriorityWeightAge=lots")},
		{"not-a-priority-key", with("--set", "SchedulerType=sched/backfill")},
		{"no-jobs", []string{"priority", "--limits", d + "assoc.dump"}},
		{"schedule-multifactor", []string{"schedule", "--nodes", d + "slurm.conf", "--jobs", d + "jobs.json", "--limits", d + "assoc.dump",
			"--at", "2026-11-21T12:00:00", "--policy", "builtin", "--priority", "multifactor", "--output", "json"}},
		{"schedule-multifactor-needs-limits", []string{"schedule", "--nodes", d + "slurm.conf", "--jobs", d + "jobs.json",
			"--priority", "multifactor"}},
	}, nil)
}

func TestSimWithMultifactorPriority(t *testing.T) {
	trace := "../../workload/testdata/sdsc-sp2-first500.swf"
	waits := map[string]string{}
	for _, p := range []string{"basic", "multifactor"} {
		var out, errb bytes.Buffer
		code := run([]string{"sim", "--trace", trace, "--policy", "fifo", "--priority", p,
			"--priority-set", "PriorityWeightFairshare=1000", "--priority-set", "PriorityWeightAge=100"}, strings.NewReader(""), &out, &errb)
		if code != 0 || !strings.Contains(out.String(), "381 started") {
			t.Fatalf("--priority %s: exit %d\n%s%s", p, code, out.String(), errb.String())
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "wait ") {
				waits[p] = l
			}
		}
	}
	// Fair-share reorders the queue: the p95 wait changes.
	if waits["basic"] == waits["multifactor"] {
		t.Errorf("same waits under both: %s", waits["basic"])
	}
	var out, errb bytes.Buffer
	if code := run([]string{"sim", "--priority", "bogus"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("--priority bogus: exit %d", code)
	}
}
