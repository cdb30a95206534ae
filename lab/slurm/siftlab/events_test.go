package main

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// eventsLog is slurmctld's log at debug2 around a requeue (lines as
// recorded, most left out), the release at second 1795686913.
const eventsLog = `[2026-11-26T09:55:14.002] debug:  sched: Running job scheduler for default depth.
[2026-11-26T09:55:14.002] preempted JobId=1 has been requeued to reclaim resources for JobId=105
[2026-11-26T09:55:14.006] debug2: _slurm_rpc_epilog_complete: JobId=1 Node=n2 usec=1795686914005908
[2026-11-26T09:55:14.019] debug2: _slurm_rpc_complete_batch_script: JobId=1 SLUID=s51XM8BMFF7000 usec=76
[2026-11-26T09:55:14.037] debug2: _slurm_rpc_epilog_complete: JobId=1 Node=n1 usec=1795686914037314
[2026-11-26T09:55:14.037] sched: Allocate JobId=105 NodeList=n[1-3,8-9] #CPUs=5 Partition=high
[2026-11-26T09:55:14.500] _slurm_rpc_submit_batch_job: JobId=106 SLUID=s7HXM8BRA85000 InitPrio=1518 usec=564
[2026-11-26T09:55:14.500] debug2: sched: JobId=106 allocated resources: NodeList=(null)
[2026-11-26T09:55:16.961] sched/backfill: _attempt_backfill: beginning
[2026-11-26T09:55:17.100] preempted JobId=7 has been killed to reclaim resources for JobId=9
[2026-11-26T09:55:20.000] debug:  sched: Running job scheduler for full queue.
not a log line
[2026-11-26T09:55:25.100] debug2: Processing RPC: REQUEST_JOB_INFO from UID=0
[2026-11-26T09:55:25.200] sched/backfill: _attempt_backfill: beginning
`

// TestParseEventsReadsTheLinesTheReplayNeeds is the events kept from
// slurmctld's log, timed from the start of the release's second: a
// scheduling case's up to the recorder's read, a step case's to the end.
func TestParseEventsReadsTheLinesTheReplayNeeds(t *testing.T) {
	upToRead := []Event{
		{MS: 1002, Kind: "main"},
		{MS: 1002, Kind: "preempt", Job: 1, By: 105, Mode: "requeue"},
		{MS: 1006, Kind: "epilog", Job: 1, Nodes: "n2"},
		{MS: 1019, Kind: "batch", Job: 1},
		{MS: 1037, Kind: "epilog", Job: 1, Nodes: "n1"},
		{MS: 1037, Kind: "alloc", Job: 105, Nodes: "n[1-3,8-9]"},
		{MS: 1500, Kind: "submit", Job: 106},
		{MS: 3961, Kind: "backfill"},
		{MS: 4100, Kind: "preempt", Job: 7, By: 9, Mode: "kill"},
		{MS: 7000, Kind: "main", Mode: "full"},
	}
	all := append(slices.Clone(upToRead), Event{MS: 12200, Kind: "backfill"})
	upToRead = append(upToRead, Event{MS: 12100, Kind: "read"})
	for _, tc := range []struct {
		untilRead bool
		want      []Event
	}{{true, upToRead}, {false, all}} {
		got := parseEvents(eventsLog, 1795686913, time.UTC, tc.untilRead)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("untilRead %v:\n got %+v\nwant %+v", tc.untilRead, got, tc.want)
		}
	}
}
