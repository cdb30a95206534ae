package main

import (
	"testing"

	"github.com/nodesift/sift/hpcsim"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/sim"
)

// TestSimFIFOAgreesWithTheMethodsFCFS replays a hand-made sequence both
// ways: slurmctld's main pass alone (package sim) and the method's FCFS
// (package hpcsim) give the same waits once batch_sched_delay is 0 (with
// Slurm's default of 3 s a submitted job waits for the pass that sees it;
// the method starts it at its submit time).
func TestSimFIFOAgreesWithTheMethodsFCFS(t *testing.T) {
	w := &hpcsim.Workload{Nodes: 4, ProcsPerNode: 1, Jobs: []hpcsim.Job{
		{ID: 1, Submit: 0, Run: 100, Request: 120, Procs: 3},
		{ID: 2, Submit: 1, Run: 100, Request: 120, Procs: 4},
		{ID: 3, Submit: 2, Run: 10, Request: 60, Procs: 1},
		{ID: 4, Submit: 500, Run: 30, Request: 60, Procs: 2},
	}}
	want, err := hpcsim.Simulate(w, 0, len(w.Jobs), false)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sched.DefaultConfig()
	cfg.BatchSchedDelay = 0
	got, err := slurmReplay(w, []int{0}, len(w.Jobs), sim.FIFO, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].MeanWait != want.MeanWait || got[0].MeanBSLD != want.MeanBSLD {
		t.Errorf("sim fifo: wait %.2f bsld %.3f; method's FCFS: wait %.2f bsld %.3f", got[0].MeanWait, got[0].MeanBSLD, want.MeanWait, want.MeanBSLD)
	}
	bf, err := slurmReplay(w, []int{0}, len(w.Jobs), sim.Backfill, sched.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if bf[0].MeanWait >= want.MeanWait {
		t.Errorf("Slurm's backfill: mean wait %.2f, FCFS %.2f: job 3 was not backfilled", bf[0].MeanWait, want.MeanWait)
	}
}
