package main

import "testing"

func TestLimitsGolden(t *testing.T) {
	const d = "testdata/limits/"
	at := "1800000100"
	runGolden(t, "limits", []cliCase{
		// The spec's example (resource_limits "Hierarchy"): MaxJobs=20 from
		// the partition QOS, MaxSubmitJobs=50 from the user association.
		{"explain-spec-example", []string{"limits", "explain", "--limits", d + "spec-example.dump", "--user", "alice", "--account", "physics", "--partition", "batch", "--partition-qos", "batch=pq"}},
		{"explain-job-qos", []string{"limits", "explain", "--limits", d + "spec-example.dump", "--user", "alice", "--account", "physics", "--qos", "gpu"}},
		{"explain-partition-from-slurm-conf", []string{"limits", "explain", "--limits", d + "sched.dump", "--nodes", d + "cluster.conf", "--user", "bob", "--account", "physics", "--partition", "batch"}},
		{"explain-unknown-user", []string{"limits", "explain", "--limits", d + "spec-example.dump", "--user", "bob", "--account", "physics"}},
		{"check-ok", []string{"limits", "check", "--limits", d + "spec-example.dump", "--user", "alice", "--account", "physics", "--qos", "gpu", "--job", "nodes=1,ntasks=2,time=30", "--usage", d + "usage.json", "--at", at}},
		{"check-held-per-user-cpu", []string{"limits", "check", "--limits", d + "spec-example.dump", "--user", "alice", "--account", "physics", "--qos", "gpu", "--job", "nodes=1,ntasks=8", "--usage", d + "usage.json", "--at", at}},
		{"check-refused-maxwall", []string{"limits", "check", "--limits", d + "spec-example.dump", "--user", "alice", "--account", "physics", "--qos", "gpu", "--job", "nodes=1,ntasks=2,time=300", "--at", at}},
		{"check-held-account-grp", []string{"limits", "check", "--limits", d + "spec-example.dump", "--user", "alice", "--account", "physics", "--job", "nodes=1,ntasks=128", "--at", at}},
		{"check-bad-job", []string{"limits", "check", "--limits", d + "spec-example.dump", "--user", "alice", "--account", "physics", "--job", "nodes=1,bogus=1"}},
		{"missing-limits", []string{"limits", "explain", "--user", "alice", "--account", "physics"}},
		{"bad-dump", []string{"limits", "explain", "--limits", d + "bad.dump", "--user", "alice", "--account", "physics"}},
		// The same policy in sift's YAML form explains the same limits.
		{"explain-spec-example-yaml", []string{"limits", "explain", "--limits", d + "spec-example.yaml", "--user", "alice", "--account", "physics", "--partition", "batch", "--partition-qos", "batch=pq"}},
		{"bad-yaml", []string{"limits", "explain", "--limits", d + "bad.yaml", "--user", "alice", "--account", "physics"}},
		{"schedule", []string{"schedule", "--nodes", d + "cluster.conf", "--jobs", d + "jobs.json", "--limits", d + "sched.dump", "--at", at}},
		{"schedule-refused", []string{"schedule", "--nodes", d + "cluster.conf", "--jobs", d + "refused.json", "--limits", d + "sched.dump", "--at", at}},
	}, nil)
}
