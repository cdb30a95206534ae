package main

import "testing"

func TestScheduleGolden(t *testing.T) {
	const conf = "testdata/schedule/cluster.conf"
	const jobs = "testdata/schedule/jobs.json"
	// preempt.conf: partition_prio with REQUEUE, a CANCEL partition with a
	// grace time; preempt.json: a high-tier job among running low ones.
	const pconf = "testdata/schedule/preempt.conf"
	const pjobs = "testdata/schedule/preempt.json"
	at := "2026-11-25T09:30:00Z"
	runGolden(t, "schedule", []cliCase{
		{"backfill", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--at", at}},
		{"builtin", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--at", at, "--policy", "builtin"}},
		{"linear-json", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--at", at, "--plugin", "linear", "--output", "json"}},
		{"knob-flag", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--at", at, "--bf-max-job-test", "1"}},
		{"bad-knob", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--at", at, "--bf-resolution", "0"}},
		{"unknown-key", []string{"schedule", "--nodes", conf, "--jobs", "testdata/schedule/bad.json", "--at", at}},
		{"explain", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--at", at, "--explain", "104", "--explain", "109"}},
		{"explain-unknown-job", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--at", at, "--explain", "7"}},
		{"unknown-policy", []string{"schedule", "--nodes", conf, "--jobs", jobs, "--policy", "fifo"}},
		{"missing-jobs", []string{"schedule", "--nodes", conf}},
		{"reservations", []string{"schedule", "--nodes", conf, "--jobs", "testdata/schedule/resv.json", "--at", at}},
		{"reservations-explain", []string{"schedule", "--nodes", conf, "--jobs", "testdata/schedule/resv.json", "--at", at, "--explain", "203"}},
		{"bad-reservation", []string{"schedule", "--nodes", conf, "--jobs", "testdata/schedule/bad-resv.json", "--at", at}},
		{"preempt-requeue", []string{"schedule", "--nodes", pconf, "--jobs", pjobs, "--at", at}},
		{"preempt-cancel-json", []string{"schedule", "--nodes", pconf, "--jobs", pjobs, "--at", at, "--preempt-mode", "cancel", "--output", "json"}},
		{"preempt-suspend-gang", []string{"schedule", "--nodes", pconf, "--jobs", pjobs, "--at", at, "--preempt-mode", "suspend,gang", "--policy", "builtin", "--select-type-parameters", "CR_Core"}},
		{"preempt-none", []string{"schedule", "--nodes", pconf, "--jobs", pjobs, "--at", at, "--preempt-type", "preempt/none"}},
		{"preempt-bad-mode", []string{"schedule", "--nodes", pconf, "--jobs", pjobs, "--at", at, "--preempt-mode", "suspend"}},
	}, nil)
}
