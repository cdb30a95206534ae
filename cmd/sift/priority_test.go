package main

import "testing"

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
