package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nodesift/sift/hostlist"
	"github.com/nodesift/sift/index"
	"github.com/nodesift/sift/inventory"
	"github.com/nodesift/sift/sched"
	"github.com/nodesift/sift/sim"
	"github.com/nodesift/sift/workload"
)

// snapshotJobs is the queue as a sift jobs file: running jobs on their
// nodes until their end, pending ones with their priority and request.
func snapshotJobs(t *testing.T, snap *index.Snapshot, q *sched.Queue) []byte {
	t.Helper()
	jobs := []map[string]any{}
	for _, j := range q.Jobs() {
		fj := map[string]any{"id": j.ID, "user": j.User, "partition": j.Partition,
			"request": fmt.Sprintf("nodes=%d,exclusive", j.Request.MinNodes), "time_limit": fmt.Sprint(int64(j.TimeLimit / time.Minute)),
			"submit": j.Submit}
		switch j.State {
		case sched.Running:
			fj["state"], fj["start"], fj["end"] = "running", j.Start, j.End
			fj["nodes"] = hostlist.Compress(hostlist.Slurm, namesOf(snap, j.Nodes))
		case sched.Pending:
			fj["priority"] = j.Priority
		default:
			continue
		}
		jobs = append(jobs, fj)
	}
	b, err := json.Marshal(map[string]any{"jobs": jobs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSimAndScheduleMakeTheSameDecisions: a workload replayed by sim and,
// pass by pass, the same queue handed to sift schedule at the same time
// start the same jobs in the same order, and backfill plans the same
// starts for the jobs that wait. A Tick that ran the main pass and backfill
// is compared with schedule --policy backfill, one that ran only the main
// pass with --policy builtin (whose estimates start nothing).
func TestSimAndScheduleMakeTheSameDecisions(t *testing.T) {
	dir := t.TempDir()
	nodes, err := sim.HeaderNodes(workload.Machine{MaxNodes: 6, MaxProcs: 6}, false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "nodes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := inventory.WriteNodeFile(f, nodes); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rng := rand.New(rand.NewPCG(11, 3))
	tr := &workload.Trace{Source: "passes"}
	var at int64
	for i := range 30 {
		at += rng.Int64N(300)
		run := 60 + rng.Int64N(1800)
		tr.Jobs = append(tr.Jobs, workload.Job{ID: int64(i + 1), Submit: at, Run: run, TimeLimit: run + rng.Int64N(1800),
			Procs: 1 + rng.IntN(6), Wait: workload.Unknown, AllocProcs: workload.Unknown, MemKB: workload.Unknown, User: "u"})
	}
	cl, plug, err := sim.NewCluster(nodes, sim.WholeNode)
	if err != nil {
		t.Fatal(err)
	}
	compared := map[string]int{}
	var jobsFile []byte
	opt := sim.Options{Cluster: cl, Plugin: plug, Partition: sim.HeaderPartition, Policy: sim.Backfill, Config: sched.DefaultConfig(),
		Observe: func(now int64, q *sched.Queue, p *sched.Pass) {
			if p == nil {
				jobsFile = snapshotJobs(t, cl.Snap, q)
				return
			}
			policy := "builtin"
			switch {
			case p.MainExit != "" && p.BackfillExit != "":
				policy = "backfill"
			case p.MainExit == "":
				return
			}
			path := filepath.Join(dir, "jobs.json")
			if err := os.WriteFile(path, jobsFile, 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLI("schedule", "--nodes", filepath.Join(dir, "nodes.json"), "--plugin", "linear",
				"--jobs", path, "--at", fmt.Sprint(now), "--policy", policy, "--output", "json")
			if code != 0 {
				t.Fatalf("schedule at %d: exit %d: %s", now, code, errOut)
			}
			var res scheduleOutput
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			want := p.Started
			if want == nil {
				want = []uint32{}
			}
			if !slices.Equal(res.Started, want) {
				t.Fatalf("at %d (%s): schedule started %v, sim %v\njobs: %s", now, policy, res.Started, want, jobsFile)
			}
			if policy == "backfill" {
				for _, row := range res.Jobs {
					j, _ := q.Job(row.ID)
					if row.State == "PENDING" && row.Start != j.Start {
						t.Fatalf("at %d: job %d planned at %d by schedule, %d by sim", now, row.ID, row.Start, j.Start)
					}
				}
			}
			compared[policy]++
		}}
	res, err := sim.Run(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Started != len(tr.Jobs) || res.Summary.Backfilled == 0 || compared["backfill"] < 10 || compared["builtin"] < 10 {
		t.Fatalf("too little compared: %d started, %d backfilled, passes compared %v", res.Summary.Started, res.Summary.Backfilled, compared)
	}
}
