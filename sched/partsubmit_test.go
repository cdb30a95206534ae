package sched

import (
	"errors"
	"testing"

	"github.com/nodesift/sift/select/job"
)

// TestPartitionMinNodesAtSubmit: _valid_job_part raises a job's minimum
// node count to the partition's MinNodes=2 when its maximum allows, and
// _job_create then refuses a job with fewer tasks than nodes. Recorded in
// lab/slurm/limits/recorded/rand-1-03.json (w3-03: ntasks=1 refused with
// "Task count specification invalid") and rand-1-06.json (w6-12: ntasks=3
// runs on two nodes).
func TestPartitionMinNodesAtSubmit(t *testing.T) {
	tests := []struct {
		spec    string
		refused bool
		min     int
	}{
		{"ntasks=3", false, 2},
		{"ntasks=1", true, 2},
		{"nodes=1", false, 1}, // its maximum (1) is below: kept, pends PartitionNodeLimit
		{"nodes=1-3", false, 2},
		{"nodes=3", false, 3},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			f := newFixture(t, nodesN("n", 1, 4, "batch"), Builtin{}, DefaultConfig(), map[string]Partition{"batch": {MinNodes: 2}}, true)
			req, err := job.ParseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			j := &Job{ID: 1, User: "u", Priority: 1, Partitions: []string{"batch"}, Request: req}
			err = f.q.Submit(j, false, 1)
			if refused := errors.Is(err, ErrBadTaskCount); refused != tc.refused || err != nil && !refused {
				t.Fatalf("Submit: %v, want refused=%v", err, tc.refused)
			}
			if !tc.refused && req.MinNodes != tc.min {
				t.Fatalf("minimum nodes %d, want %d", req.MinNodes, tc.min)
			}
		})
	}
}
